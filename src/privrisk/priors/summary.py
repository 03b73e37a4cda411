"""Summaries of the three full (un-scaled) secret priors of Swanberg et al. §5.1.

:func:`prior_summary` returns the canary priors the paper plots in Figure 2: the least probable
(``min``), 10th percentile (``p10``), ``median`` and most probable (``max``) canary prior, with a
``description`` of the law. For PII the paper uses the 10th percentile instead of the minimum
(footnote 5: the minimum is ≈ 0).
"""

from __future__ import annotations

from .canary import password_summary, uniform_summary, zipf_quantile_prior


def prior_summary(name: str, **options) -> dict:
    """Canary-prior summary of the full prior ``uniform``, ``password`` or ``pii``.

    Options: ``digits`` (uniform, default 9); ``s``, ``support`` (password Zipf law, defaults 1.1
    and 1e9); for ``pii`` the keyword arguments of :func:`privrisk.priors.pii.build` (``source``,
    ``path``, ``n_sequences``, ``seed``, ``scorer``).
    Raises:
        ValueError: unknown prior name.
    """
    if name == "uniform":
        out = dict(uniform_summary(options.get("digits", 9)))
        out["p10"] = out["min"]
        out["description"] = f"uniform over 10^{options.get('digits', 9)} canaries"
        return out
    if name == "password":
        s, support = options.get("s", 1.1), options.get("support", 1e9)
        out = dict(password_summary(s=s, support=support))
        out["p10"] = float(zipf_quantile_prior(0.1, s=s, support=support))
        out["description"] = f"Zipf(s = {s}) over {support:.3g} ranks (analytic)"
        return out
    if name == "pii":
        from .pii import build

        prior = build(**options)
        out = prior.summary()
        out["description"] = f"PII names, source {prior.source}, scorer {prior.scorer}"
        return out
    raise ValueError(f"unknown prior {name!r}; expected uniform, password or pii")
