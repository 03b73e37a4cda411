"""What ``privrisk new-paper KEY`` writes (:mod:`privrisk.pipeline.new_paper`), as text with the
placeholders ``__KEY__``, ``__PACKAGE__``, ``__CONFIG__``, ``__TESTS__`` (the paths written to)
and ``__SHAPES__`` (the schema's shared shapes at the time of writing).

A working analytic paper: one figure (Theorem 1's membership bound at one prior), one claim
decided by an exact rule, one quoted number (an entry of ``quoted.yaml`` whose ``source`` is a
placeholder to fill from the paper; the notes' table of it is written by
:mod:`privrisk.pipeline.new_paper`), their tests and a tiny end-to-end run. Each file's comments
answer what a contributor would otherwise guess (CONTRIBUTING "Adding a paper").
``tests/fixture_paper/`` is this output for the key ``fixture2099`` (a test keeps them equal).
"""

from __future__ import annotations

INIT = '''"""__KEY__: replace with the paper's authors, "title" (venue), and what this package holds.

``figures``: the figures; ``claims``: the paper's ledger and one function per claim; ``registry``:
what the pipeline makes. Written by ``privrisk new-paper __KEY__``: replace the example.
"""
'''

REGISTRY = '''"""What __KEY__ makes: one analytic figure (the example ``privrisk new-paper`` wrote)."""

from ...core.declarations import Figure, Paper

# The docs' paper table (README), the paper's page and the status page show these; the code
# never reads them, so editing them reruns no job.
PAPER = Paper(
    title="__KEY__: the paper's title (edit its registry.py)",
    authors="the paper's authors",
    venue="where it appeared",
    # version="which version is reproduced (e.g. arXiv v2) when there are several",
    summary="one analytic figure",  # what it needs, in a few words (the README's paper table)
    # the place in every listing (the ledger, the status page, the docs, the README table): lowest
    # first, ties by key; the shipped papers use 1-5, cheap ones first, and 100 follows them
    order=100,
)

# One Figure per output. Its function gets params = config["__KEY__"]["common"] (when the
# section has one) overlaid by config["__KEY__"]["fig1"], plus the global seed. Add
# inputs={"name": Out("step", "name")} when it reads a step's artifact, table=True for a table,
# resources={"quick": Resources(...), "paper": Resources(...)} when it is not cheap.
# Expensive work (training, attacks) is a Step in STEPS = (Step(...),) with its function in a
# steps*.py module (CONTRIBUTING "Adding an expensive step"). Keys of the config section that
# must fit together are checked by a function check_config(section) -> list[str] defined here.
FIGURES = (Figure(name="fig1", func="privrisk.papers.__KEY__.figures:fig1"),)
'''

CLAIMS = '''"""__KEY__'s claims: the paper's one ledger and one small function per claim, each returning
its ledger row.

The figures compute the numbers and call these functions; a rule of
:mod:`privrisk.contract.verdicts` (a statement) or ``LEDGER.quoted`` (a number the paper quotes,
an entry of quoted.yaml) turns the numbers into a status: no comparison is written here or in a
figure (CONTRIBUTING "Where a thing goes inside a paper").
__TESTS__/test_claims.py gives each function numbers where its claim holds and
numbers where it fails.
"""

from __future__ import annotations

import numpy as np

from ...contract import verdicts as V
from ...contract.claims import Claim, Ledger

#: the paper's one ledger (a figure module imports this module as ``paper_claims``)
LEDGER = Ledger("__KEY__")


def prior_at_zero(*, figure: str, eps, bound, prior: float) -> Claim:
    """A statement about an analytic curve, decided by an exact rule: at ε = 0 the bound is the
    prior itself (DP with ε = 0 tells the attacker nothing)."""
    at_zero = float(np.interp(0.0, eps, bound))
    return LEDGER.judged(
        figure=figure,
        claim_id=f"{figure}_eps0",
        claim="at ε = 0 the bound equals the prior",
        # exact_close(values, reference, *, atol=0.0, rtol=0.0, why=""): holds when every value
        # is within atol + rtol·|reference| of the reference (numpy.allclose); `why` is the note
        # of a failure. The other exact rules (analytic numbers): exact_below, exact_above,
        # exact_monotone, exact_all, undecidable; on estimates with an uncertainty: greater,
        # at_least, equivalent, below, monotone, all_of
        verdict=V.exact_close(at_zero, prior, atol=1e-9, why="the bound at ε = 0 is not the prior"),
        ours=f"{at_zero:.6g} at prior {prior:g}",
    )


def odds_at_one(*, eps, bound, prior: float) -> Claim:
    """A number the paper quotes: at ε = 1 the bound's odds are e ≈ 2.718 times the prior odds.
    Its figure, claim, paper value, tolerance and source are the entry ``fig1_odds_eps1`` of
    quoted.yaml (data, not code); the code gives only ``ours`` (and ``se=…``, a Monte Carlo
    standard error, when it has one). ``LEDGER.quoted`` decides it: reproduced when
    |ours − paper_value| <= tolerance (+ 2 se)."""
    b = float(np.interp(1.0, eps, bound))
    # the id is a literal: tests/test_quoted.py matches the ids the code quotes with the file's
    return LEDGER.quoted("fig1_odds_eps1", ours=(b / (1 - b)) / (prior / (1 - prior)))
'''

FIGURES = '''"""__KEY__'s figures: each ``figN(params)`` returns a FigureResult (CONTRIBUTING "Adding a
figure"); ``privrisk new-paper`` wrote Figure 1 as a working example."""

from __future__ import annotations

import pandas as pd

from ...bounds import membership
from ...contract import plotting
from ...contract.figure import FigureResult
from ...core.grids import grid
from . import claims as paper_claims


def fig1(params) -> FigureResult:
    """Positive accuracy bound of membership inference against ε at one prior (Theorem 1)."""
    # params: this figure's config keys (described in schema.yaml) and the global seed
    eps = grid(params["epsilons"])  # a list or a dense grid {min, max, n_points}
    p = params["prior_prob"]
    bound = membership.positive_accuracy_upper(epsilon=eps, p=p)
    fig, ax = plotting.subplots()
    ax.plot(eps, bound, color=plotting.color(0))
    ax.set(xlabel="ε", ylabel="positive accuracy bound")
    return FigureResult(
        # tidy: one row per plotted point (series, x, y; lo, hi where an interval is drawn)
        data=pd.DataFrame({"series": "bound", "x": eps, "y": bound}),
        fig=fig,
        # the figure computes the numbers; claims.py makes the rows
        claims=[
            paper_claims.prior_at_zero(figure="fig1", eps=eps, bound=bound, prior=p),
            paper_claims.odds_at_one(eps=eps, bound=bound, prior=p),
        ],
        # the caption of record, readable without the paper (the docstring is only the title)
        caption=f"Positive accuracy bound at prior {p:g} against ε.",
    )
'''

SCHEMA = """# __KEY__'s config section (`__KEY__:` in __CONFIG__). Every key has a description
# (the contract test checks it; `privrisk docs --write` puts them in docs/config.md). A
# `common:` section holds keys every figure shares (a figure's own section overlays it).
# Shared shapes, as {$ref: "#/$defs/NAME", description: ...}, from the $defs of
# src/privrisk/pipeline/config.schema.yaml:
__SHAPES__
description: "__KEY__: what the paper's section configures (edit its schema.yaml)."
type: object
additionalProperties: false
properties:
  fig1:
    description: "Figure 1: the bound against ε."
    type: object
    additionalProperties: false
    required: [epsilons, prior_prob]
    properties:
      epsilons: {$ref: "#/$defs/epsilons", description: "ε values on the x axis."}
      prior_prob: {$ref: "#/$defs/probability", description: "The prior probability of membership."}
"""

NOTES = """# Choices where the paper is silent

Modelling choices this reproduction makes where the paper does not say (also recorded in the
config and in each figure's provenance); how each claim fares is on the status page, not here.
The docs site shows this file on the paper's page.

Figure 1 is the example `privrisk new-paper` wrote: Theorem 1's bound at one prior, on a grid of
ε that contains 0 and 1, where its two claims read the curve.

<!-- quoted:begin -->
<!-- quoted:end -->
"""

QUOTED = """# __KEY__'s quoted numbers: one entry per number the ledger compares with the paper, keyed by
# claim id (schema: privrisk/contract/quoted.schema.yaml). The code gives ours and the fields the
# entry names under `computed` (field -> how, e.g. `tolerance: from the config`):
# LEDGER.quoted("<claim id>", ours=…) in claims.py; every entry is quoted by the code and every id
# the code quotes has an entry (tests/test_quoted.py). `privrisk docs --write` shows them as a table
# in notes.md. Optional fields: derived, data, note, note_if_differs, standin_note; source.spec.
#
# PLACEHOLDER: the example entry privrisk new-paper wrote. Replace it with the paper's numbers and
# fill each `source` from the paper: `where` its figure, table or section; `page` the page number
# (an integer), or a string starting 'not known:' that says why not.
fig1_odds_eps1:
  figure: fig1
  claim: at ε = 1 the posterior odds are e ≈ 2.718 times the prior odds
  paper_value: 2.718
  tolerance: 0.001  # the quoted digits; the code's se=… adds 2 standard errors
  source:
    where: 'PLACEHOLDER: the figure, table or section of the paper that quotes it'
    page: 'not known: PLACEHOLDER, the page of the paper that quotes it'
"""

#: appended to the config file; no section in config/tiny.yaml or config/paper.yaml is needed
SECTION = """# __KEY__: every key is described in __PACKAGE__/schema.yaml. It needs no
# section in config/tiny.yaml or config/paper.yaml: they are overrides merged over this file
# (tiny.yaml: smaller values for the tests' end-to-end run, where these are slow; paper.yaml:
# the paper's scale, where it differs from this quick one).
__KEY__:
  fig1: {epsilons: {min: 0.0, max: 4.0, n_points: 41}, prior_prob: 0.5}
"""

TEST_CLAIMS = '''"""__KEY__'s claim functions where each claim holds and where it fails (a check that cannot
fail proves nothing), and Figure 1's numbers against the closed form. Fast: no Snakemake."""

from __future__ import annotations

import matplotlib
import numpy as np

from privrisk.papers.__KEY__ import claims, figures

matplotlib.use("Agg")

EPS = np.linspace(0.0, 4.0, 41)


def closed_form(eps, p):
    """Theorem 1's bound, written out: e^ε p / (e^ε p + 1 − p)."""
    return np.exp(eps) * p / (np.exp(eps) * p + 1 - p)


def test_prior_at_zero_holds_and_fails():
    row = claims.prior_at_zero(figure="fig1", eps=EPS, bound=closed_form(EPS, 0.3), prior=0.3)
    assert row.status == "qualitative-ok"
    shifted = closed_form(EPS + 0.5, 0.3)  # starts above the prior: the claim is false
    row = claims.prior_at_zero(figure="fig1", eps=EPS, bound=shifted, prior=0.3)
    assert row.status == "qualitative-fails" and row.note


def test_odds_at_one_reproduces_and_differs():
    row = claims.odds_at_one(eps=EPS, bound=closed_form(EPS, 0.2), prior=0.2)
    assert row.status == "reproduced" and abs(row.ours - np.e) < 1e-7
    doubled = closed_form(2 * EPS, 0.2)  # odds e² times the prior's at ε = 1
    row = claims.odds_at_one(eps=EPS, bound=doubled, prior=0.2)
    assert row.status == "differs"


def test_fig1_plots_the_closed_form_and_makes_its_claims():
    params = {"epsilons": {"min": 0.0, "max": 4.0, "n_points": 41}, "prior_prob": 0.25}
    result = figures.fig1(params)
    np.testing.assert_allclose(result.data.y, closed_form(result.data.x, 0.25), rtol=1e-12)
    assert [c.status for c in result.claims] == ["qualitative-ok", "reproduced"]
'''

TEST_PIPELINE = '''"""__KEY__ end to end at the tiny scale: Snakemake makes every declared output and they meet
the output contract. Slow (it runs Snakemake): pytest __TESTS__ -m "slow or not slow"."""

from __future__ import annotations

import pytest

# `pipeline` is a fixture of tests/conftest.py (take it as an argument); assert_contract is a
# function there (import it)
from tests.conftest import assert_contract

pytestmark = pytest.mark.slow


def test___KEY___tiny_end_to_end(tmp_path, pipeline):
    # pipeline(workdir, *targets, extra_args=(), ...): the real Snakefile in workdir over
    # config/config.yaml + config/tiny.yaml (configfiles=... for others); raises if it fails
    pipeline(tmp_path, "__KEY__")
    # every figure the registry declares has its files, tidy CSV, provenance and claims rows, and
    # the ledger is consistent; returns the paper's rows of results/__KEY__/claims.csv
    ledger = assert_contract(tmp_path, "__KEY__")
    assert dict(zip(ledger.claim_id, ledger.status, strict=True)) == {
        "fig1_eps0": "qualitative-ok",
        "fig1_odds_eps1": "reproduced",
    }
'''

#: file name -> template, for the package and for the tests folder
PACKAGE = {
    "__init__.py": INIT,
    "registry.py": REGISTRY,
    "claims.py": CLAIMS,
    "figures.py": FIGURES,
    "schema.yaml": SCHEMA,
    "quoted.yaml": QUOTED,
    "notes.md": NOTES,
}
TESTS = {"test_claims.py": TEST_CLAIMS, "test_pipeline.py": TEST_PIPELINE}
