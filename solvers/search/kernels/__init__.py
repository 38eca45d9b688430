"""Compiled search: Information-Set MCTS and PIMC's SM-MCTS world solver as numba kernels, for
every game whose compiled core provides the kernel interface (`compiled.interface`).

  game       a game's core bound for the kernels (first-class functions) and the registry of games
  bandits    UCB1 (with progressive bias), Exp3, regret matching over rows of statistics
  tree       preallocated nodes, bandit rows and a hash table of children
  playing    policy actions (epsilon mixes) and playouts
  ismcts     SO- and MO-ISMCTS iterations
  smmcts     simultaneous-move MCTS on determinized worlds (PIMC)
  compiling  compiling on first use
  searches   the Python side: `ISMCTSSearch`, `WorldSampler`, batches under a wall-time budget

The bots (`solvers.search.ismcts`, `solvers.search.pimc`) use these; the references they are
tested against are `solvers.search.ismcts_engines.PythonISMCTS` and
`solvers.search.world_solvers.SMMCTS`.
"""
