"""Swanberg et al., "Beyond the Worst Case" (arXiv 2507.08158 v1): analytic, n-gram and marginals parts."""
