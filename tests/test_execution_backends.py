"""The backends of `experiments.execution`. Local worker processes start clean (by a forkserver, or
spawned), never forked from the running parent. The Ray backend runs against a stand-in for Ray
that records what it is asked: how Ray is started or joined (and refused when nothing answers at `--address`), how
units are shipped as tasks and their results gathered, and that a Ray started for a run is shut
down after it. The real Ray runs in test_experiments.py (`ray_backend`), slowly; these run in
milliseconds, so that every line of the backend is checked on every run of the suite."""

from __future__ import annotations

import logging
import socket
import sys

import pytest

from experiments import execution
from experiments.run_folder import RunError, Session


class FakeRay:
  """Ray's calls used by the backend: init/shutdown/is_initialized, remote, put, wait, get. Tasks
  run when submitted; `wait` hands them back in reverse order, as a cluster may."""

  def __init__(self, initialized: bool = False, init_error: Exception | None = None):
    self.initialized, self.init_error = initialized, init_error
    self.calls: list[tuple] = []

  def is_initialized(self) -> bool:
    return self.initialized

  def init(self, **kwargs) -> None:
    self.calls.append(("init", kwargs))
    if self.init_error is not None:
      raise self.init_error
    self.initialized = True

  def shutdown(self) -> None:
    self.calls.append(("shutdown",))
    self.initialized = False

  def put(self, value):
    self.calls.append(("put", value))
    return ("ref", value)

  def remote(self, function):
    fake = self

    class Remote:
      @staticmethod
      def remote(*args):
        args = [a[1] if isinstance(a, tuple) and a[:1] == ("ref",) else a for a in args]
        fake.calls.append(("task", args[-1]))
        return ("ref", function(*args))
    return Remote

  def wait(self, pending, num_returns: int):
    assert num_returns == 1
    return [pending[-1]], pending[:-1]

  def get(self, ref):
    return ref[1]


def session(workers: int = 2, address: str | None = None) -> Session:
  return Session(backend="ray", workers=workers, address=address, budget={})


def listening_address():
  server = socket.socket()
  server.bind(("127.0.0.1", 0))
  server.listen()
  return server, f"127.0.0.1:{server.getsockname()[1]}"


def closed_address() -> str:
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    return f"127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.parametrize("quiet", [True, False])
def test_a_local_ray_is_started_with_the_workers_as_cpus(quiet):
  ray = FakeRay()
  execution.start_ray(ray, session(workers=3), quiet)
  level = logging.ERROR if quiet else logging.INFO
  assert ray.calls == [("init", {"num_cpus": 3, "include_dashboard": False,
                                 "log_to_driver": False, "logging_level": level})]


def test_quiet_silences_rays_logger_before_it_starts(monkeypatch):
  logger = logging.getLogger("ray")
  monkeypatch.setattr(logger, "level", logging.NOTSET)
  execution.start_ray(FakeRay(), session(), quiet=False)
  assert logger.level == logging.NOTSET
  execution.start_ray(FakeRay(), session(), quiet=True)
  assert logger.level == logging.ERROR


def test_a_cluster_that_answers_is_joined_at_its_address():
  server, address = listening_address()
  with server:
    ray = FakeRay()
    execution.start_ray(ray, session(address=address), quiet=True)
  assert ray.calls == [("init", {"address": address, "log_to_driver": False,
                                 "logging_level": logging.ERROR})]


@pytest.mark.parametrize("error", [ConnectionError("refused"), TimeoutError("slow"),
                                   RuntimeError("version"), ValueError("bad")])
def test_a_cluster_ray_cannot_join_is_one_sentence(error):
  server, address = listening_address()
  with server, pytest.raises(RunError) as refused:
    execution.start_ray(FakeRay(init_error=error), session(address=address), quiet=True)
  assert str(refused.value) == f"--address {address}: Ray cannot connect there: {error}"


def test_an_address_where_nothing_answers_is_refused_before_ray_is_asked():
  address = closed_address()
  ray = FakeRay()
  with pytest.raises(RunError, match=rf"^--address {address}: nothing answers there \(.+\);"
                     r" start the cluster \(ray start --head\) or check the address$"):
    execution.start_ray(ray, session(address=address), quiet=True)
  assert ray.calls == []


@pytest.mark.parametrize("prefix,host", [("", "head.example"), ("ray://", "head.example"),
                                         ("", "fe80::1")])
def test_the_address_check_connects_to_host_and_port(prefix, host, monkeypatch):
  opened = []

  class Connection:
    def close(self):
      opened.append("closed")

  def connect(where, timeout):
    opened.append((where, timeout))
    return Connection()
  monkeypatch.setattr(socket, "create_connection", connect)
  execution._check_ray_address(f"{prefix}{host}:6379")  # pylint: disable=protected-access
  assert opened == [((host, 6379), execution.RAY_CONNECT_SECONDS), "closed"]


@pytest.mark.parametrize("error,shown", [(OSError(111, "Connection refused"), "Connection refused"),
                                         (OSError("no route"), "no route")])
def test_the_address_check_names_the_reason_nothing_answered(error, shown, monkeypatch):
  def connect(*args, **kwargs):
    raise error
  monkeypatch.setattr(socket, "create_connection", connect)
  with pytest.raises(RunError) as refused:
    execution._check_ray_address("head.example:6379")  # pylint: disable=protected-access
  assert str(refused.value) == (f"--address head.example:6379: nothing answers there ({shown});"
                                " start the cluster (ray start --head) or check the address")


@pytest.mark.parametrize("address", ["auto", "head.example", "head.example:port", ":6379",
                                     "ray://head.example"])
def test_addresses_that_name_no_host_and_port_are_left_to_ray(address, monkeypatch):
  def connect(*args, **kwargs):
    raise AssertionError(f"connected for {address!r}")
  monkeypatch.setattr(socket, "create_connection", connect)
  execution._check_ray_address(address)  # pylint: disable=protected-access


def test_without_ray_installed_the_backend_says_how_to_install_it(monkeypatch):
  monkeypatch.setitem(sys.modules, "ray", None)
  with pytest.raises(RunError, match=r'^the ray backend needs Ray: pip install -e "\.\[ray\]"$'):
    execution.import_ray()


def test_ray_is_imported_when_installed(monkeypatch):
  stand_in = FakeRay()
  monkeypatch.setitem(sys.modules, "ray", stand_in)
  assert execution.import_ray() is stand_in


def parse(text: str) -> str:
  return text.upper()


def play(config: str, index: int):
  return {"unit": index, "config": config}, {"unit": index}


def experiment_playing(play_unit) -> execution.Experiment:
  return execution.Experiment(results=None, parse=parse, size=None, play=play_unit, report=None,
                              report_files=None)


EXPERIMENT = experiment_playing(play)


class Config:
  """A config as the backends see it: its text, parsed in the worker."""
  text = "the config"


def ray_results(ray, indices, workers=2):
  return list(execution._ray_results(  # pylint: disable=protected-access
      ray, EXPERIMENT, Config, indices, session(workers=workers), quiet=True))


def test_units_run_as_tasks_of_chunks_and_every_result_comes_back_once():
  ray = FakeRay()
  results = ray_results(ray, list(range(40)), workers=2)
  assert sorted(line["unit"] for line, _ in results) == list(range(40))
  assert all(line["config"] == "THE CONFIG" for line, _ in results)  # parsed in the task
  tasks = [call[1] for call in ray.calls if call[0] == "task"]
  assert [unit for task in tasks for unit in task] == list(range(40))
  assert len(tasks) == 20  # 40 units, 2 workers: chunks of 40 // (2 * 8) = 2 units
  assert [line["unit"] for line, _ in results][:2] == tasks[-1]  # as they finish
  assert ("put", "the config") in ray.calls  # the text is shipped once, not once per task


def test_a_ray_started_for_the_run_is_shut_down_after_it():
  ray = FakeRay()
  ray_results(ray, [0, 1, 2])
  assert ray.calls[0] == ("init", {"num_cpus": 2, "include_dashboard": False,
                                   "log_to_driver": False, "logging_level": logging.ERROR})
  assert ray.calls[-1] == ("shutdown",)
  assert not ray.initialized


def test_a_ray_already_running_is_used_as_it_is_and_left_running():
  ray = FakeRay(initialized=True)
  ray_results(ray, [0, 1, 2])
  assert not any(call[0] in ("init", "shutdown") for call in ray.calls)
  assert ray.initialized


def test_a_failing_unit_still_shuts_down_the_ray_started_for_it():
  def broken(config, index):
    raise ValueError(f"unit {index}")
  ray = FakeRay()
  experiment = experiment_playing(broken)

  with pytest.raises(ValueError, match="unit 0"):
    list(execution._ray_results(  # pylint: disable=protected-access
        ray, experiment, Config, [0, 1], session(), quiet=True))
  assert ray.calls[-1] == ("shutdown",)


def sees_the_parents_mark(config: str, index: int):
  return {"unit": index, "mark": getattr(execution, "_PARENT_MARK", None)}, {"unit": index}


def test_local_workers_are_not_forked_from_the_parent(monkeypatch):
  """A forked worker would inherit the parent's state (here a mark set after import; in a run,
  open files, threads and locks); workers started by a forkserver or spawned import afresh."""
  monkeypatch.setattr(execution, "_PARENT_MARK", "set in the parent", raising=False)

  results = list(execution._process_results(  # pylint: disable=protected-access
      experiment_playing(sees_the_parents_mark), Config, [0, 1, 2], workers=2))
  assert sorted(line["unit"] for line, _ in results) == [0, 1, 2]
  assert [line["mark"] for line, _ in results] == [None] * 3


def test_a_worker_parses_the_config_once_and_plays_its_units_in_order():
  parsed = []

  def counting_parse(text):
    parsed.append(text)
    return text
  chunk = execution._play_chunk  # pylint: disable=protected-access
  assert chunk(counting_parse, play, "a config", [3, 1, 2]) == [play("a config", i)
                                                                 for i in (3, 1, 2)]
  chunk(counting_parse, play, "a config", [4])
  assert parsed == ["a config"]
