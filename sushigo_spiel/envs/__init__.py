"""The games as reinforcement-learning environments (the `rl` extra: `pip install -e ".[rl]"`).

  petting_zoo   both games as PettingZoo environments: `parallel_env(game, **params)` (every
                player picks at once) and `env(game, **params)` (AEC, players in turn)
  games         loading a game from keyword parameters, checked
  spaces        the observation space every environment shares

`import sushigo_spiel` does not import this package, and this package imports PettingZoo and
Gymnasium only in the modules that use them. The environments whose opponents are bots live a
layer up, in `solvers.envs`: the single-agent `SushiGo-v0` and the compiled batch
(`SushiGoBatch`, `SushiGoVectorEnv`).
"""
