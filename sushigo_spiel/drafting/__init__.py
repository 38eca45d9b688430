"""What the drafting games share: the declared `Dynamics` every game's rules provide, the pyspiel
adapter over them, sampling, hand ranking, parameter parsing and the utility modes.

Nothing here knows a card: each game (`sushigo_spiel.sushi_go`, `sushigo_spiel.sushi_draft`) keeps
its cards, scoring, rules and knowledge in a subpackage of its own and declares them as one
`Dynamics` value, which the adapter, the observers, the solvers and the conformance check
(`drafting.conformance`) all go through.
"""
