"""The viewer in a real browser: headless Chromium (Debian's chromium and chromium-driver, which
.ci/run installs) driven by Selenium. A report opens with no console error and fetches nothing; a
replay steps through a recorded game to the recorded final scores; a tampered record is marked;
whole games against the random bot are played by clicks to their end and saved as records that
rebuild.

Skipped, with the reason, only where the browser or Selenium is missing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments import screenshots
from experiments.viewer import play_server, replay, report_page
from support import finished_run, tournament_config

MISSING = screenshots.missing_browser()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"no headless browser: {MISSING}")

RUN = tournament_config("browser", 3, "python_sushi_go(players=2)", 2)


@pytest.fixture(scope="module")
def driver():
  browser = screenshots.chromium()
  yield browser
  browser.quit()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
  return finished_run(tmp_path_factory.mktemp("browser"), RUN)[1]


def by_css(driver, selector):
  from selenium.webdriver.common.by import By  # pylint: disable=import-outside-toplevel
  return driver.find_elements(By.CSS_SELECTOR, selector)


def open_report(driver, path):
  driver.get(path.as_uri())
  assert screenshots.console_errors(driver) == []
  # Everything the page shows is in the file: no resource was fetched (images are data: URLs).
  fetched = driver.execute_script(
      "return performance.getEntriesByType('resource').map(e => e.name)"
      ".filter(name => !name.startsWith('data:'))")
  assert fetched == []


def test_report_opens_without_console_errors(driver, run_dir):
  open_report(driver, report_page.write(run_dir, quiet=True))
  assert driver.title == "browser"
  assert len(by_css(driver, "#summary table")) == 2 and len(by_css(driver, "#plots img")) == 3
  assert all(image.get_property("naturalWidth") > 0 for image in by_css(driver, "#plots img"))
  assert len(by_css(driver, "button.open-replay")) == 2


def test_replay_steps_through_a_recorded_game_to_its_final_scores(driver, run_dir):
  open_report(driver, report_page.write(run_dir, quiet=True))
  records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
  for number, record in enumerate(records):
    by_css(driver, "button.open-replay")[number].click()
    steps = len(replay.rebuild(record)["turns"]) + 1
    positions = []
    for step in range(1, steps + 1):
      assert by_css(driver, "#replay-step")[0].text == f"step {step} of {steps}"
      if step < steps:
        positions.append(by_css(driver, "#replay h3")[0].text)
        by_css(driver, "#replay-next")[0].click()
    assert positions[0] == "Round 1/3, turn 1/10" and len(set(positions)) == steps - 1
    shown = [cell.text for cell in by_css(driver, "#replay-final .final-score")]
    assert shown == [str(score) for score in record["scores"]]
    assert by_css(driver, "#replay-final .ok") and not by_css(driver, "#replay-problem")
    by_css(driver, "#replay-first")[0].click()
    hidden = by_css(driver, "input.show-hand")[1]
    hidden.click()  # seat 1's hand hidden
    assert "cards hidden" in by_css(driver, "table.turn tr")[2].text
    assert "cards hidden" not in by_css(driver, "table.turn tr")[1].text
  assert screenshots.console_errors(driver) == []


def test_a_tampered_record_is_marked_in_the_report(driver, run_dir, tmp_path):
  tampered = tmp_path / "games.jsonl"
  records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
  records[1]["scores"][0] += 5
  tampered.write_text("".join(json.dumps(record) + "\n" for record in records))
  open_report(driver, report_page.write_games(tampered, quiet=True))
  marks = [row.text for row in by_css(driver, "#game-list tr")[1:]]
  assert "mismatch" not in marks[0] and "mismatch" in marks[1]
  by_css(driver, "button.open-replay")[1].click()
  assert "scores differ" in by_css(driver, "#replay-problem")[0].text
  by_css(driver, "#replay-last")[0].click()
  assert [c.text for c in by_css(driver, "#replay-final .recorded-score")][0] == str(
      records[1]["scores"][0])


@pytest.mark.slow  # about 25 s a game: every move is two or three clicks and a request
@pytest.mark.parametrize("game_string", ["python_sushi_go(players=2)",
                                         "python_sushi_draft(players=3)"])
def test_a_whole_game_against_the_random_bot_by_clicks(driver, tmp_path, game_string):
  records = tmp_path / "games.jsonl"
  session = play_server.Session(game_string, "random", {}, 3, 0, records)
  with screenshots.serving(session) as url:
    driver.get(url)
    moves = screenshots.play_to_the_end(driver, np.random.default_rng(0))
    final = session.current.view()["final"]
    assert [cell.text for cell in by_css(driver, "#final .final-score")] == [
        str(score) for score in final["scores"]]
    if game_string.startswith("python_sushi_go"):
      assert any(" + " in move for move in moves)  # a Chopsticks pair was clicked
    by_css(driver, "#save")[0].click()
    from selenium.webdriver.support.ui import WebDriverWait  # pylint: disable=import-outside-toplevel
    WebDriverWait(driver, 10).until(lambda d: by_css(d, "#saved")[0].text)
    assert by_css(driver, "#saved")[0].text == f"Saved as record 0 of {records}"
    assert screenshots.console_errors(driver) == []
  record = json.loads(records.read_text())
  assert len(record["bots"][0]["actions"]) == len(moves)
  assert replay.rebuild(record)["problem"] is None
