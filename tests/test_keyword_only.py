"""ε, δ, μ (and the other privacy parameters) are keyword-only in every public function of the
bounds, accounting and mechanisms modules, so that ``gaussian_delta(epsilon=…, mu=…)`` and
``gaussian_epsilon(delta=…, mu=…)`` cannot be called with their arguments swapped.

A new public function that takes one of these names positionally fails here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import privrisk.accounting
import privrisk.bounds
import privrisk.mechanisms

PRIVACY_NAMES = {
    "epsilon",
    "delta",
    "mu",
    "eps_tilde",
    "eps_x",
    "target_epsilon",
    "target_delta",
    "noise_multiplier",
    "sigma",
}


def _modules():
    mods = []
    for pkg in (privrisk.accounting, privrisk.bounds, privrisk.mechanisms):
        mods.append(pkg)
        for info in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + "."):
            mods.append(importlib.import_module(info.name))
    return mods


def _public_functions():
    out = []
    for mod in _modules():
        for name, obj in vars(mod).items():
            if name.startswith("_") or not inspect.isfunction(obj):
                continue
            if obj.__module__ != mod.__name__:  # imported from elsewhere; checked at its home
                continue
            out.append(pytest.param(obj, id=f"{mod.__name__}.{name}"))
    return out


FUNCTIONS = _public_functions()


def test_walks_every_area():
    # guards against the walk silently finding nothing (e.g. a renamed package)
    homes = {p.values[0].__module__ for p in FUNCTIONS}
    # accounting is a package of modules since the split (one per concept)
    assert any(h.startswith("privrisk.accounting.") for h in homes)
    assert "privrisk.bounds.membership" in homes
    assert "privrisk.bounds.reconstruction" in homes
    assert "privrisk.mechanisms.gaussian" in homes
    assert len(FUNCTIONS) > 50


@pytest.mark.parametrize("func", FUNCTIONS)
def test_privacy_parameters_are_keyword_only(func):
    params = inspect.signature(func).parameters.values()
    positional = [p.name for p in params if p.name in PRIVACY_NAMES and p.kind != p.KEYWORD_ONLY]
    assert not positional, (
        f"{func.__module__}.{func.__qualname__}: {positional} must be keyword-only (after *)"
    )


def test_positional_call_is_refused():
    from privrisk import accounting

    with pytest.raises(TypeError):
        accounting.gaussian_delta(1.0, 0.5)
    # the keyword calls round-trip: ε → δ(ε; μ) → ε
    delta = accounting.gaussian_delta(epsilon=1.0, mu=0.5)
    assert accounting.gaussian_epsilon(delta=delta, mu=0.5) == pytest.approx(1.0, rel=1e-9)
