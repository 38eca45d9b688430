"""Each policy's lower bound against its responders' compute, across runs.

A run of kind "approximate_exploitability" plots its own competitors' bounds (`plots/bound_<game>.png`),
but the responders of one policy are often spread over several runs (LBR in one, the learned best
response in another, ISMCTS in a third). This reads the given run folders, gathers every bound by
(game, policy: the bot and its parameters), and draws one plot per policy: bound with its 95% interval against the responder's
CPU seconds per paired game, one line per kind of responder (ismcts, lbr, learned). Beside the
plots, `bound_curves.md` lists the points with the run each comes from (runs that recorded no CPU
time, older than that record, are listed and not plotted).

  python -m experiments.solving.bound_curves experiments/results/exploitability-full-* \\
      --out experiments/results/bound-curves
"""

from __future__ import annotations

import argparse
import pathlib

from experiments import run_folder
from experiments import solving
from experiments.solving import approximate as approximate_kind
from experiments.solving import figures

SUMMARY = "bound_curves.md"
PLOTS = "bound_curve"


def gathered(run_dirs: list[pathlib.Path]) -> list[dict]:
  """Every bound of the runs (`approximate.bounds` entries), each with its run folder's name; a
  ValueError naming a folder that is not an approximate-exploitability run."""
  entries = []
  for run_dir in run_dirs:
    config = solving.load(run_dir / run_folder.CONFIG_FILE)
    if config.kind is not approximate_kind.KIND:
      raise ValueError(f"{run_dir} is a run of kind {config.kind.name!r}; allowed: runs of kind"
                       f" {approximate_kind.KIND.name!r}")
    results = list(solving.SOLVING.read(config, run_dir).values())
    entries += [{**entry, "run": run_dir.name,
                 "policy": policy_label(config.competitor(entry["competitor"]))}
                for entry in approximate_kind.bounds(config, results)]
  return entries


def policy_label(competitor) -> str:
  """A competitor as its bot and parameters (a file by its name): runs may give one name to
  different budgets, and one policy different names."""
  params = ", ".join(f"{key}={pathlib.Path(value).name if key == 'path' else value}"
                     for key, value in sorted(competitor.params.items()))
  return f"{competitor.bot} ({params})" if params else competitor.bot


def write(entries: list[dict], out: pathlib.Path) -> str:
  """One plot per (game, policy) into `out` and the Markdown listing them; returns the Markdown."""
  out.mkdir(parents=True, exist_ok=True)
  lines = ["# Lower bounds against the responders' compute, by policy", ""]
  for key in dict.fromkeys((e["game"], e["policy"]) for e in entries):
    mine = sorted((e for e in entries if (e["game"], e["policy"]) == key),
                  key=lambda e: (e["responder_kind"], e["cpu_seconds_per_game"] or 0))
    lines += [f"## {key[1]} on {key[0]}", "",
              "| responder | lower bound [95% CI] | paired games | CPU s / game | run |",
              "|---|---|---:|---:|---|"]
    lines += [f"| {e['responder']} | {approximate_kind.interval(e['bound'])} | {sum(e['games'])} |"
              f" {figures.number(e['cpu_seconds_per_game'], 3)} | {e['run']} |" for e in mine]
    if any(e["cpu_seconds_per_game"] for e in mine):
      path = out / figures.plot_file(PLOTS, f"{key[1]}_{key[0]}")
      approximate_kind.plot_bounds(path, f"{key[1]}: lower bound against compute\n{key[0]}",
                                   mine, "responder_kind")
      lines += ["", f"![{key[1]}]({path.name})", ""]
    else:
      lines += ["", "(no CPU time recorded: not plotted)", ""]
  text = "\n".join(lines)
  run_folder.write_atomically(out / SUMMARY, text)
  return text


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
  parser.add_argument("runs", nargs="+", type=pathlib.Path, help="run folders of kind"
                      " approximate_exploitability")
  parser.add_argument("--out", required=True, type=pathlib.Path, help="the folder of the plots")
  args = parser.parse_args(argv)
  try:
    print(write(gathered(args.runs), args.out))
  except ValueError as error:
    parser.error(str(error))
  return 0


if __name__ == "__main__":
  raise SystemExit(main())
