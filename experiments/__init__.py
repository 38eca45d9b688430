"""Reproducible experiments (config in, results, plots and provenance out).

Empty for now: the experiment harness lands here on top of the game in `sushigo_spiel`.
"""
