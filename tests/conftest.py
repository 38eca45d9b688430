"""Shared test setup: the tests marked `first` run before the others; in mutation runs only (mutmut
sets MUTANT_UNDER_TEST), each test process gets a tqdm write lock of its own.

mutmut forks every mutant's test process from one parent. A fork copies tqdm's class-wide lock in
whatever state it is in; once it was copied held, every later mutant whose tests draw a progress
bar waited forever (all the mutants of the runner's `execute` hung that way). A fresh lock per
process cannot have been held. Ordinary runs are left as they are."""

import os
import threading

import tqdm


def pytest_configure(config):  # pylint: disable=unused-argument
  if "MUTANT_UNDER_TEST" in os.environ:
    tqdm.tqdm.set_lock(threading.RLock())


def pytest_collection_modifyitems(items):
  """Moves the tests marked `first` to the front, the order otherwise kept: pytest-xdist hands
  each worker consecutive tests in this order, so a long test collected last would run alone
  at the end while the other worker idles."""
  items.sort(key=lambda item: item.get_closest_marker("first") is None)
