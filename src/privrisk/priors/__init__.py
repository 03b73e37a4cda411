"""Priors over secrets (canaries, passwords, names) for reconstruction bounds."""
