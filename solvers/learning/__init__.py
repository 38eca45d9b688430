"""Deep reinforcement learning on the batched core: masked PPO (`ppo`, in JAX and optax, the
`learn` extra) and its agents' network, files and bot (`network`, numpy only), and the learned
best response built on the same trainer (`best_response`)."""
