"""Gymnasium environments against the solvers' bots (the `rl` extra), registered on import:

  import gymnasium, solvers.envs
  env = gymnasium.make("SushiGo-v0", players=3, opponents=["heuristic", "pimc"])
  envs = gymnasium.make_vec("SushiGo-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                            opponents="heuristic")                   # the compiled batch

`SushiGo-v0` is one learner against fixed opponents (`single_agent.SushiGoEnv`), either game; its
vector entry point (`vector.make_vector_env`) is the game's compiled batch, whose opponents are
the bots with a compiled policy (`solvers.opponents`). An illegal action ends the episode with the
game's lowest return by default (`illegal_action`), so code stepping `action_space.sample()` runs.
`solvers/__init__.py` does not import this package, so the core install needs no Gymnasium.
The rest: docs/rl.md, section "The environments".
"""

from __future__ import annotations

import gymnasium

ENV_ID = "SushiGo-v0"

if ENV_ID not in gymnasium.registry:
  gymnasium.register(ENV_ID, entry_point="solvers.envs.single_agent:SushiGoEnv",
                     vector_entry_point="solvers.envs.vector:make_vector_env")
