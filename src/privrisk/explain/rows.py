"""One row per threat model, each computed by the library function the paper figures use.

A row function takes the :class:`~.accounted.Accounted` guarantee and the :class:`~.attacker.Attacker`
and returns a :class:`~.card.Row`. Where a bound does not apply to the guarantee (a pure-ε bound
for an (ε, δ) or DP-SGD guarantee), the row says so and why instead of giving a number.

Membership rows use the guarantee as stated (its adjacency says what "member" means);
attribute-inference and reconstruction rows compare two values of the target's record, so they
use the replace-one view (see :mod:`.guarantee`), except Kulynych et al.'s 1 − f(κ), which holds
for the stated adjacency's trade-off function.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from privrisk.bounds import attribute, membership, reconstruction
from privrisk.estimators import mace

from .accounted import Accounted, Privacy
from .attacker import Attacker
from .card import Row
from .guarantee import ADD_REMOVE

#: the Theorem 3.5 confidence levels shown on the card
LEVELS = (0.05, 0.5, 0.95)
#: Swanberg et al.'s ε_protect threshold (advantage at most 5 %)
PROTECT_THRESHOLD = 0.05


def prob(x: float | None) -> str:
    """A probability for the card: 3 decimals from 0.1 up, more digits near 1, and 3 significant
    digits below 0.1 (so a TPR of 0.00272 at a false-positive rate of 0.001 reads as such, not as
    0.003), scientific below 10⁻⁴."""
    if x is None:
        return "n/a"
    if x == 1:
        return "1"
    if x == 0:
        return "0"
    if math.isnan(x):
        return "nan"
    if 1 - x < 5e-7:  # would round to 1 at six decimals: say how far below 1 it is
        return f"1 − {1 - x:.1e}"
    if 0.999 < x < 1:
        return f"{x:.6f}".rstrip("0")
    if x < 1e-4:
        return f"{x:.2e}"
    if x < 0.1:
        decimals = 2 - math.floor(math.log10(x))  # three significant digits
        return f"{x:.{decimals}f}"
    return f"{x:.3f}"


def num(x: float) -> str:
    if math.isinf(x):
        return "∞"
    return f"{x:.3g}"


def _member_meaning(priv: Privacy) -> str:
    if priv.adjacency == ADD_REMOVE:
        return "whether the target's record is in the data"
    return "whether the target's record, rather than another record, fills its slot in the data"


def _not_pure(priv: Privacy) -> str:
    return "needs a pure ε-DP guarantee; this one is " + (
        f"(ε, δ) with δ = {priv.delta:.3g}" if priv.delta > 0 else "not pure"
    )


def over_profile(
    priv: Privacy, fn, *, vectorised: bool = True, stride: int = 50, many=None
) -> tuple[np.ndarray, float, float, np.ndarray]:
    """A bound fn(ε, δ) -> array at the guarantee's own (ε, δ) and, when the whole privacy profile
    is known (μ-GDP, DP-SGD), its elementwise minimum over the profile's pairs (ε, δ(ε)): each
    pair is a valid guarantee, so each gives a valid bound. A ``vectorised`` fn takes the whole
    grid at once; otherwise every ``stride``-th point first, then every other point around the
    best of the last component: one ``many(ε's, δ's)`` call per round when given (one row per
    pair, each row fn's value at it), else fn at each point.

    Returns (best values, ε and δ of the pair that gives the last component, values at the
    guarantee's own pair).
    """
    own = np.atleast_1d(np.asarray(fn(priv.epsilon, priv.delta), dtype=float))
    if not priv.has_profile:
        return own, priv.epsilon, priv.delta, own
    grid, deltas = priv.profile
    if vectorised:
        idx = np.arange(grid.size)
        vals = np.asarray(fn(grid, deltas), dtype=float).reshape(grid.size, -1)
    else:
        if many is None:

            def many(es, ds):
                return np.array([np.atleast_1d(fn(e, d)) for e, d in zip(es, ds, strict=True)])

        # every pair gives a valid bound, so the search only decides how tight: coarse, then
        # finer around the best so far (21 + 21 + 11 evaluations at the default grid)
        idx = np.arange(0, grid.size, stride * 2)
        vals = many(grid[idx], deltas[idx])
        for step, reach in ((stride // 5, stride * 2), (2, stride // 5)):
            best = int(idx[int(np.argmin(vals[:, -1]))])
            more = np.setdiff1d(
                np.arange(max(best - reach, 0), min(best + reach + 1, grid.size), max(step, 1)),
                idx,
            )
            if more.size:
                extra = many(grid[more], deltas[more])
                idx, vals = np.r_[idx, more], np.vstack([vals, extra])
    eps = np.r_[grid[idx], priv.epsilon]
    dls = np.r_[deltas[idx], priv.delta]
    vals = np.vstack([vals, own])
    j = int(np.argmin(vals[:, -1]))
    return vals.min(axis=0), float(eps[j]), float(dls[j]), own


def _profile_note(priv: Privacy, eps: float, dl: float, own_text: str, which: str = "") -> str:
    if not priv.has_profile:
        return ""
    return (
        f"the smallest over the privacy profile's (ε, δ(ε)) pairs{which}, at ε = {num(eps)}, "
        f"δ = {dl:.2g}; at this card's δ = {priv.delta:.2g} (ε = {num(priv.epsilon)}) it is "
        f"{own_text}"
    )


# --- membership (stated adjacency) -----------------------------------------------------------


def positive_accuracy(g: Accounted, a: Attacker) -> Row:
    s = g.as_stated
    common = dict(
        key="membership.positive_accuracy",
        group="membership",
        label="membership attack's positive accuracy, P(member | it says member)",
        source="Thudi et al. 2022, Theorem 1",
        attacker=(
            f"An attacker who knows the release and the target's record, and that a fraction "
            f"{a.base_rate:g} of candidates like it are members, decides {_member_meaning(s)}: "
            "when it says 'member' it is right at most this often."
        ),
        adjacency=s.adjacency,
        baseline=a.base_rate,
        function="privrisk.bounds.membership.positive_accuracy_upper",
    )
    if not s.pure:
        return Row(
            value=None,
            text="n/a",
            note=(
                "under (ε, δ)-DP an attack that rarely says 'member' can always be right: "
                "positive accuracy has no bound below 1 (Thudi et al. §5.2)"
            ),
            **common,
        )
    v = float(membership.positive_accuracy_upper(epsilon=s.epsilon, p=a.base_rate))
    return Row(value=v, text=f"{prob(v)} (base rate {a.base_rate:g})", **common)


def advantage_eps_delta(g: Accounted, a: Attacker) -> Row:
    s = g.as_stated
    v = 2 * float(membership.erlingsson_accuracy(epsilon=s.epsilon, delta=s.delta)) - 1
    return Row(
        key="membership.advantage_eps_delta",
        group="membership",
        label="membership advantage TPR − FPR, from (ε, δ)",
        value=v,
        text=prob(v),
        source="Erlingsson et al. 2019, Thudi et al. 2022 Table 1",
        attacker=(
            "The same attacker in the balanced game (half the candidates members): how far its "
            "true-positive rate can exceed its false-positive rate, from ε and δ alone."
        ),
        adjacency=s.adjacency,
        baseline=0.0,
        function="privrisk.bounds.membership.erlingsson_accuracy (advantage = 2·accuracy − 1)",
    )


def pld_error(s: Privacy, fn) -> float | None:
    """The stated error of a row read off DP-SGD's PLD: how much it moves between the grids 2Δ
    and Δ (as the ε error is stated), plus how far the PLD's mass is from 1. None elsewhere."""
    if s.coarse is None:
        return None
    return abs(float(fn(s)) - float(fn(s.coarse))) + s.mass_error


def _error_note(err: float | None) -> str:
    if err is None:
        return ""
    return f"PLD error ≤ {err:.1g} (its change from discretisation 2Δ to Δ, and the PLD's mass)"


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def advantage_fdp(g: Accounted, a: Attacker) -> Row:
    s = g.as_stated
    if s.mu is not None:
        source, fn = "μ-GDP: 2Φ(μ/2) − 1 (Dong, Roth & Su 2019)", "advantage_gdp"
    elif s.tpr_source is not None and s.coarse is not None:
        source, fn = (
            "the PLD's total variation δ(0) (Dong, Roth & Su 2019)",
            "privrisk.accounting.PldAccount.tv",
        )
    elif s.tpr_source is not None:
        source, fn = (
            "RDP orders directly (Zhu et al. 2022), or the profile's δ(0) where smaller",
            "advantage_rdp",
        )
    elif s.has_profile:
        source, fn = (
            "privacy profile: δ(0) (Dong, Roth & Su 2019)",
            "privrisk.accounting (δ(0) of the profile)",
        )
    else:
        source, fn = (
            "f-DP of (ε, δ) (Kairouz et al. 2015; Dong, Roth & Su 2019)",
            "advantage_approx",
        )
    note = ""
    if s.pure:
        note = "for pure ε-DP it equals tanh(ε/2), Mace's bound at base rate 1/2"
    elif s.has_profile and s.mu is None:
        note = "from the whole privacy-loss distribution: tighter than any single (ε, δ)"
    note = _join(note, _error_note(pld_error(s, lambda p: p.advantage)))
    return Row(
        key="membership.advantage_fdp",
        group="membership",
        label="membership advantage TPR − FPR, from the trade-off curve (tight)",
        value=s.advantage,
        text=prob(s.advantage),
        source=source,
        attacker=(
            "The strongest possible membership test in the balanced game: how far its "
            "true-positive rate can exceed its false-positive rate."
        ),
        adjacency=s.adjacency,
        baseline=0.0,
        note=note,
        function=fn if fn.startswith("privrisk") else f"privrisk.bounds.tradeoff.{fn}",
    )


#: the false-positive rates of the TPR-at-low-FPR rows (the auditing literature's numbers)
FPRS = (0.001, 0.01, 0.1)


def tpr_key(fpr: float) -> str:
    return f"membership.tpr_at_fpr_{fpr:g}"


def tpr_at_fpr(fpr: float) -> Callable[[Accounted, Attacker], Row]:
    def row(g: Accounted, a: Attacker) -> Row:
        s = g.as_stated
        v = s.success_from_baseline(fpr)  # TPR <= 1 − f(FPR)
        return Row(
            key=tpr_key(fpr),
            group="membership",
            label=f"membership test's true-positive rate at false-positive rate {fpr:.1%}",
            value=v,
            text=f"{prob(v)} (a coin that flags {fpr:.1%}: {prob(fpr)})",
            source="f-DP trade-off curve: TPR <= 1 − f(FPR) (Dong, Roth & Su 2019)"
            + _tradeoff_source(s),
            attacker=(
                f"The strongest membership test that wrongly flags at most {fpr:.1%} of "
                f"non-members ({_member_meaning(s)}): the fraction of members it can catch."
            ),
            adjacency=s.adjacency,
            baseline=fpr,
            note=_error_note(pld_error(s, lambda p: p.success_from_baseline(fpr))),
            function="privrisk.bounds.tradeoff." + _baseline_fn(s),
        )

    row.__name__ = f"tpr_at_fpr_{fpr:g}"
    return row


def _tradeoff_source(s: Privacy) -> str:
    if s.tpr_source is None or s.mu is not None:
        return ""
    if s.coarse is not None:
        return ", f read off the PLD itself"
    return ", f from each RDP order directly (Zhu et al. 2022) where tighter"


def _baseline_fn(s: Privacy) -> str:
    if s.mu is not None:
        return "success_from_baseline_gdp"
    if s.tpr_source is not None and s.coarse is not None:
        return "success_from_baseline_profile and PldAccount.tpr_for_fpr"
    if s.tpr_source is not None:
        return "success_from_baseline_profile and tradeoff_rdp"
    if s.has_profile:
        return "success_from_baseline_profile"
    return "success_from_baseline_approx"


def mace_advantage(g: Accounted, a: Attacker) -> Row:
    s = g.as_stated
    b = a.base_rate
    base = abs(2 * b - 1)

    def adv(p: Privacy) -> float:
        return min(1.0, max(base, 2 * p.membership_accuracy(b) - 1))

    v = adv(s)
    gain = v - base
    paper = ""
    if s.pure and math.isfinite(s.epsilon):
        theirs = float(mace.dp_bound(epsilon=s.epsilon, p=b))
        if theirs > v + 1e-12:
            paper = (
                f"Mace's Theorem 1(4) gives {prob(theirs)} here; no test reaches it: the most "
                f"accurate one scores max(|2b − 1|, tanh(ε/2)) = {prob(v)}"
            )
    if base == 0:
        text = prob(v)
    elif gain <= 1e-12:
        text = f"{prob(v)} (the majority guess alone: {prob(base)}; no gain possible)"
    else:
        text = f"{prob(v)} (the majority guess alone: {prob(base)}; +{prob(gain)})"
    return Row(
        key="membership.mace",
        group="membership",
        label="membership advantage of any query of the model (Mace's Adv_p = 2·accuracy − 1)",
        source="Xu et al. 2022 (Mace), Theorem 1(4); tight: the Bayes accuracy "
        "max(b, 1 − b) + min(b, 1 − b)·δ(|log(b/(1 − b))|)",
        attacker=(
            "An attacker who scores the target with any query of the released model (a GAN "
            f"discriminator's output, a loss) when a fraction {b:g} of candidates are "
            "members: twice its accuracy minus one, of which always answering the majority class "
            f"without the release already scores {prob(base)}."
        ),
        adjacency=s.adjacency,
        baseline=base,
        value=v,
        text=text,
        note=_join(paper, _error_note(pld_error(s, adv))),
        function="privrisk.explain.guarantee.membership_accuracy "
        "(privrisk.estimators.mace.dp_bound for the paper's value)",
    )


# --- attribute inference (replace-one) --------------------------------------------------------


def attribute_simplified(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    p = a.prior
    common = dict(
        key="attribute.simplified",
        group="attribute",
        label="attribute-guessing advantage (posterior − prior), simplified bound",
        source="Pankova & Laud 2022, simplified bound (R = 1)",
        attacker=(
            "An attacker who knows every other record and how likely each value of the target's "
            f"attribute is (its guess is right with probability {prob(p)} beforehand) guesses the "
            "attribute; any change of the attribute costs at most ε."
        ),
        adjacency=r.adjacency,
        baseline=0.0,
        function="privrisk.bounds.attribute.advantage_simplified",
    )
    if not r.pure:
        return Row(value=None, text="n/a", note=_not_pure(r), **common)
    v = float(attribute.advantage_simplified(epsilon=r.epsilon, p=p, R=1.0))
    return Row(
        value=v,
        values=(p, p + v),
        text=f"+{prob(v)} ({prob(p)} → {prob(p + v)})",
        note="the same σ(ε + logit p) as Swanberg et al.'s β and Thudi et al.'s Theorem 1",
        **common,
    )


def _precise_at(epsilon: float, M: float, centre: float) -> tuple[float, float]:
    """(prior, posterior bound) of the guess [centre − 1, centre + 1] for a uniform prior on
    [0, M] and a mechanism that is (ε/M)·|x − x′|-private (ε over the whole range)."""
    prior = float(attribute.uniform_guess_prior(M, centre, radius=1.0))
    if epsilon == 0:
        return prior, prior
    if math.isinf(epsilon):
        return prior, 1.0
    if epsilon / M < 1e-6:
        # the main theorem's quadrature divides differences of e^{ε·d} by ε, which loses every
        # digit as ε → 0; the simplified bound at the same prior (R = M) is valid and equal to it
        # to first order in ε there
        post = attribute.posterior_simplified(epsilon=epsilon / M, p=prior, R=M)
        return prior, float(post)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        post = float(
            attribute.posterior_main_theorem_uniform(
                epsilon=epsilon / M, M=M, x0=centre, radius=1.0
            )
        )
    if not math.isfinite(post):
        # e^{ε·d} overflows (ε ≳ 700): the simplified bound at the same prior is valid (≈ 1 here)
        post = float(attribute.posterior_simplified(epsilon=epsilon / M, p=prior, R=M))
    return prior, min(post, 1.0)


def precise_centres(M: float) -> np.ndarray:
    # the bound is symmetric about M/2; 1 is the edge centre whose guess still covers 2 units
    return np.unique(np.r_[np.linspace(0.0, M / 2, 21), 1.0])


def attribute_precise(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    M = a.attribute_range
    common = dict(
        key="attribute.precise",
        group="attribute",
        label=f"attribute-approximation advantage, precise bound (range {M:g} units)",
        source="Pankova & Laud 2022, main theorem (uniform prior on the range)",
        attacker=(
            f"An attacker who must pin a numeric attribute, spread evenly over {M:g} precision "
            "units, to within ±1 unit, from a release whose privacy loss grows with the change "
            "(ε over the whole range, e.g. Laplace noise on the attribute); worst guess centre."
        ),
        adjacency=r.adjacency,
        baseline=0.0,
        function="privrisk.bounds.attribute.posterior_main_theorem_uniform",
    )
    if not r.pure:
        return Row(value=None, text="n/a", note=_not_pure(r), **common)
    best = max(
        (_precise_at(r.epsilon, M, c) for c in precise_centres(M)), key=lambda t: t[1] - t[0]
    )
    prior, post = best
    v = post - prior
    simple = float(attribute.advantage_simplified(epsilon=r.epsilon / M, p=2 / M, R=M))
    return Row(
        value=v,
        values=(prior, post),
        text=f"+{prob(v)} ({prob(prior)} → {prob(post)})",
        note=f"the simplified bound at the same prior {prob(2 / M)} allows +{prob(simple)}",
        **common,
    )


# --- reconstruction (replace-one) -------------------------------------------------------------


def _reco_attacker(a: Attacker) -> str:
    return (
        "An informed attacker who knows everyone else's data and the prior (its best blind "
        f"guess of the target's secret is right with probability {prob(a.prior)}) makes one guess "
        "from the release."
    )


def beta(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    vals, e, d, own = over_profile(
        r, lambda e, d: reconstruction.beta_one_run(epsilon=e, delta=d, p=a.prior)
    )
    v = float(vals[0])
    return Row(
        note=_profile_note(r, e, d, prob(float(own[0]))),
        key="reconstruction.beta",
        group="reconstruction",
        label="probability the one guess of the secret is right (posterior β)",
        value=v,
        text=f"{prob(v)} (prior {prob(a.prior)})",
        source="Swanberg et al. 2025, Theorem 3.2"
        + (" (Theorem 3.5 with n = 1: β + (1 − β)δ)" if r.delta > 0 else ""),
        attacker=_reco_attacker(a),
        adjacency=r.adjacency,
        baseline=a.prior,
        function="privrisk.bounds.reconstruction.beta_one_run",
    )


def advantage(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    vals, e, d, own = over_profile(
        r, lambda e, d: reconstruction.advantage_one_run(epsilon=e, p=a.prior, delta=d)
    )
    v = float(vals[0])
    return Row(
        note=_profile_note(r, e, d, prob(float(own[0]))),
        key="reconstruction.advantage",
        group="reconstruction",
        label="reconstruction advantage (posterior − prior) / (1 − prior)",
        value=v,
        text=prob(v),
        source="Swanberg et al. 2025, §5.3 advantage of Theorem 3.5 (n = 1), as β",
        attacker="The same attacker: how much of the way from its prior to certainty the "
        "release can take it (the β row's posterior, (β − prior)/(1 − prior)).",
        adjacency=r.adjacency,
        baseline=0.0,
        function="privrisk.bounds.reconstruction.advantage_one_run",
    )


def epsilon_protect(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    common = dict(
        key="reconstruction.epsilon_protect",
        group="reconstruction",
        label=f"ε_protect: the largest ε with advantage ≤ {PROTECT_THRESHOLD:g}",
        source="Swanberg et al. 2025, ε_protect (§5.3), with Theorem 3.5's advantage",
        attacker="The same attacker; below ε_protect the release moves it at most 5 % of the "
        "way from its prior to certainty.",
        adjacency=r.adjacency,
        function="privrisk.bounds.reconstruction.epsilon_protect_one_run",
    )
    if a.prior >= 1:
        return Row(value=None, text="n/a", note="the prior is 1: nothing to protect", **common)
    v = float(
        reconstruction.epsilon_protect_one_run(
            p=a.prior, delta=r.delta, threshold=PROTECT_THRESHOLD
        )
    )
    side = "within it" if r.epsilon <= v else "above it"
    return Row(
        value=v,
        text=f"{num(v)} (this guarantee: ε = {num(r.epsilon)}, {side})",
        **common,
    )


def quantiles(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    priors = np.asarray(a.priors, dtype=float)
    n = priors.size

    def bounds(e, d):
        betas = np.atleast_1d(reconstruction.beta_pure(epsilon=e, p=priors))
        return reconstruction.success_quantiles(betas, LEVELS, delta=d)

    def many(es, ds):  # bounds at each pair, the β of all pairs and their tails made at once
        betas = reconstruction.beta_pure(epsilon=np.asarray(es)[:, None], p=priors[None, :])
        return reconstruction.success_quantiles_many(betas, LEVELS, deltas=ds)

    q, e, d, own = over_profile(r, bounds, vectorised=False, many=many)
    q0 = reconstruction.success_quantiles(priors, LEVELS, delta=0.0)
    qs = " / ".join(str(int(x)) for x in q)
    q0s = " / ".join(str(int(x)) for x in q0)
    return Row(
        key="reconstruction.quantiles",
        group="reconstruction",
        label=f"targets reconstructed in one run, of {n:,}: bounds at 5 / 50 / 95 %",
        value=float(q[-1]),
        values=tuple(float(x) for x in q),
        text=f"{qs} of {n:,} (prior alone: {q0s})",
        source="Swanberg et al. 2025, Theorem 3.5",
        attacker=(
            f"The same attacker against {n:,} targets at once (e.g. one column of a table), one "
            "guess each: with probability 5 / 50 / 95 % it gets at most that many right."
        ),
        adjacency=r.adjacency,
        baseline=float(q0[-1]),
        note=_profile_note(
            r, e, d, " / ".join(str(int(x)) for x in own), " (each level on its own; the 95 % one)"
        ),
        function="privrisk.bounds.reconstruction.success_quantiles (β_i from beta_pure)",
    )


def equally_likely_values(a: Attacker) -> int | None:
    """K when the single-target prior is K equally likely values (given, or prior = 1/K)."""
    if a.values is not None:
        return a.values
    if len(set(a.priors)) > 1:
        return None
    if a.prior < 1e-12:  # K beyond 10¹²: not a number of values anyone enumerates
        return None
    k = round(1 / a.prior)
    return k if abs(k * a.prior - 1) < 1e-9 else None


def mmc(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    K = equally_likely_values(a)
    common = dict(
        key="reconstruction.mmc",
        group="reconstruction",
        label="one guess among K equally likely values (MMC)",
        source="Hayes et al. 2023 (MMC), in Swanberg et al. 2025 Fig. 1(b)",
        adjacency=r.adjacency,
    )
    if K is None:
        return Row(
            value=None,
            text="n/a",
            attacker="An informed attacker whose target's secret is one of K equally likely "
            "values makes one guess.",
            note="MMC is for K equally likely values; this prior is not 1/K",
            function="privrisk.bounds.reconstruction.mmc_fdp",
            **common,
        )
    if r.mu is not None:
        v = float(reconstruction.mmc_gdp(mu=r.mu, K=K))
        fn, note = "mmc_gdp", "with the μ-GDP trade-off function G_μ"
    else:
        vals, e, d, own = over_profile(
            r, lambda e, d: reconstruction.mmc_fdp(epsilon=e, delta=d, K=K)
        )
        v = float(vals[0])
        fn = "mmc_fdp"
        note = (
            "equals β at prior 1/K (Theorem 3.5 with n = 1)"
            if not r.has_profile
            else _profile_note(r, e, d, prob(float(own[0])))
            + "; MMC with the PLD's own trade-off curve would be tighter still"
        )
    return Row(
        value=v,
        text=f"{prob(v)} (K = {K:,}, prior {prob(1 / K)})",
        attacker=f"An informed attacker whose target's secret is one of {K:,} equally likely "
        "values makes one guess.",
        baseline=1 / K,
        note=note,
        function=f"privrisk.bounds.reconstruction.{fn}",
        **common,
    )


def rero(g: Accounted, a: Attacker) -> Row:
    r = g.replace_one
    common = dict(
        key="reconstruction.rero",
        group="reconstruction",
        label="reconstruction robustness (ReRo), min(1, e^ε κ)",
        source="Balle et al. 2022 (ReRo), in Swanberg et al. 2025",
        attacker="An informed attacker whose guess succeeds with probability κ = prior "
        "without the release; a looser pure-DP bound than β.",
        adjacency=r.adjacency,
        baseline=a.prior,
        function="privrisk.bounds.reconstruction.rero_pure",
    )
    if not r.pure:
        return Row(value=None, text="n/a", note=_not_pure(r), **common)
    v = float(reconstruction.rero_pure(epsilon=r.epsilon, p=a.prior))
    return Row(value=v, text=prob(v), **common)


def baseline_fdp(g: Accounted, a: Attacker) -> Row:
    s = g.as_stated
    kappa = a.prior
    v = s.success_from_baseline(kappa)
    null = "removed" if s.adjacency == ADD_REMOVE else "replaced by a fresh draw from the prior"
    return Row(
        key="reconstruction.baseline_fdp",
        group="reconstruction",
        label="success of any attack with baseline κ = prior: 1 − f(κ)",
        value=v,
        text=f"{prob(v)} (κ = {prob(kappa)})",
        source="Kulynych et al. 2025 (riskcal), f of the stated adjacency" + _tradeoff_source(s),
        attacker=(
            f"Any attacker (re-identification, attribute inference, reconstruction) whose best "
            f"guess without the release is right with probability κ; one test against a world "
            f"with the target {null}."
        ),
        adjacency=s.adjacency,
        baseline=kappa,
        note=_error_note(pld_error(s, lambda p: p.success_from_baseline(kappa))),
        function=f"privrisk.bounds.tradeoff.{_baseline_fn(s)}",
    )


#: every row of the card, in order; the reverse question is added by :mod:`.reverse`
ROWS: dict[str, Callable[[Accounted, Attacker], Row]] = {
    "membership.positive_accuracy": positive_accuracy,
    "membership.advantage_eps_delta": advantage_eps_delta,
    "membership.advantage_fdp": advantage_fdp,
    "membership.mace": mace_advantage,
    **{tpr_key(f): tpr_at_fpr(f) for f in FPRS},
    "attribute.simplified": attribute_simplified,
    "attribute.precise": attribute_precise,
    "reconstruction.beta": beta,
    "reconstruction.advantage": advantage,
    "reconstruction.epsilon_protect": epsilon_protect,
    "reconstruction.quantiles": quantiles,
    "reconstruction.mmc": mmc,
    "reconstruction.rero": rero,
    "reconstruction.baseline_fdp": baseline_fdp,
}

#: which view of the guarantee each row reads (the reverse question accounts only that one)
VIEW = {k: ("stated" if k.startswith("membership.") else "replace-one") for k in ROWS}
VIEW["reconstruction.baseline_fdp"] = "stated"


def difference_note(g: Accounted, a: Attacker, rows: dict[str, Row]) -> str | None:
    """Why Swanberg et al.'s β and Kulynych et al.'s 1 − f(κ) differ, with this card's numbers."""
    b, k = rows["reconstruction.beta"], rows["reconstruction.baseline_fdp"]
    if b.value is None or k.value is None:
        return None
    p = a.prior
    if g.adjacency == ADD_REMOVE:
        return (
            f"β = {prob(b.value)} and 1 − f(κ) = {prob(k.value)} answer the same one-guess "
            "question under different adjacencies: β compares two values of the target's "
            "record (replace-one), which this add/remove guarantee bounds only more weakly "
            f"(replace-one ε = {num(g.replace_one.epsilon)}"
            + (f" at δ = {g.replace_one.delta:.2g}" if g.replace_one.delta else "")
            + "); 1 − f(κ) tests the real target against a world without it, which is exactly "
            "what add/remove bounds, and is tight there."
        )
    s = g.as_stated
    doubled = ""
    if s.pure and math.isfinite(s.epsilon):
        b2 = float(reconstruction.beta_pure(epsilon=2 * s.epsilon, p=p))
        doubled = f"; an add/remove ε-DP release gives only replace-one 2ε, where β = {prob(b2)}"
    return (
        f"Why β = {prob(b.value)} but 1 − f(κ) = {prob(k.value)}: both hold here. β is a "
        "Bayesian bound that uses the guarantee between every two values the secret can take, "
        "so the rest of the prior always dilutes the posterior; 1 − f(κ) uses one test, the "
        "real target against a fresh draw from the prior, at the single point κ of the "
        "trade-off curve. That test is the tight bound when the null world has the target "
        f"removed (add/remove adjacency){doubled}."
    )


def build(g: Accounted, a: Attacker) -> tuple[tuple[Row, ...], tuple[str, ...]]:
    rows = {key: fn(g, a) for key, fn in ROWS.items()}
    notes = [n for n in (difference_note(g, a, rows),) if n]
    return tuple(rows.values()), tuple(notes)
