"""A fixture paper for the tests: Theorem 1 of Thudi et al. at one prior, as a new paper would add
it. Nothing outside this folder names it."""
