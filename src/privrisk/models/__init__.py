"""Models: GANs, the n-gram language model, Bayesian networks."""
