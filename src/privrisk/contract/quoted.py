"""A paper's quoted numbers as data: ``privrisk/papers/<key>/quoted.yaml``.

Each entry, keyed by the ledger's claim id, holds what the paper says (figure, claim, paper value,
tolerance, where in the paper, and any fixed note), validated by ``quoted.schema.yaml`` when the
paper's file is first read (once per process). The paper's code supplies only what it computes::

    LEDGER.quoted("ours_eps1", ours=bound(1))                  # privrisk.contract.claims.Ledger
    LEDGER.quoted("sex_attack", ours=v, se=s, data=src)         # data listed under computed

An entry quoted at one setting of its figure (``setting``: config key -> value, say
``claim_clip: 100``) is a row only when the figure runs at that setting: the call passes the
figure's ``params`` and gets None elsewhere, so a changed config never prints the paper's words
about C = 100 beside a number computed at another C.

A field the code computes (a tolerance from the config, a note with numbers) is named under the
entry's ``computed`` (field -> how, for the reader) and given by the call; any other field comes
from the file alone, so one fact has one place. Every problem is a :class:`QuotedError` of one
line naming the file and the claim id. :func:`table` renders the entries for the paper's notes.
"""

from __future__ import annotations

import functools
import math
from importlib import resources
from typing import Any

import yaml

from ..core import discovery

FILE = "quoted.yaml"
SCHEMA = "quoted.schema.yaml"
#: the fields an entry may leave to the code (its ``computed``) and the keyword the call gives
FIELDS = ("figure", "paper_value", "tolerance", "data", "note", "note_if_differs", "standin_note")
#: fields every row needs: from the file or, when computed, from the call
REQUIRED = ("figure", "paper_value", "tolerance")


class QuotedError(ValueError):
    """A quoted.yaml that is not valid, or a call that does not fit its entry (one line)."""


def shown(key: str) -> str:
    """The file's name in messages: where it lives in the source tree and in the wheel."""
    return f"privrisk/papers/{key}/{FILE}"


class _DuplicateKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """YAML's safe loader that refuses a key given twice in one mapping (PyYAML keeps the last)."""


def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        k = loader.construct_object(key_node, deep=deep)
        if k in seen:
            raise QuotedError(f"duplicate claim id {k!r} (line {key_node.start_mark.line + 1})")
        seen.add(k)
    return loader.construct_mapping(node, deep=deep)


_DuplicateKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


@functools.cache
def _validator():
    import jsonschema  # here: a figure job that quotes nothing never loads it

    text = (resources.files(__package__) / SCHEMA).read_text(encoding="utf-8")
    return jsonschema.Draft202012Validator(yaml.safe_load(text))


def _where(error) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "<top level>"


def parse(text: str, key: str) -> dict[str, dict[str, Any]]:
    """The entries of ``key``'s quoted.yaml given as ``text``, validated (:class:`QuotedError`)."""
    name = shown(key)
    try:
        data = yaml.load(text, Loader=_DuplicateKeyLoader)  # noqa: S506 (a safe loader)
    except QuotedError as err:
        raise QuotedError(f"{name}: {err}") from None
    except yaml.YAMLError as err:
        raise QuotedError(f"{name}: not YAML ({str(err).splitlines()[0]})") from None
    if data is None:
        data = {}
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(data))
    if error is not None:
        raise QuotedError(f"{name}: {_where(error)}: {error.message}")
    for cid, entry in data.items():
        computed = entry.get("computed", {})
        both = sorted(set(computed) & set(entry))
        if both:
            raise QuotedError(f"{name}: {cid}: {', '.join(both)} both given and computed")
        missing = [f for f in REQUIRED if f not in entry and f not in computed]
        if missing:
            raise QuotedError(
                f"{name}: {cid}: no {', '.join(missing)} (give it or name it under computed)"
            )
        for f in ("paper_value", "tolerance"):
            if isinstance(entry.get(f), float) and math.isnan(entry[f]):
                raise QuotedError(f"{name}: {cid}.{f}: NaN is not a number a paper quotes")
    return data


@functools.cache
def load(key: str) -> dict[str, dict[str, Any]]:
    """``key``'s quoted numbers (claim id -> entry), read and validated once per process."""
    try:
        path = discovery.files(key) / FILE
    except ModuleNotFoundError:
        raise QuotedError(f"{shown(key)}: no paper package {key!r}") from None
    if not path.is_file():
        raise QuotedError(f"{shown(key)}: no such file (the paper's quoted numbers)")
    return parse(path.read_text(encoding="utf-8"), key)


def _entry(key: str, claim_id: str) -> dict[str, Any]:
    entries = load(key)
    if claim_id not in entries:
        raise QuotedError(f"{shown(key)}: no entry {claim_id!r} (the code quotes it)")
    return entries[claim_id]


def at_setting(key: str, claim_id: str, params: dict[str, Any] | None) -> bool:
    """Whether a figure run with ``params`` is at the setting ``claim_id`` is quoted at (always,
    for an entry without ``setting``; ``params`` must then be None, and must be given otherwise)."""
    setting = _entry(key, claim_id).get("setting")
    if setting is None:
        if params is not None:
            raise QuotedError(
                f"{shown(key)}: {claim_id}: the code passes params, but the entry has no setting"
            )
        return True
    if params is None:
        raise QuotedError(
            f"{shown(key)}: {claim_id}: quoted at a setting ({', '.join(setting)}): the code must "
            "pass the figure's params"
        )
    missing = sorted(set(setting) - set(params))
    if missing:
        raise QuotedError(
            f"{shown(key)}: {claim_id}: setting {', '.join(missing)} not in the figure's params"
        )
    return all(params[k] == v for k, v in setting.items())


def fields(key: str, claim_id: str, given: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :meth:`privrisk.contract.claims.Ledger.numeric` for ``claim_id``:
    the entry's fixed fields and the computed ones ``given`` by the code (exactly those the entry
    names under ``computed``)."""
    entry = _entry(key, claim_id)
    want = set(entry.get("computed", {}))
    extra, missing = sorted(set(given) - want), sorted(want - set(given))
    if extra:
        raise QuotedError(
            f"{shown(key)}: {claim_id}: the code gives {', '.join(extra)}, which the entry fixes "
            "or does not list under computed"
        )
    if missing:
        raise QuotedError(
            f"{shown(key)}: {claim_id}: computed {', '.join(missing)} not given by the code"
        )
    out = {k: v for k, v in entry.items() if k not in ("source", "computed", "setting")}
    return {"claim_id": claim_id, **out, **given}


# --- the table in the paper's notes (privrisk docs --write) -------------------------------------

BEGIN = "<!-- quoted:begin -->"
END = "<!-- quoted:end -->"


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(key: str, entries: dict[str, dict[str, Any]] | None = None) -> str:
    """The Markdown table of ``key``'s quoted numbers (computed fields say how): of ``entries``
    (:func:`parse`'s result) when given, for a paper not yet where :func:`load` finds it (``privrisk
    new-paper`` writes the table before the package is in place), else of :func:`load`'s."""
    rows = [
        "## The numbers the paper quotes",
        "",
        f"Generated from `{FILE}` by `privrisk docs --write`; the code supplies only our value "
        "and the fields marked *computed*.",
        "",
        "| claim id | figure | claim | paper value | tolerance | where in the paper |",
        "|---|---|---|---|---|---|",
    ]
    for cid, e in (load(key) if entries is None else entries).items():
        computed = e.get("computed", {})

        def value(f: str, e=e, computed=computed) -> str:
            return f"*computed*: {computed[f]}" if f in computed else str(e[f])

        src = e["source"]
        where = src["where"] + (f", p. {src['page']}" if isinstance(src["page"], int) else "")
        if "spec" in src:
            where += f" (spec {src['spec']})"
        derived = " (derived, not quoted)" if e.get("derived") else ""
        if "setting" in e:
            derived += " (a row only at " + ", ".join(f"{k} = {v}" for k, v in e["setting"].items())
            derived += ")"
        rows.append(
            "| "
            + " | ".join(
                _cell(c)
                for c in (
                    f"`{cid}`",
                    value("figure"),
                    e["claim"] + derived,
                    value("paper_value"),
                    value("tolerance"),
                    where,
                )
            )
            + " |"
        )
    return "\n".join(rows)


def with_table(key: str, text: str, entries: dict[str, dict[str, Any]] | None = None) -> str:
    """The notes ``text`` with the quoted-numbers block between :data:`BEGIN` and :data:`END`
    made current (a ValueError naming the notes when the markers are not there once each);
    ``entries`` as for :func:`table`."""
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(
            f"privrisk/papers/{key}/notes.md: needs exactly one {BEGIN} ... {END} block"
        )
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{table(key, entries)}\n{END}{tail}"


def papers() -> tuple[str, ...]:
    """The papers that have a quoted.yaml."""
    return tuple(k for k in discovery.paper_keys() if (discovery.files(k) / FILE).is_file())
