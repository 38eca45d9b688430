"""A pytest plugin for mutation runs (`run.py` loads it with `-p mutation.fresh_locks`): each test
process gets a tqdm write lock of its own.

mutmut forks every mutant's test process from one parent. A fork copies tqdm's class-wide lock in
whatever state it is in; once a lock was held at a fork (by the parent's monitor thread, or by
a process killed while holding it), every later mutant whose tests draw a progress bar waits
forever, and the mutants of the runner's `execute` all hung that way. A fresh lock per process
cannot have been held."""

import threading

import tqdm


def pytest_configure(config):  # pylint: disable=unused-argument
  tqdm.tqdm.set_lock(threading.RLock())
