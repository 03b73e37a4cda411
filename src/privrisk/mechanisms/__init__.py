"""Privacy mechanisms (exponential, Gaussian, noisy marginals), as small functions/objects."""
