"""The neighbouring relation: which datasets are neighbours (modelled on dp_accounting's
``NeighboringRelation``), one spelling for training, config and the risk card."""

from __future__ import annotations

import enum


class Adjacency(enum.StrEnum):
    """Which datasets are neighbours (dp_accounting's ``NeighboringRelation`` is the model).

    ``ADD_REMOVE``: one record added or removed (opacus and dp-accounting report DP-SGD's ε for
    it); ``REPLACE_ONE``: one record's value replaced by another (Swanberg et al., Pankova & Laud;
    a clipped gradient can move by 2C). The value is the spelling the card prints; :meth:`parse`
    also takes the config files' ``replace_one`` / ``add_remove`` and a few aliases.
    """

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"

    @classmethod
    def parse(cls, value) -> Adjacency:
        """The adjacency named by ``value`` (an Adjacency or a string); ValueError otherwise."""
        if isinstance(value, cls):
            return value
        v = str(value).strip().lower().replace("_", "-").replace("/", "-").replace(" ", "-")
        v = _ADJACENCY_ALIASES.get(v, v)
        try:
            return cls(v)
        except ValueError:
            raise ValueError(
                f"adjacency must be one of {', '.join(a.value for a in cls)}, got {value!r}"
            ) from None

    @property
    def config_name(self) -> str:
        """The spelling of the config files (``replace_one`` / ``add_remove``)."""
        return self.value.replace("-", "_")

    def neighboring_relation(self):
        """dp_accounting's NeighboringRelation for this adjacency."""
        import dp_accounting

        rel = dp_accounting.NeighboringRelation
        return rel.ADD_OR_REMOVE_ONE if self is Adjacency.ADD_REMOVE else rel.REPLACE_ONE


_ADJACENCY_ALIASES = {
    "replace": "replace-one",
    "substitute": "replace-one",
    "add-or-remove": "add-remove",
    "add-or-remove-one": "add-remove",
    "add-remove-one": "add-remove",
}
