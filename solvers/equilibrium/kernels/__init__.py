"""Monte Carlo CFR on Sushi Go's compiled core, over action-centred card features.

  features          the abstraction: each legal action's key from what its card's scoring depends on
  mccfr             the regret tables and the sampling walks (external sampling, probing, outcome
                    sampling)
  subgame           depth-limited subgame solving over sampled worlds, leaves valued by
                    continuations
  named_tuples      the kernels' NamedTuple arguments, typed once per kind rather than at every call
  blueprint_policy  a blueprint as a policy kernel of the compiled searches
  compiling         compiling them on first use
"""
