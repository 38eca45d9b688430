"""Reproducible experiments on top of the games (`sushigo_spiel`) and the solvers (`solvers`).

A config (TOML) goes in; a run folder with results, a report and provenance comes out:

  config.py       declaring a config table once: its check, defaults, reference; `players`
  run_folder.py   the run folder's files, durable appends, provenance
  execution.py    running the units of any experiment: resumable, in parallel, replayable
  runner.py       a config or run folder to its kind: `run`, `reproduce`, `report`
  tournament/     bots playing games against each other: config, games, report
  solving/        solving experiments, one module per kind behind `solving.KINDS`
  stats.py        the statistics of tournament records
  cli.py          the `sushigo` command; commands/ holds what each command does
  bench/          speed benchmarks of the games, the searchers and the equilibrium solvers
"""
