"""Sushi Go's rules declared as the `Dynamics` the adapter, the observers and the solvers call."""

from sushigo_spiel.drafting.dynamics import Dynamics
from sushigo_spiel.sushi_go import knowledge, rules

DYNAMICS = Dynamics(
    short_name="python_sushi_go",
    rules_from_params=rules.Rules.from_params,
    initial_table=rules.initial_table,
    legal_actions=rules.legal_actions,
    chance_outcomes=rules.chance_outcomes,
    apply_chance=rules.apply_chance,
    sample_chance=rules.sample_chance,
    skip_chance=rules.skip_chance,
    play=rules.play,
    returns=rules.returns,
    scores=rules.scores,
    knowledge=knowledge.knowledge,
    determinize=knowledge.determinize,
    observation=knowledge.observation,
    round_decisions=knowledge.round_decisions,
    infoset_key=knowledge.infoset_key,
    deal_weight=knowledge.deal_weight,
)
