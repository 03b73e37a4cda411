"""The atlas data file: schema-valid, at least 30 deployments, each with a source; the validator's
one-line errors; and the conversions the publishers used, pinned against dp-accounting."""

import copy
import math

import numpy as np
import pytest
import yaml
from dp_accounting.rdp import rdp_privacy_accountant as rdp

from privrisk.explain.atlas import adapter, conversions, lint, schema

ATLAS = schema.load()
RAW = yaml.safe_load(schema.DATA.read_text(encoding="utf-8"))


def test_enough_entries_each_with_a_source():
    assert len(ATLAS.entries) >= 30
    assert sum(e.published for e in ATLAS.entries) >= 30
    assert len(ATLAS.commit) == 40 and ATLAS.licence == "MIT"
    for e in ATLAS.entries:
        assert e.urls and (e.registry is None or e.registry.startswith("deployments/"))
        assert e.published or e.not_published


def test_the_issue_names_are_there():
    keys = {e.key for e in ATLAS.entries}
    for key in (
        "census-dhc-2020",
        "census-redistricting-2020",
        "google-mobility",
        "gboard-es-nwp",
        "vaultgemma-1b",
        "apple-emoji",
        "linkedin-hiring",
        "microsoft-telemetry",
        "meta-urls",
        "wikimedia-pageviews-current",
    ):
        assert key in keys


def test_adjacency_is_never_guessed():
    # a stated adjacency carries the quote that states it; the rest are unknown
    for e in ATLAS.entries:
        assert (e.adjacency == "unknown") == (not e.adjacency_quote)
    assert ATLAS.entry("census-dhc-2020").adjacency == "replace-one"


def _broken(mutate):
    doc = copy.deepcopy(RAW)
    mutate(doc)
    with pytest.raises(schema.AtlasError) as err:
        schema.validate(doc)
    msg = str(err.value)
    assert "\n" not in msg
    return msg


@pytest.mark.parametrize(
    ("mutate", "says"),
    [
        (lambda d: d["entries"][0].pop("unit"), "missing field(s) unit"),
        (lambda d: d["entries"][0].update(adjacency="bounded"), "adjacency must be one of"),
        (lambda d: d["entries"][1].update(adjacency_quote=None, adjacency="add-remove"), "needs"),
        (lambda d: d["entries"][0]["parameters"][0].update(rho=-1), "rho must be a positive"),
        (lambda d: d["entries"][0]["parameters"][1].update(delta=1.5), "delta must be below 1"),
        (lambda d: d["entries"][0].update(parameters=[]), "no parameters"),
        (lambda d: d["entries"][0].update(surprise=1), "unknown field(s) surprise"),
        (lambda d: d["entries"].append(copy.deepcopy(d["entries"][0])), "appears twice"),
        (lambda d: d["registry"].update(commit="abc"), "40 hex digits"),
        (lambda d: d["entries"][0]["source"].update(urls=["ftp://x"]), "https://"),
    ],
)
def test_bad_data_is_one_line_naming_the_entry(mutate, says):
    msg = _broken(mutate)
    assert says in msg


def test_bad_file(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text("entries: [\n")
    with pytest.raises(schema.AtlasError, match="not valid YAML"):
        schema.load(p)
    with pytest.raises(schema.AtlasError, match="cannot read"):
        schema.load(tmp_path / "missing.yaml")


# --- conversions -----------------------------------------------------------------------------------


def _dpa(rho, delta):
    orders = np.linspace(1.01, 400, 40000)
    return rdp.compute_epsilon(orders, rho * orders, delta)[0]


@pytest.mark.parametrize(
    ("rho", "simple", "tight"),
    [(4.96, 26.334, 25.413), (7.70, 34.331, 33.287), (2.56, 17.915, 17.159), (0.07, 2.609, 2.387)],
)
def test_census_conversions_pinned(rho, simple, tight):
    # the simple bound in closed form; the tight one against dp-accounting's RDP conversion
    assert adapter.zcdp_simple(rho, 1e-10) == pytest.approx(simple, abs=5e-4)
    assert adapter.zcdp_tight(rho, 1e-10) == pytest.approx(tight, abs=5e-4)
    assert adapter.zcdp_tight(rho, 1e-10) == pytest.approx(_dpa(rho, 1e-10), abs=2e-3)


def test_gaussian_conversion_closed_form():
    # μ-GDP: δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) at the returned ε is the δ asked for
    from scipy.stats import norm

    mu = math.sqrt(2 * 0.0052)
    eps = adapter.gdp_epsilon(mu, 1e-5)
    d = norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)
    assert d == pytest.approx(1e-5, rel=1e-6)


def _verdicts(key):
    return {f.label: f for f in conversions.findings(ATLAS.entry(key))}


def test_which_conversion_the_census_used():
    dhc = _verdicts("census-dhc-2020")
    assert dhc["housing units"].reproduced_by == ("simple",)
    assert any(c.exact for c in dhc["housing units"].checks)
    # 26.334 rounds to 26.33, not 26.34: only a ρ rounded from 4.962 gives it
    assert dhc["persons"].reproduced_by == ("simple",)
    assert not any(c.exact for c in dhc["persons"].checks)
    red = _verdicts("census-redistricting-2020")
    assert red["persons"].reproduced_by == ("tight",)
    units = red["housing units"]
    # at the printed ρ = 0.07 none gives 2.47 (2.61 simple, 2.39 tight)
    assert not any(c.exact for c in units.checks)
    by = {c.conversion: c for c in units.checks}
    assert by["simple"].value == pytest.approx(2.609, abs=1e-3)
    assert by["tight"].value == pytest.approx(2.387, abs=1e-3)
    assert by["tight"].implied == pytest.approx(0.0747, abs=1e-4)
    assert "none at the printed value" in units.verdict


def test_meta_and_gboard_conversions():
    meta = _verdicts("meta-urls")
    assert meta["user, all actions"].reproduced_by == ("gdp",)
    assert meta["user, one action type"].reproduced_by == ("gaussian",)
    assert _verdicts("gboard-es-nwp")["gboard-es-nwp"].reproduced_by == ("tight",)


def test_lints():
    found = {(x.key, x.kind) for x in lint.lints(ATLAS)}
    assert ("apple-photos-scenes", "pure-with-delta") in found
    assert ("uber-flex", "formula-delta") in found
    assert ("census-dhc-2020", "split") in found  # 4.96 + 7.70 = 12.66, not 15.29
    assert ("census-redistricting-2020", "split") not in found  # 2.56 + 0.07 = 2.63
    assert ("google-mobility", "split") not in found  # 1.76 + 0.44 + 0.44
    assert ("israel-births-2014", "split") not in found  # 2 × (4 + 0.99)
    assert ("google-mobility", "no-horizon") not in found  # a stated horizon
    assert ("apple-emoji", "no-horizon") in found
    assert ("meta-urls", "unit") in found
    assert ("census-redistricting-2020", "conversion") in found
