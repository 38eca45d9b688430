"""Headless Chromium for the viewer: the browser the tests drive, and the screenshots of the docs.

`chromium()` starts Debian's `chromium` through `chromium-driver` (Selenium, the `test` extra),
headless, keeping the page's console log. `python -m experiments.screenshots` plays a small
tournament into a temporary folder, writes its HTML report, opens a replay at the end of a round
and saves docs/images/report-replay.png; then serves a game against the heuristic bot
(`sushigo play --web`), plays a few turns by clicks (one with Chopsticks when the hand offers it)
and saves docs/images/play-web.png.
"""

from __future__ import annotations

import contextlib
import pathlib
import shutil
import tempfile
import threading
from collections.abc import Iterator

DOCS_IMAGES = pathlib.Path(__file__).resolve().parents[1] / "docs" / "images"
BROWSER, DRIVER = "chromium", "chromedriver"  # Debian's packages chromium, chromium-driver
WINDOW = (1280, 900)


def missing_browser() -> str | None:
  """Why the browser cannot be started here, or None when it can."""
  try:
    import selenium  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  except ImportError:
    return "selenium is not installed (pip install -e '.[test]')"
  absent = [name for name in (BROWSER, DRIVER) if shutil.which(name) is None]
  if absent:
    return (f"{' and '.join(absent)} not found (Debian: apt-get install chromium"
            " chromium-driver)")
  return None


def chromium(size: tuple[int, int] = WINDOW):
  """A headless Chromium driven by Selenium, with the browser's console log kept."""
  # pylint: disable=import-outside-toplevel
  from selenium import webdriver
  from selenium.webdriver.chrome.service import Service
  options = webdriver.ChromeOptions()
  for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                   "--disable-gpu", f"--window-size={size[0]},{size[1]}"):
    options.add_argument(argument)
  options.binary_location = shutil.which(BROWSER)
  options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
  return webdriver.Chrome(options=options, service=Service(shutil.which(DRIVER)))


def console_errors(driver) -> list[str]:
  """The page's console messages of level SEVERE (errors) since the last call."""
  return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


@contextlib.contextmanager
def serving(session) -> Iterator[str]:
  """`play_server.serve(session)` on a free port in a thread; yields its URL."""
  from experiments.viewer import play_server  # pylint: disable=import-outside-toplevel
  server = play_server.serve(session)
  thread = threading.Thread(target=server.serve_forever, daemon=True)
  thread.start()
  try:
    yield f"http://127.0.0.1:{server.server_address[1]}/"
  finally:
    server.shutdown()
    server.server_close()
    thread.join()


def click_move(driver, rng, pair: bool) -> str:
  """Plays one move of the web game by clicks: a random card of the hand (with `pair`, a second
  one when that makes a Chopsticks pair), then a move those cards make; returns the move's text
  and waits for the next position."""
  # pylint: disable=import-outside-toplevel
  from selenium.common.exceptions import StaleElementReferenceException
  from selenium.webdriver.common.by import By
  from selenium.webdriver.support.ui import WebDriverWait
  waiting = WebDriverWait(driver, 30, ignored_exceptions=(StaleElementReferenceException,))
  # The page renders after its first request returns, which may be after the page has loaded.
  before = waiting.until(lambda d: d.find_elements(By.ID, "position"))[0].text
  hand = driver.find_elements(By.CSS_SELECTOR, "#hand button.card")
  order = rng.permutation(len(hand)).tolist()
  driver.find_elements(By.CSS_SELECTOR, "#hand button.card")[order[0]].click()
  if pair:
    for second in order[1:]:
      driver.find_elements(By.CSS_SELECTOR, "#hand button.card")[second].click()
      if driver.find_elements(By.CSS_SELECTOR, "#moves button.move"):
        break
      driver.find_elements(By.CSS_SELECTOR, "#hand button.card")[second].click()  # unselect
  moves = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
  move = moves[int(rng.integers(len(moves)))]
  text = move.text
  move.click()
  waiting.until(
      lambda d: d.find_elements(By.ID, "final") or
      d.find_element(By.ID, "position").text != before)
  return text


def play_to_the_end(driver, rng, max_moves: int = 200) -> list[str]:
  """Plays the web game open in `driver` by clicks to its end (a pair whenever Chopsticks allow
  one, every other turn); returns the moves' texts."""
  from selenium.webdriver.common.by import By  # pylint: disable=import-outside-toplevel
  played = []
  while not driver.find_elements(By.ID, "final"):
    if len(played) >= max_moves:
      raise RuntimeError(f"the game did not end in {max_moves} moves")
    played.append(click_move(driver, rng, pair=len(played) % 2 == 1))
  return played


SCREENSHOT_RUN = """players = [{ name = "random", bot = "random" }, { name = "heuristic", bot = "heuristic" }]

[experiment]
name = "screenshots"
seed = 7
games = ["python_sushi_go(players=2)"]
num_games = 2
"""
REPORT_PNG, PLAY_PNG = "report-replay.png", "play-web.png"
PLAY_GAME, PLAY_BOT, PLAY_SEED, PLAY_MOVES = "python_sushi_go(players=2)", "heuristic", 4, 14


def report_screenshot(driver, folder: pathlib.Path, path: pathlib.Path) -> None:
  """A tournament's report, a replay opened and stepped to its first round's scores."""
  # pylint: disable=import-outside-toplevel
  from selenium.webdriver.common.by import By
  from experiments import tournament
  from experiments.viewer import report_page
  config = folder / "screenshots.toml"
  config.write_text(SCREENSHOT_RUN, encoding="utf-8")
  run_dir = tournament.run(config, out=folder / "run", quiet=True)
  driver.get(report_page.write(run_dir, quiet=True).as_uri())
  driver.find_element(By.CSS_SELECTOR, "button.open-replay").click()
  while not driver.find_elements(By.CSS_SELECTOR, "#replay table.round"):
    driver.find_element(By.ID, "replay-next").click()
  driver.find_element(By.CSS_SELECTOR, "input.show-hand[data-seat='1']").click()  # a hidden hand
  driver.execute_script("document.getElementById('replay').scrollIntoView()")
  driver.save_screenshot(str(path))


def play_screenshot(driver, folder: pathlib.Path, path: pathlib.Path) -> None:
  """A game against the heuristic, some turns played by clicks, a card of the hand selected."""
  # pylint: disable=import-outside-toplevel
  import numpy as np
  from selenium.webdriver.common.by import By
  from experiments.viewer import play_server
  session = play_server.Session(PLAY_GAME, PLAY_BOT, {}, PLAY_SEED, 0, folder / "games.jsonl")
  rng = np.random.default_rng(PLAY_SEED)
  with serving(session) as url:
    driver.get(url)
    for move in range(PLAY_MOVES):
      click_move(driver, rng, pair=move % 2 == 1)
    driver.find_elements(By.CSS_SELECTOR, "#hand button.card")[0].click()
    driver.save_screenshot(str(path))


def main() -> None:
  missing = missing_browser()
  if missing:
    raise SystemExit(f"no headless browser: {missing}")
  DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
  driver = chromium((1280, 1000))
  try:
    with tempfile.TemporaryDirectory() as folder:
      report_screenshot(driver, pathlib.Path(folder), DOCS_IMAGES / REPORT_PNG)
      play_screenshot(driver, pathlib.Path(folder), DOCS_IMAGES / PLAY_PNG)
  finally:
    driver.quit()
  print(f"Wrote {DOCS_IMAGES / REPORT_PNG} and {DOCS_IMAGES / PLAY_PNG}")


if __name__ == "__main__":
  main()
