"""Records checked against their config at resume, report and reproduce: a renamed seat, another
game, a wrong type or bytes that are not UTF-8 are refused naming the file and line, never
reported as a new competitor or a traceback."""

from __future__ import annotations

import json

import pytest

from experiments import run_folder
from experiments.cli import main
from support import finished_run


def edit_second(record: dict, field: str, value) -> bytes:
  return (json.dumps({**record, field: value}) + "\n").encode()


@pytest.fixture
def finished(tmp_path):
  return finished_run(tmp_path)


@pytest.mark.parametrize("field, value, message", [
    ("seats", ["hacker", "greedy"], "game 1 is recorded with seats ['hacker', 'greedy'], but the"
     " config seats"),
    ("game", "python_sushi_go(players=3,rounds=1)", "game 1 is recorded on"),
    ("scores", ["x", 3], "game 1's 'scores' is ['x', 3], not 2 finite numbers"),
    ("winners", [7], "game 1's 'winners' is [7], not seats of its 2"),
    ("seed", {"entropy": 5, "spawn_key": [0]}, "game 1's 'seed' is {'entropy': 5, 'spawn_key':"
     " [0]}, but the config's is"),
    ("bots", 7, "game 1's 'bots' is 7, not the config's bots by seat"),
    ("puddings", "x", "game 1's 'puddings' is 'x', not 2 finite numbers"),
    ("luck", ["x", 1.0], "game 1's 'luck' is ['x', 1.0], not 2 finite numbers"),
    ("rounds", None, "game 1's 'rounds' is None, not a list by round of 2 seats"),
    ("breakdown", 5, "game 1's 'breakdown' is 5, not a list by round of 2 seats"),
    (None, None, "line 2: not UTF-8 text"),
])
def test_a_record_that_is_not_the_configs_is_refused_everywhere(finished, capsys, field, value,
                                                                message):
  config, run_dir = finished
  capsys.readouterr()
  records = run_dir / run_folder.RECORDS_FILE
  first, second = records.read_bytes().splitlines(keepends=True)
  bad = b'{"index": 1, "seats": "\xff"}\n' if field is None else \
      edit_second(json.loads(second), field, value)
  records.write_bytes(first + bad)
  for command in (["report", str(run_dir)], ["reproduce", str(run_dir)],
                  ["run", str(config), "--out", str(run_dir), "--quiet"]):
    with pytest.raises(SystemExit) as refused:
      main(command)
    err = capsys.readouterr().err
    assert refused.value.code == 2, command
    assert f"{records}, line 2: " in err and message in err, (command, err)
  assert records.read_bytes() == first + bad


def test_the_report_refuses_an_edited_config(finished, capsys):
  config, run_dir = finished
  capsys.readouterr()
  stored = run_dir / run_folder.CONFIG_FILE
  stored.write_text(stored.read_text().replace("seed = 5", "seed = 6"))
  with pytest.raises(SystemExit) as refused:
    main(["report", str(run_dir)])
  assert refused.value.code == 2
  assert "config.toml does not match the hash in resolved_config.json" in capsys.readouterr().err
