"""One set of decision rules for every qualitative claim of every paper (design.md §4, "Verdicts").

A paper states "A is larger than B", "at least the prior", "comparable within 0.05", "increases
with ε", "below the bound". Each rule here decides such a statement on an :class:`Estimate` *with
its uncertainty* and returns a :class:`Verdict`: ``holds`` is True (``qualitative-ok``), False
(``qualitative-fails``) or None (``uninformative``: the data cannot decide), with the numbers for
the ledger note. Papers' ``claims`` modules are thin users of these rules; none re-implements one.

Conventions (one for all papers):

* An estimate's uncertainty is a standard error (the interval is value ± z·se) or an explicit
  interval ``[lo, hi]`` at the base level (bootstrap, McDiarmid, Clopper–Pearson). An analytic
  number has ``se=0``: every rule then decides it exactly. A mean over a few independent runs
  (:meth:`Estimate.across_runs`: training runs of a model) or over draws (:meth:`Estimate.from_draws`,
  :meth:`Estimate.paired`) carries its degrees of freedom ``df``,
  and its interval uses Student's t at the same level as ±z (with 3 runs, ±2 s.e. of a normal
  would cover about 82 %, not 95 %).
* ``z = 2`` by default (two standard errors, ≈ 95.4 % two-sided, α ≈ 0.046), the level of the
  error bars the figures draw and of the ledger's numeric tolerance (``tolerance + 2·se``).
* **Paired where a paired baseline exists**: when A and B are measured on the same draws, pass the
  estimate of the per-draw difference (:meth:`Estimate.paired`); its s.e. is the paired one.
  :meth:`Estimate.minus` is the unpaired difference (independent estimates).
* **Multiplicity**: a statement judged at k points ("A ≥ B at every ε") holds only if it holds at
  every point, each at the base level (an intersection–union test needs no correction); it fails
  if it fails at some point, each point then judged at the Bonferroni level z_k = Φ⁻¹(1 − α/2k)
  (a union of k tests). In between it is uninformative.
* **Symmetric margins**: a rule with a margin uses the same margin on the ok and the fails side:
  "A ≥ B − m" holds when the interval of A − B lies above −m and fails when it lies below −m.

**Robust decisions** (a decided status must survive another seed, thread count and CPU):

* Analytic numbers (``se = 0`` from a closed form, :meth:`Estimate.exact`) are decided exactly.
* An *experimental* estimate (any with a positive s.e. or an interval) decides only when its
  interval at the **robust level** ``ROBUST · z`` (±3 s.e. at the default z = 2, two-sided
  α ≈ 0.0027; Student's t at that level when it has ``df``) clears the threshold or margin. The
  note still shows the interval at the reported ±z. The reason: at ±z a decision on a t statistic
  just past z flips under a reseeded or re-kernelled rerun about half the time; at ±1.5 z the
  rerun's estimate must move by a whole reported half-width before the decision can change, and
  an ok ↔ fails flip needs a move of more than twice that.
* **Runs are pooled, not counted.** A model trained k times is judged on its across-run t
  interval (:meth:`Estimate.across_runs`): one outlying run widens it. An earlier rule also
  asked 90 % of the runs to reach the decision each on its own; that is a count of a binomial,
  and it flipped between seeds whenever about one run in ten fell past the margin (xu2022 Fig. 3's
  CIFAR-10 accuracy: 9 of 10 runs at seed 0, 8 of 10 at seed 1, the pooled interval inside the
  margin both times). Leaving one run out with the pooled s.e. withheld decisions every run
  supported (nine runs at 0.3 and one at 1.15 "not above 0"). Where two runs decide *opposite*
  ways each at the robust level, a paper's claims module may withhold the decision (xu2022 does).
* **Ties are decided as their near-ties are**: an empirical estimate (draws, runs) whose sample
  variance is 0 (every draw made the same guess) is not an exact number. Where the outcome's
  ``step`` is known (1 for a count or a success) and one unit's outcome is bounded (``bounds``:
  0…N records, a success 0/1, a paired difference of them), n ties bound the share of units that
  could differ by q = 1 − (α/2)^(1/n) (:func:`tie_share`), and so the mean to
  [v − q(v − a), v + q(b − v)]; the interval is also no wider than that of the near-tie one step
  away, so **a perfect tie never decides less than a near-tie**. Draws in clusters count clusters
  (n is the number of worlds). Where the step is unknown (a continuous outcome, a summary that
  does not say it counts) near-ties come at every distance and their t intervals shrink onto the
  tie: the tie is their limit, the point with open ends, and **decides what the near-ties on
  either side of it decide** (nothing where it sits on the rule's boundary), with or without a
  stated range (:mod:`.ties`).
* **Saturated points** (every method at the top of the scale in every draw: nothing can be told
  apart there) are left out of "at every point" statements (``saturated=``), and the note says
  which.
* **A theorem's floor** (``floor=``, :class:`Floor`): where a theorem puts the true difference at
  or above a value (a query against a function of itself, the optimal adversary against one it
  ranges over), an estimate robustly below it shows the estimator's shortfall: uninformative,
  never a failure, and never planned towards.
* **Worlds**: draws spread over several stand-in worlds are judged with the world as a random
  effect (:meth:`Estimate.clustered`: the t interval of the world means).

**Runs to decide** (a power planner; a plan is a promise): every uninformative verdict on an
experimental estimate carries a :class:`Plan`. It is finite only if the same rule, with that many
runs / draws / samples (the estimate's ``unit``) and the observed effect and per-unit spread as the
truth, decides with probability ``POWER`` (80 %): a point leaning to fails by failing (the cheapest
such point, at the Bonferroni level), otherwise every point by holding (the joint chance, the
product over the points, at the robust level), from noncentral t (or normal) one-sided chances,
and the exact tie bound for bounded ties. Otherwise it is "never (why)": the estimate sits on the
boundary, leans below a theorem's floor, a gate failed (:meth:`Verdict.gated`: a property of the
observed experiment that more of it does not change), or the chance to decide peaks below 80 %.
It is in the note (``to decide: …``) and in :attr:`Verdict.to_decide` (the ledger's
``to_decide`` column).

Every rule has a test where it says ok, one where it fails and one where it cannot decide
(``tests/test_verdicts.py``), and simulation tests that its error rates stay within α and that
the planned n decides in about the intended fraction of repeated experiments.
"""

from .estimates import Estimate, Floor
from .exact import (
    exact_above,
    exact_all,
    exact_below,
    exact_close,
    exact_monotone,
    exact_somewhere_below,
    undecidable,
)
from .levels import PLAN_MAX, POWER, ROBUST, Z, alpha_of, bonferroni_z
from .plans import Plan, combine, never, runs_to_decide
from .rules import SATURATED, VACUOUS, at_least, below, equivalent, greater, monotone
from .ties import tie_share
from .verdict import Verdict, all_of

__all__ = [
    "PLAN_MAX",
    "POWER",
    "ROBUST",
    "SATURATED",
    "VACUOUS",
    "Z",
    "Estimate",
    "Floor",
    "Plan",
    "Verdict",
    "all_of",
    "alpha_of",
    "at_least",
    "below",
    "bonferroni_z",
    "combine",
    "equivalent",
    "exact_above",
    "exact_all",
    "exact_below",
    "exact_close",
    "exact_monotone",
    "exact_somewhere_below",
    "greater",
    "monotone",
    "never",
    "runs_to_decide",
    "tie_share",
    "undecidable",
]
