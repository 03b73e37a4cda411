"""Priors over secrets (canaries, passwords, names) for the reconstruction bounds of Swanberg et al.

- :mod:`.canary`: the uniform 9-digit canary and the Zipf "numerical password" prior, computed
  analytically over 10^9 ranks (no 10^9-element arrays).
- :mod:`.pii`: the PII (names) prior: per masked sequence, the normalised score of each candidate
  name; real path (Enron + GPT-2 when present) and an offline stand-in (synthetic email-like
  sequences with real US census name frequencies).
- :func:`scaled_prior`: the 10-value scaled-down priors that the n-gram experiment needs
  (``scaled_prior("password")`` etc.; numpy arrays summing to 1, most probable value first;
  the scaling rules are in :mod:`.scaled` and :data:`SCALING_RULES`); :func:`tempered` sharpens a
  prior to a given top mass.
- :func:`prior_summary`: min / 10th percentile / median / max canary priors of the full priors.
"""

from .canary import password_summary, uniform_summary, zipf_prior, zipf_quantile_prior  # noqa: F401
from .scaled import SCALING_RULES, scaled_prior, tempered  # noqa: F401
from .summary import prior_summary  # noqa: F401
