"""The README's programs print what the README shows.

Each ```python block of README.md that is followed by a paragraph beginning "Output" and a plain
``` block runs here, and what it prints must equal that block, line for line (the programs seed
every draw, so the output is fixed).
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
EXAMPLE = re.compile(
    r"```python\n(?P<code>.*?)```\n\nOutput[^\n]*\n(?:[^\n]+\n)*?\n```\n(?P<out>.*?)```", re.S)


def examples(text: str) -> list[tuple[str, str]]:
  return [(m["code"], m["out"]) for m in EXAMPLE.finditer(text)]


def test_the_readme_has_a_program_with_its_output():
  assert len(examples(README.read_text(encoding="utf-8"))) >= 1


@pytest.mark.parametrize("code, shown", examples(README.read_text(encoding="utf-8")))
def test_a_readme_program_prints_what_the_readme_shows(code, shown):
  printed = io.StringIO()
  with contextlib.redirect_stdout(printed):
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})  # pylint: disable=exec-used
  assert printed.getvalue() == shown


def test_a_changed_output_is_caught():
  code, shown = examples(README.read_text(encoding="utf-8"))[0]
  planted = shown.replace("[", "[[", 1)
  text = f"```python\n{code}```\n\nOutput:\n\n```\n{planted}```\n"
  assert planted != shown and examples(text)[0][1] == planted
