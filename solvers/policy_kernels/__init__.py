"""Compiled policies the solvers share: the baselines' choices (greedy, the heuristic) and the
rollout policy kernels the compiled searches, CFR and the batched environment call.

  heuristic    the heuristic baseline's valuer, choice and policy (`solvers.baselines.HeuristicBot`
               to the last bit)
  sushi_go     Sushi Go's rollout policies by code (random, greedy, heuristic, heuristic_eps),
               `policy_action` and playouts by policy
  sushi_draft  Sushi Draft's one rollout policy (random) as `policy_action`
  checked      `SushiGoPolicies`: the kernels behind checked methods on a `CompiledSushiGo`
  compiling    their `KernelSet`, compiled on first use

The game cores they run on (`sushigo_spiel.compiled`) know nothing of them.
"""
