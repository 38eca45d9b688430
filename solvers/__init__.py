"""Solvers for Sushi Go (Information-Set MCTS, CFR on abstractions, PIMC, baselines).

Empty for now: the game in `sushigo_spiel` comes first; each solver lands here as a `pyspiel.Bot`.
"""
