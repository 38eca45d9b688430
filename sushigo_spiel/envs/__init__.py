"""The games as reinforcement-learning environments (the `rl` extra: `pip install -e ".[rl]"`).

  petting_zoo   both games as PettingZoo environments: `parallel_env(game, **params)` (every
                player picks at once) and `env(game, **params)` (AEC, players in turn)
  batched       `SushiGoBatch`: N games of Sushi Go stepped together in compiled kernels, one
                learner against compiled opponents, numpy arrays in and out, auto-reset
  vector        `SushiGoVectorEnv`: the batch behind `gymnasium.vector.VectorEnv`
  games         loading a game from keyword parameters, checked

`import sushigo_spiel` does not import this package, and this package imports PettingZoo and
Gymnasium only in the modules that use them. The single-agent Gymnasium environment against the
solvers' bots (`SushiGo-v0`) lives a layer up, in `solvers.envs`, since its opponents are bots.
"""
