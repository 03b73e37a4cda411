"""Bug fixtures: DP-SGD implementations with known privacy bugs, each audited end to end.

Each fixture is a pair of arms trained and audited the same way: the **bug** (an implementation
whose accountant claims a guarantee it does not meet) and its honest **control** (the same claim,
met). Both are DP-SGD trainings of :mod:`privrisk.audit.canaries` (logistic regression, many runs
as one array computation), and both are audited by the public :func:`privrisk.audit.audit`, four
ways:

1. **membership, white-box Dirac canary** (the primary audit, whose verdict is the fixture's):
   ``MODELS`` runs with the canary and ``MODELS`` without (or with its opposite, replace-one), one
   score per run (the statistic of the fixture, from every privatised gradient), the two-sample
   threshold test across runs;
2. **membership, black-box input canary**: the same with an input canary, scored by the final
   model's logit on it;
3. **one-run, Steinke et al.**: one training run with ``ONE_RUN_CANARIES`` Dirac canaries, each
   included with probability ½;
4. **one-run, f-DP** (Mahloujifar et al.): the same scores, for claims it can test (μ-GDP).

The claims are what each implementation's accountant reports, in the form an accountant states
it: a full-batch run is exactly μ-GDP (``mu``), a subsampled one a DP-SGD privacy profile
(``noise_multiplier``, ``sample_rate``, ``steps``); "claimed ε" is that guarantee's ε at
δ = ``DELTA``.

The fixture sizes below were fixed from the design (the audit's power on Gaussian scores with the
effect each bug should have), before any fixture's verdict was seen; :data:`POST_HOC` lists every
change made after.

``python -m privrisk.audit.fixtures`` (or ``benchmarks/audit_fixtures.py``) runs them all and
prints the table; ``--write-docs`` puts it into docs/audit.md between its fixture markers.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

import privrisk.audit.canaries as cn
from privrisk import accounting
from privrisk.core import seeds

from .build import audit
from .errors import AuditInputError

# --- pre-registered design (2026-11-28, before any fixture verdict was seen) ---------------------
SEED = 20261128
DELTA = 1e-5
CONFIDENCE = 0.95
#: runs per side of the membership audits (2 × MODELS runs per arm and canary design)
MODELS = 1000
#: canaries of the one training run of the one-run audits
ONE_RUN_CANARIES = 1000
#: the shared training data: examples, features
N_DATA, D_DATA = 50, 8
STEPS = 10
#: the ε the full-batch implementations claim (at DELTA)
CLAIMED_EPSILON = 4.0
#: the project's own DP-SGD is audited at these ε
OWN_EPSILONS = (1.0, 4.0, 10.0)
#: changes made after a verdict was seen (none)
POST_HOC: tuple[str, ...] = ()

AUDITS = (
    ("membership", "white-box Dirac"),
    ("membership", "black-box input"),
    ("one-run Steinke", "white-box Dirac"),
    ("one-run f-DP", "white-box Dirac"),
)
DOC_BEGIN, DOC_END = "<!-- fixtures:begin -->", "<!-- fixtures:end -->"


@dataclass(frozen=True)
class Arm:
    impl: cn.Implementation
    #: the accountant's claim, as keyword arguments of :func:`privrisk.audit.audit`
    claim: dict


@dataclass(frozen=True)
class Fixture:
    key: str
    title: str
    #: the canary experiment's neighbouring relation
    neighbours: str
    #: the white-box statistic (:func:`privrisk.audit.canaries.scores`)
    statistic: str
    bug: Arm
    control: Arm


def _mu_claim(epsilon: float, adjacency: str) -> dict:
    return {"mu": accounting.gdp_mu(epsilon=epsilon, delta=DELTA), "delta": DELTA,
            "adjacency": adjacency}  # fmt: skip


def _sigma(epsilon: float, adjacency: str) -> float:
    """The full-batch noise multiplier for ε at DELTA (the project's calibration)."""
    return accounting.dpsgd_noise_multiplier(
        epsilon=epsilon, delta=DELTA, sample_rate=1.0, steps=STEPS, adjacency=adjacency
    )


def _dpsgd_claim(sigma: float, q: float) -> dict:
    return {"noise_multiplier": sigma, "sample_rate": q, "steps": STEPS, "delta": DELTA,
            "adjacency": "add-remove"}  # fmt: skip


def fixtures() -> tuple[Fixture, ...]:
    """The fixtures (a)–(d) of issue 48, each a bug and its honest control."""
    eps = CLAIMED_EPSILON
    add = _mu_claim(eps, "add-remove")
    full = cn.Implementation(noise_multiplier=_sigma(eps, "add-remove"), steps=STEPS)
    # (b) a subsampled run: σ small enough that one-epoch-at-a-time batches matter (Chua et al.
    # 2024's gap between shuffled and Poisson batches lives at small σ)
    shuffle_sigma, q = 0.5, 0.2
    poisson = cn.Implementation(noise_multiplier=1.0, steps=STEPS, sampler="poisson", sample_rate=q)
    return (
        Fixture(
            "a",
            "replace-one data accounted as add/remove (sensitivity 2C accounted as C)",
            "replace-one",
            "sum",
            Arm(full, _mu_claim(eps, "replace-one")),
            Arm(
                replace(full, noise_multiplier=_sigma(eps, "replace-one")),
                _mu_claim(eps, "replace-one"),
            ),
        ),  # fmt: skip
        Fixture(
            "b1",
            "fixed-size shuffled batches (B = N/5) accounted as Poisson q = B/N",
            "add-remove",
            "shuffle-lr",
            Arm(
                cn.Implementation(
                    noise_multiplier=shuffle_sigma, steps=STEPS, sampler="shuffle", sample_rate=q
                ),
                _dpsgd_claim(shuffle_sigma, q),
            ),
            Arm(
                cn.Implementation(
                    noise_multiplier=shuffle_sigma, steps=STEPS, sampler="poisson", sample_rate=q
                ),
                _dpsgd_claim(shuffle_sigma, q),
            ),
        ),  # fmt: skip
        Fixture(
            "b2",
            "sample rate off by 1,000× in the accountant (the Opacus #813 shape)",
            "add-remove",
            "poisson-lr",
            Arm(poisson, _dpsgd_claim(1.0, q / 1000)),
            Arm(poisson, _dpsgd_claim(1.0, q)),
        ),
        Fixture(
            "c1",
            "the batch's summed gradient clipped to C instead of each example (the #819 shape)",
            "add-remove",
            "direction",
            Arm(replace(full, clipping="batch"), add),
            Arm(full, add),
        ),
        Fixture(
            "c2",
            "per-example clipping skipped",
            "add-remove",
            "sum",
            Arm(replace(full, clipping="none"), add),
            Arm(full, add),
        ),
        Fixture(
            "d",
            "noise drawn with std σ instead of σ·C (C = 3)",
            "add-remove",
            "sum",
            Arm(replace(full, clip=3.0, noise_std="sigma"), add),
            Arm(replace(full, clip=3.0), add),
        ),
    )


@dataclass(frozen=True)
class Result:
    """One audit of one arm: the bound in the claim's own form, ε̂ and μ̂ at DELTA, the verdict."""

    method: str
    design: str
    verdict: str | None
    p_value: float | None = None
    form: str | None = None
    claimed: float | None = None
    lower: float | None = None
    epsilon_lower: float | None = None
    mu_lower: float | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)


def _result(method: str, design: str, report) -> Result:
    form = report.form or {}
    return Result(
        method=method,
        design=design,
        verdict=report.verdict,
        p_value=report.p_value,
        form=form.get("name"),
        claimed=form.get("claimed"),
        lower=form.get("lower"),
        epsilon_lower=report.epsilon_lower,
        mu_lower=report.mu_lower,
        extra={"guesses": report.guesses, "correct": report.correct},
    )


def _membership_scores(fx: Fixture, impl, *, canary: str, models: int, rng) -> dict:
    data = cn.dataset(rng, N_DATA, D_DATA)
    member = np.r_[np.ones(models, bool), np.zeros(models, bool)]
    trace = cn.train(impl, data, member[:, None], canary=canary,
                     replace=fx.neighbours == "replace-one", rng=rng)  # fmt: skip
    stat = "logit" if canary == "input" else fx.statistic
    s = cn.scores(trace, statistic=stat, d_data=D_DATA, clip=impl.clip,
                  noise_multiplier=impl.noise_multiplier, sample_rate=impl.sample_rate)  # fmt: skip
    return {"score": s[:, 0], "member": member.astype(int)}


def _one_run_scores(fx: Fixture, impl, *, canaries: int, rng) -> dict:
    data = cn.dataset(rng, N_DATA, D_DATA)
    included = rng.random((1, canaries)) < 0.5
    trace = cn.train(impl, data, included, canary="dirac",
                     replace=fx.neighbours == "replace-one", rng=rng)  # fmt: skip
    # one run holds many canaries: the single-canary "direction" statistic does not apply
    stat = "sum" if fx.statistic == "direction" else fx.statistic
    s = cn.scores(trace, statistic=stat, d_data=D_DATA, clip=impl.clip,
                  noise_multiplier=impl.noise_multiplier, sample_rate=impl.sample_rate)  # fmt: skip
    return {"score": s[0], "member": included[0].astype(int)}


def membership_audit(fx: Fixture, which: str, canary: str, *, models: int = MODELS,
                     seed: int = SEED) -> Result:  # fmt: skip
    """The membership audit of one arm with one canary design (``dirac``: white box, the
    fixture's statistic; ``input``: black box, the final logit): 2 × ``models`` runs."""
    arm = getattr(fx, which)
    design = AUDITS[0][1] if canary == "dirac" else AUDITS[1][1]
    rng = seeds.rng(seed, "fixture", fx.key, which, canary)
    cols = _membership_scores(fx, arm.impl, canary=canary, models=models, rng=rng)
    return _result("membership", design, audit(cols, confidence=CONFIDENCE, **arm.claim))


def audit_arm(fx: Fixture, which: str, *, models: int = MODELS,
              canaries: int = ONE_RUN_CANARIES, seed: int = SEED) -> list[Result]:  # fmt: skip
    """Train and audit one arm (``bug`` or ``control``) of ``fx`` the four ways of :data:`AUDITS`."""
    arm = getattr(fx, which)
    out = [membership_audit(fx, which, c, models=models, seed=seed) for c in ("dirac", "input")]
    cols = _one_run_scores(fx, arm.impl, canaries=canaries,
                           rng=seeds.rng(seed, "fixture", fx.key, which, "one-run"))  # fmt: skip
    rep = audit(cols, one_run=True, confidence=CONFIDENCE, **arm.claim)
    out.append(_result("one-run Steinke", AUDITS[2][1], rep))
    try:
        rep = audit(cols, one_run=True, one_run_method="fdp", confidence=CONFIDENCE, **arm.claim)
        out.append(_result("one-run f-DP", AUDITS[3][1], rep))
    except AuditInputError:
        out.append(Result("one-run f-DP", AUDITS[3][1], None,
                          note="n/a: tests μ-GDP claims, not a subsampled profile"))  # fmt: skip
    return out


def claimed_epsilon(claim: dict) -> float:
    """The claim's ε at its δ, as the audit's parser (explain's) reads it."""
    import privrisk.audit.claim as claim_mod

    return claim_mod.parse(dict(claim)).epsilon


def expected(which: str) -> str:
    return "refuted" if which == "bug" else "consistent"


def run_all(*, models: int = MODELS, canaries: int = ONE_RUN_CANARIES, seed: int = SEED,
            only=None) -> list[dict]:  # fmt: skip
    """Every fixture's two arms: one row each (fixture, arm, claim, results, verdict)."""
    rows = []
    for fx in fixtures():
        if only is not None and fx.key not in only:
            continue
        for which in ("bug", "control"):
            res = audit_arm(fx, which, models=models, canaries=canaries, seed=seed)
            rows.append({
                "fixture": fx.key, "title": fx.title, "arm": which,
                "claimed_epsilon": claimed_epsilon(getattr(fx, which).claim),
                "claim_form": res[0].form, "results": res,
                "verdict": res[0].verdict, "expected": expected(which),
            })  # fmt: skip
    return rows


# --- the project's own DP-SGD, audited honestly -------------------------------------------------


def own_dpsgd(epsilon: float, *, models: int = MODELS, canaries: int = ONE_RUN_CANARIES,
              seed: int = SEED) -> dict:  # fmt: skip
    """The project's batched DP-SGD (:func:`privrisk.training.dpsgd.batched_dpsgd`, the trainer of
    swanberg2025's Figure 3: full batch, one record per model, add/remove: the record or none),
    calibrated to ``epsilon`` at DELTA over STEPS steps, audited by membership with a white-box
    Dirac canary (the final model's canary coordinate, sufficient for a full batch) and a
    black-box input canary (its logit); and by the one-run audits on the same DP-SGD with
    ONE_RUN_CANARIES Dirac canaries (:mod:`.canaries`, per-example clipping as ``batched_dpsgd``).
    ε̂/ε and μ̂/μ per method and canary design."""
    import torch

    from privrisk.training import dpsgd

    sigma = dpsgd.full_batch_noise_multiplier(epsilon, DELTA, STEPS, adjacency="add-remove")
    mu = dpsgd.full_batch_mu(sigma, STEPS, adjacency="add-remove")
    claim = {"mu": mu, "delta": DELTA, "adjacency": "add-remove"}
    member = np.r_[np.ones(models), np.zeros(models)]
    mask = torch.as_tensor(member, dtype=torch.float64)
    clip, lr = 1.0, 0.05
    a = cn.INPUT_AMPLITUDE * clip
    losses = {
        # a gradient of norm DIRAC_GRADIENT·C on coordinate 0, inserted directly
        "white-box Dirac": lambda p: -cn.DIRAC_GRADIENT * clip * p["w"][:, 0] * mask,
        # the logistic loss of the input (a e_0, y = 1)
        "black-box input": lambda p: torch.nn.functional.softplus(-a * p["w"][:, 0]) * mask,
    }
    out = {"epsilon": epsilon, "mu": mu, "noise_multiplier": sigma, "results": []}
    for design, loss in losses.items():
        gen = torch.Generator().manual_seed(seeds.torch_seed(seed, "own-dpsgd", epsilon, design))
        w = dpsgd.batched_dpsgd({"w": torch.zeros(2 * models, 2, dtype=torch.float64)}, loss,
                                steps=STEPS, lr=lr, clip=clip, noise_multiplier=sigma,
                                generator=gen)["w"]  # fmt: skip
        score = w[:, 0].numpy() * (a if design == "black-box input" else 1.0)
        rep = audit({"score": score, "member": member}, confidence=CONFIDENCE, **claim)
        out["results"].append(_result("membership", design, rep))
    fx = Fixture("own", "", "add-remove", "sum", None, None)
    impl = cn.Implementation(noise_multiplier=sigma, steps=STEPS, lr=lr)
    cols = _one_run_scores(fx, impl, canaries=canaries,
                           rng=seeds.rng(seed, "own-dpsgd", epsilon, "one-run"))  # fmt: skip
    for method, name in (("steinke", "one-run Steinke"), ("fdp", "one-run f-DP")):
        rep = audit(cols, one_run=True, one_run_method=method, confidence=CONFIDENCE, **claim)
        out["results"].append(_result(name, "white-box Dirac", rep))
    return out


# --- the table -----------------------------------------------------------------------------------


def _num(x, digits=3) -> str:
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


def _p(p) -> str:
    return "—" if p is None else (f"{p:.2g}" if p >= 1e-3 else f"{p:.1e}")


def _cell(r: Result) -> str:
    if r.verdict is None:
        return r.note or "—"
    bound = f"ε̂ ≥ {_num(r.epsilon_lower)}"
    if r.mu_lower is not None:
        bound += f", μ̂ ≥ {_num(r.mu_lower)}"
    mark = "**refuted**" if r.verdict == "refuted" else r.verdict
    return f"{bound}; {mark} (p = {_p(r.p_value)})"


def fixtures_table(rows: list[dict]) -> str:
    head = ("| fixture | arm | claim | claimed ε | " + " | ".join(f"{m}, {d}" for m, d in AUDITS)
            + " | verdict (expected) |")  # fmt: skip
    lines = [head, "|" + " --- |" * (5 + len(AUDITS))]
    for r in rows:
        ok = "✓" if r["verdict"] == r["expected"] else "✗"
        claim = "μ-GDP" if r["claim_form"] == "mu" else "DP-SGD profile"
        lines.append(
            f"| ({r['fixture']}) {r['title']} | {r['arm']} | {claim} | "
            f"{_num(r['claimed_epsilon'])} | "
            + " | ".join(_cell(x) for x in r["results"])
            + f" | {r['verdict']} ({r['expected']}) {ok} |"
        )
    return "\n".join(lines)


def own_table(rows: list[dict]) -> str:
    lines = ["| ε | μ | method, canary design | ε̂ (δ = 10⁻⁵) | ε̂/ε | μ̂/μ | verdict |",
             "| --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for r in rows:
        for x in r["results"]:
            mu_ratio = None if x.mu_lower is None else x.mu_lower / r["mu"]
            lines.append(
                f"| {_num(r['epsilon'])} | {_num(r['mu'])} | {x.method}, {x.design} | "
                f"{_num(x.epsilon_lower)} | {_num(x.epsilon_lower / r['epsilon'], 2)} | "
                f"{_num(mu_ratio, 2)} | {x.verdict} (p = {_p(x.p_value)}) |"
            )
    return "\n".join(lines)


def summary(rows: list[dict]) -> str:
    """What the fixtures table shows, counted from it: the primary verdicts, then which audit
    catches which bug."""
    bugs = [r for r in rows if r["arm"] == "bug"]
    ctls = [r for r in rows if r["arm"] == "control"]
    hit = sum(r["verdict"] == "refuted" for r in bugs)
    ctl_audits = [x for r in ctls for x in r["results"] if x.verdict is not None]
    ctl_ref = sum(x.verdict == "refuted" for x in ctl_audits)
    parts = []
    for i, (method, design) in enumerate(AUDITS):
        run = [r for r in bugs if r["results"][i].verdict is not None]
        got = [r["fixture"] for r in run if r["results"][i].verdict == "refuted"]
        missed = [r["fixture"] for r in run if r["results"][i].verdict != "refuted"]
        miss = f" (not ({'), ('.join(missed)}))" if missed else ""
        parts.append(f"{method}, {design}: {len(got)} of {len(run)}{miss}")
    return (
        f"Bugs refuted by the primary audit: {hit} of {len(bugs)}; honest controls refuted by any "
        f"audit: {ctl_ref} of {len(ctl_audits)} audits. Bugs each audit refutes: "
        + "; ".join(parts)
        + "."
    )


def docs_section(rows: list[dict], own: list[dict], timing: str = "") -> str:
    """The section of docs/audit.md between the fixture markers: how the fixtures are built, the
    two tables, and (``timing``) how long the run took."""
    post = "; ".join(POST_HOC) if POST_HOC else "none"
    return f"""## Bug fixtures: the audit against DP-SGD implementations with known bugs

Generated by `python benchmarks/audit_fixtures.py --write-docs docs/audit.md`
(`privrisk.audit.fixtures`). Each fixture trains a DP-SGD implementation with one bug of the kind
that has shipped in real code, and its honest control, and audits both with `privrisk.audit`. The
models are logistic regressions ({N_DATA} examples, {D_DATA} features, {STEPS} steps, many
training runs as one array computation, `privrisk.audit.canaries`); the honest path equals the
project's `training.dpsgd.batched_dpsgd` on the same noise (a test). Canaries: a **white-box Dirac
gradient canary** (a gradient of norm {cn.DIRAC_GRADIENT:g} C inserted directly on a coordinate no
other example touches; every privatised gradient is observed, which DP-SGD's accounting covers),
scored by a statistic fixed per fixture (the sum over steps; the Poisson or per-epoch likelihood
ratio; for batch clipping, what the canary displaces in the rest of the batch), and a **black-box
input canary** (an example on an unused feature, gradient {cn.INPUT_AMPLITUDE / 2:g} C at the start,
scored by the final model's logit). Membership audits: {MODELS:,} runs with the canary and
{MODELS:,} without (replace-one: with its opposite); one-run audits: one run with
{ONE_RUN_CANARIES:,} Dirac canaries, each in with probability ½. The claim is what the
implementation's accountant reports: μ-GDP for a full batch (exact), the DP-SGD privacy profile
when subsampled; "claimed ε" is its ε at δ = 10⁻⁵. Each cell: ε̂ and μ̂, the
{CONFIDENCE:.0%} lower bounds (the interval [ε̂, ∞)) at δ = 10⁻⁵, then the verdict on the claim in
its own form (so a claim can be refuted by μ̂ or by the profile while ε̂ at 10⁻⁵ is below its ε)
and its p-value. The fixture's verdict is the pre-registered primary audit's, the white-box
membership audit; the other columns are reported beside it, each a valid test on its own.
Sizes and seeds were fixed (`privrisk.audit.fixtures`, seed {SEED}) before any fixture's verdict
was seen; changed after: {post}.

{fixtures_table(rows)}

{summary(rows)}

**The project's own DP-SGD, audited honestly** (`batched_dpsgd`, the trainer of swanberg2025's
Figure 3: full batch, add/remove, {STEPS} steps, calibrated to ε at δ = 10⁻⁵; membership with
{MODELS:,} runs a side; one-run with {ONE_RUN_CANARIES:,} Dirac canaries in one run of the same
DP-SGD). ε̂ ≤ ε in every row (a slow test checks it):

{own_table(own)}
{timing}"""


def write_docs(path: Path, text: str) -> None:
    """Replace what lies between the fixture markers of ``path`` (written atomically)."""
    doc = path.read_text()
    if doc.count(DOC_BEGIN) != 1 or doc.count(DOC_END) != 1:
        raise ValueError(f"{path}: needs exactly one {DOC_BEGIN} and one {DOC_END}")
    head, rest = doc.split(DOC_BEGIN)
    _, tail = rest.split(DOC_END)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"{head}{DOC_BEGIN}\n{text}\n{DOC_END}{tail}")
    tmp.replace(path)


def main(argv=None) -> int:
    """Run every fixture and the own-DP-SGD audits; print the tables (and write them into
    ``--write-docs FILE``). Exit 1 when a bug is not refuted, a control is or the own DP-SGD is."""
    import time

    ap = argparse.ArgumentParser(prog="python -m privrisk.audit.fixtures", description=__doc__)
    ap.add_argument("--write-docs", metavar="FILE", help="docs/audit.md to write the tables into")
    args = ap.parse_args(argv)
    if args.write_docs:
        try:
            doc = Path(args.write_docs).read_text()
        except OSError as err:
            print(f"audit fixtures: error: {args.write_docs}: {err.strerror}", file=sys.stderr)
            return 2
        if doc.count(DOC_BEGIN) != 1 or doc.count(DOC_END) != 1:
            print(f"audit fixtures: error: {args.write_docs}: needs exactly one {DOC_BEGIN} "
                  f"and one {DOC_END}", file=sys.stderr)  # fmt: skip
            return 2
    cpu, wall = time.process_time(), time.perf_counter()
    rows = run_all()
    own = [own_dpsgd(e) for e in OWN_EPSILONS]
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    timing = f"\nThe whole run: {cpu:.0f} s of CPU time ({wall:.0f} s wall on a shared 2-core machine).\n"
    text = docs_section(rows, own, timing)
    print(text)
    if args.write_docs:
        write_docs(Path(args.write_docs), text)
    bad = [r for r in rows if r["verdict"] != r["expected"]]
    bad += [x for r in own for x in r["results"] if x.verdict == "refuted"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
