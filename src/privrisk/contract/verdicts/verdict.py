"""The :class:`Verdict` every rule returns (ok, fails or uninformative, with its numbers and plan)
and :func:`all_of`, several parts of one statement."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .keep import Rerun, joint
from .plans import Plan, combine, never


class Verdict:
    """ok (``holds`` True), fails (False) or uninformative (None), with the numbers as ``note``
    and, when uninformative, the :class:`Plan` that would decide it.

    The plan may be given as a function that makes it: it is computed when first asked for (a
    simulation that calls a rule thousands of times reads ``holds`` only), and ``suffix(plan)``,
    when given, is appended to the note then.

    ``rerun`` (:class:`~privrisk.contract.verdicts.keep.Rerun`, or a function that makes it, also
    computed when first asked for): the chances that an independent rerun at the same scale gives
    each status; :attr:`keep` is the chance of this verdict's own status. None without an
    estimate to take them from (a gate, a verdict made by hand, an exact check)."""

    __slots__ = ("_note", "_plan", "_rerun", "_suffix", "holds")

    def __init__(
        self,
        holds: bool | None,
        note: str,
        plan: Plan | Callable[[], Plan | None] | None = None,
        *,
        suffix: Callable[[Plan | None], str] | None = None,
        rerun: Rerun | Callable[[], Rerun | None] | None = None,
    ) -> None:
        self.holds = holds
        self._note = note
        self._plan = plan
        self._suffix = suffix
        self._rerun = rerun

    @property
    def rerun(self) -> Rerun | None:
        if self._rerun is not None and not isinstance(self._rerun, Rerun):
            self._rerun = self._rerun()
        return self._rerun

    @property
    def keep(self) -> float | None:
        """The keep-probability: the chance that an independent rerun at the same scale gives
        this verdict's status (:mod:`privrisk.contract.verdicts.keep`); None when unknown."""
        return None if self.rerun is None else self.rerun.of(self.holds)

    @property
    def plan(self) -> Plan | None:
        if self._plan is not None and not isinstance(self._plan, Plan):
            self._plan = self._plan()
        return self._plan

    @property
    def note(self) -> str:
        return self._note + (self._suffix(self.plan) if self._suffix is not None else "")

    def __repr__(self) -> str:
        return f"Verdict(holds={self.holds!r}, note={self.note!r}, plan={self.plan!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.holds, self.note, self.plan) == (other.holds, other.note, other.plan)

    __hash__ = None

    @property
    def status(self) -> str:
        return {True: "ok", False: "fails", None: "uninformative"}[self.holds]

    @property
    def to_decide(self) -> str:
        """The runs / draws / samples that would decide an uninformative verdict ('' if decided or
        analytic)."""
        if self.holds is not None:
            return ""
        if self.plan is None:  # made by hand without an estimate (e.g. "no finite ε in this run")
            return "never by more data (no estimate to plan from)"
        return self.plan.text()

    def kwargs(self) -> dict:
        """Keyword arguments ``holds``, ``note``, ``to_decide`` and ``keep`` for
        :meth:`privrisk.contract.claims.Ledger.qualitative`."""
        return {
            "holds": self.holds,
            "note": self.note,
            "to_decide": self.to_decide,
            "keep": self.keep,
        }

    def gated(self, *reasons: str, unit: str = "runs") -> Verdict:
        """Uninformative when any reason is given (a precondition failed: the model does not leak,
        the control shows nothing, the runs contradict each other), keeping the numbers;
        unchanged when all reasons are empty. A failed gate is a property of the observed
        experiment (its mean AUC, its control): at the observed effect more of the same does not
        make it pass, so the plan is never, naming the gate."""
        why = [r for r in reasons if r]
        if not why:
            return self
        gate = "; ".join(why)

        def plan() -> Plan:
            return never(self.plan.unit if self.plan is not None else unit, f"gated: {gate}")

        return Verdict(None, "uninformative: " + gate + f" [{self.note}]", plan)


def _join_why(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def all_of(verdicts: Mapping[str, Verdict] | Sequence[Verdict]) -> Verdict:
    """Several parts of one statement: fails if a part fails, holds if every part holds."""
    items = list(verdicts.items()) if isinstance(verdicts, Mapping) else list(enumerate(verdicts))
    if not items:
        raise ValueError("all_of needs at least one verdict")
    holds = [v.holds for _, v in items]
    overall = False if False in holds else (True if all(h is True for h in holds) else None)
    note = "; ".join(
        (f"{k}: " if isinstance(k, str) else "") + f"{v.status} ({v.note})" for k, v in items
    )

    def rerun() -> Rerun | None:
        return joint(v.rerun for _, v in items)

    if overall is not None:
        return Verdict(overall, note, rerun=rerun)
    return Verdict(
        overall,
        note,
        lambda: combine([v.plan for _, v in items if v.holds is None]),
        rerun=rerun,
    )
