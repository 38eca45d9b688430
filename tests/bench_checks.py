"""Checks of the benchmarks' output: a figure and its verdict must agree, not just the layout.

A target line reads `label  value  >= target  PASS` (or `<=`, or `BELOW`): the value must be finite
and positive, and the verdict must be PASS exactly when the comparison holds.
"""

from __future__ import annotations

import math
import re

VERDICT_LINE = re.compile(r"^(?P<label>\S.*?) +(?P<value>[\d,]+(?:\.\d+)?) +(?P<op>>=|<=) +"
                          r"(?P<target>[\d.]+) +(?P<verdict>PASS|BELOW)$", re.MULTILINE)


def check_verdicts(out: str) -> list[str]:
  """Every target line shows a finite, positive figure, and its verdict follows from the figure
  and the target (PASS exactly when the comparison holds); returns the labels seen."""
  labels = []
  for line in VERDICT_LINE.finditer(out):
    value, target = float(line["value"].replace(",", "")), float(line["target"])
    assert math.isfinite(value) and value > 0, line.group(0)
    holds = value >= target if line["op"] == ">=" else value <= target
    decimals = len(line["value"].partition(".")[2])
    if abs(value - target) > 0.5 * 10 ** -decimals:  # else rounding for print may hide the side
      assert line["verdict"] == ("PASS" if holds else "BELOW"), line.group(0)
    labels.append(line["label"])
  return labels


def check_figures(figures) -> None:
  """Every number in the benchmark's JSON is finite, and every rate, time or ratio positive."""
  if isinstance(figures, dict):
    for key, value in figures.items():
      if isinstance(value, (int, float)) and not isinstance(value, bool) and \
          re.search(r"per_s|seconds|ratio|speedup|_s$", key):
        assert math.isfinite(value) and value > 0, (key, value)
      check_figures(value)
  elif isinstance(figures, list):
    for value in figures:
      check_figures(value)
  elif isinstance(figures, float):
    assert math.isfinite(figures)
