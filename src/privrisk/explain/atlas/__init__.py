"""The risk atlas: every published DP deployment's parameters as a risk card.

``deployments.yaml`` holds the facts as published (transcribed from OpenDP's DP Deployments
Registry and the papers it cites; :mod:`.schema` validates it); :mod:`.adapter` is the one place
that turns a parameter set into a guarantee and its card (``privrisk.explain``); :mod:`.compose`
composes a per-period budget over a horizon; :mod:`.conversions` and :mod:`.lint` say which
conversion reproduces a publisher's second number and what is inconsistent; :mod:`.cards` makes
each entry's headline numbers and :func:`card_for` one entry's full card; :mod:`.last_iterate` is
the last-iterate heuristic for DP-SGD (Steinke et al. 2025). ``privrisk atlas`` prints it all.
"""

from __future__ import annotations

from .schema import Atlas, AtlasError, Entry, Parameters, load

__all__ = ["Atlas", "AtlasError", "Entry", "Parameters", "load", "card_for"]


def card_for(key: str, **overrides):
    """The full risk card of one deployment (``KEY`` or ``KEY/LABEL`` for one parameter set);
    see :func:`privrisk.explain.atlas.cards.card_for`."""
    from .cards import card_for as _card_for

    return _card_for(key, **overrides)
