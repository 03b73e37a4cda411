"""ACS (American Community Survey) person records as in Annamalai et al. (USENIX Sec 2024).

Real data: folktables' ``ACSDataSource(survey_year='2018', horizon='1-Year', survey='person')``
for California with the ``ACSEmployment`` features. folktables stores the PUMS person file as
``<root>/2018/1-Year/psam_p06.csv``; we parse that CSV directly (folktables itself is optional)
and apply the same steps: missing values -> -1 (ACSEmployment's postprocess), ``AGEP // 10``,
then every column to category codes. The value lists below are fixed (not taken from the file),
so codes do not depend on which values a sample contains; they reproduce the domain sizes of the
reference preparation (``acs-domain.json``: 16 attributes).

Stand-in (no internet): a Bayesian network with these exact columns and domains, a plausible
structure (age drives marital status, relationship, schooling, military service; disability
columns depend on each other and on age; race drives nativity and ancestry). The root columns
AGEP, SEX and RAC1P follow published California marginals exactly (:data:`CA_PUBLISHED`, source
next to each number); every other column is hand-shaped around a plausible base with no
published source behind it (SCHL, MAR, RELP, ESP, CIT, MIG, ANC, MIL, NATIVITY, DIS, DEAR, DEYE,
DREM), and a child column's marginal only follows its base approximately (its rows vary with
the parents).
"""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .dataset import Dataset, Remote, atomic_output
from .tabular import (
    CategoricalTable,
    DataFormatError,
    StandinSpec,
    csv_header,
    encode_fixed,
    load_table,
    read_csv_columns,
    sample_standin,
    subsample_rows,
)

NAME = "ACS"
DEFAULT_PATH = Path("data/raw/acs/2018/1-Year/psam_p06.csv")
STATE_FIPS_CA = 6

# Column -> the values (after NaN -> -1 and AGEP // 10) in code order; order as acs-domain.json.
VALUES: dict[str, list[int]] = {
    "MIG": [-1, 1, 2, 3],
    "RAC1P": list(range(1, 10)),
    "CIT": list(range(1, 6)),
    "RELP": list(range(0, 18)),
    "ESP": [-1, *range(1, 9)],
    "DIS": [1, 2],
    "SCHL": [-1, *range(1, 25)],
    "DEYE": [1, 2],
    "MAR": list(range(1, 6)),
    "ANC": [1, 2, 3, 4, 8],
    "SEX": [1, 2],
    "MIL": [-1, 1, 2, 3, 4],
    "NATIVITY": [1, 2],
    "DREM": [-1, 1, 2],
    "DEAR": [1, 2],
    "AGEP": list(range(0, 10)),
}
COLUMNS = list(VALUES)
DOMAINS = [len(v) for v in VALUES.values()]

# Published California population shares (percent) behind the stand-in's root columns.
# Source: kpfp.org "Summary Data for State: California" (demographic data page, read offline in
# the stored-pages corpus; a 2020-2024 vintage — not the 2018 ACS the paper used, which was not
# available here). Race there follows the 2020 census coding (large "Some Other Race" and
# "2+ Races" shares), so RAC1P is less White-alone than the 2018 file would be.
CA_PUBLISHED = {
    "age_groups": {  # (first age, last age): percent
        (0, 4): 5.30,
        (5, 9): 5.57,
        (10, 14): 6.18,
        (15, 17): 3.92,
        (18, 20): 4.29,
        (21, 24): 5.38,
        (25, 34): 14.13,
        (35, 44): 13.88,
        (45, 54): 12.42,
        (55, 64): 12.19,
        (65, 74): 9.79,
        (75, 84): 5.09,
        (85, 94): 1.85,  # published as "85+"; spread over 85-94 (no 90+ share known)
    },
    "sex": {"Male": 49.40, "Female": 50.60},
    "race": {
        "White": 39.00,
        "Black/African American": 5.65,
        "American Indian/Alaskan Native": 1.64,
        "Asian": 15.93,
        "Native Hawaiian/Pacific Islander": 0.40,
        "Some Other Race": 22.11,
        "2+ Races": 15.25,
    },
}


def _age_deciles(groups: dict) -> list[float]:
    """AGEP // 10 shares from published age groups, each group spread evenly over its years
    (the groups straddle decades: e.g. 25-34 gives half to the 20s and half to the 30s)."""
    out = [0.0] * 10
    for (lo, hi), pct in groups.items():
        for age in range(lo, hi + 1):
            out[min(age // 10, 9)] += pct / (hi - lo + 1)
    return out


def _race_codes(race: dict) -> list[float]:
    """RAC1P codes 1-9 from the published groups. The AIAN share is split over codes 3/4/5
    (American Indian alone / Alaska Native alone / AIAN tribes specified) in the former stand-in's
    proportions 0.7 : 0.05 : 0.2 — no published split was available."""
    aian = race["American Indian/Alaskan Native"]
    return [
        race["White"],
        race["Black/African American"],
        aian * 0.7 / 0.95,
        aian * 0.05 / 0.95,
        aian * 0.2 / 0.95,
        race["Asian"],
        race["Native Hawaiian/Pacific Islander"],
        race["Some Other Race"],
        race["2+ Races"],
    ]


_SCHL = [
    3.5,
    1.5,
    1.5,
    1.5,
    1.5,
    1.2,
    1.2,
    1.2,
    1.2,
    1.2,
    1.3,
    1.3,
    1.4,
    1.4,
    1.5,
    1.8,
    20.0,
    3.0,
    7.0,
    9.0,
    7.5,
    16.0,
    6.0,
    2.0,
    1.5,
]
STANDIN = StandinSpec(
    parents={
        "AGEP": (),
        "SEX": (),
        "RAC1P": (),
        "MAR": ("AGEP",),
        "RELP": ("AGEP", "MAR"),
        "SCHL": ("AGEP", "RELP"),
        "ESP": ("AGEP", "RELP"),
        "MIL": ("AGEP", "SEX"),
        "DIS": ("AGEP",),
        "DEAR": ("AGEP", "DIS"),
        "DEYE": ("DIS", "DEAR"),
        "DREM": ("AGEP", "DIS"),
        "NATIVITY": ("RAC1P",),
        "CIT": ("NATIVITY", "AGEP"),
        "ANC": ("NATIVITY", "RAC1P"),
        "MIG": ("AGEP", "RELP"),
    },
    base={
        "MIG": [1, 86, 1, 12],
        "RAC1P": _race_codes(CA_PUBLISHED["race"]),
        "CIT": [60, 0.5, 1, 20, 18],
        "RELP": [35, 17, 25, 3, 1, 2, 2, 1.5, 1, 2, 2.5, 2, 1.5, 1, 0.5, 1, 1, 0.5],
        "ESP": [80, 6, 3, 4, 1, 2, 1, 2, 1],
        "DIS": [89, 11],
        "SCHL": _SCHL,
        "DEYE": [2, 98],
        "MAR": [40, 5, 9, 2, 44],
        "ANC": [50, 10, 5, 30, 5],
        "SEX": [
            CA_PUBLISHED["sex"]["Male"],
            CA_PUBLISHED["sex"]["Female"],
        ],  # codes: SEX 1 = male, 2 = female
        "MIL": [20, 0.5, 4, 1, 74.5],
        "NATIVITY": [73, 27],
        "DREM": [5, 4, 91],
        "DEAR": [3, 97],
        "AGEP": _age_deciles(CA_PUBLISHED["age_groups"]),
    },
    # Small concentration = conditional rows far from the base = strong dependence on parents.
    concentration={c: 0.6 for c in COLUMNS} | {"MAR": 0.5, "RELP": 0.4, "SCHL": 0.5, "MIL": 1.5},
)


def load_pums_csv(
    path: str | Path, *, raw_rows: int | None = None, seed: int = 0
) -> CategoricalTable:
    """Parse a PUMS person CSV (folktables' file) into the 16 coded ACSEmployment columns.

    Rows of other states are dropped when an ``ST`` column is present. ``raw_rows`` subsamples
    rows (seeded) before coding. Raises DataFormatError naming the file and column on a missing
    column, a non-numeric value or a value outside the column's domain.
    """
    path = Path(path)
    header = csv_header(path)
    cols = COLUMNS + (["ST"] if "ST" in header else [])
    df = read_csv_columns(path, cols)
    df.index += 2  # each row's line in the file (the header is line 1), for the messages
    if "ST" in df:
        st = pd.to_numeric(df["ST"], errors="coerce")
        df = df[st == STATE_FIPS_CA]
    if len(df) == 0:
        raise DataFormatError(f"{path}: no California (ST = 6) person records")
    df = subsample_rows(df, raw_rows, seed)
    codes = np.empty((len(df), len(COLUMNS)), dtype=np.int64)
    for j, col in enumerate(COLUMNS):
        num = pd.to_numeric(df[col].str.strip(), errors="coerce")
        blank = df[col].isna() | (df[col].str.strip() == "")
        bad = num.isna() & ~blank
        if bad.any():
            ex = ", ".join(repr(v) for v in df[col][bad].head(3))
            raise DataFormatError(f"{path}: column {col!r} has non-numeric value(s) ({ex})")
        # A blank cell is PUMS's "not applicable" (ACSEmployment's postprocess codes it -1), but
        # only where the column has such cases; elsewhere it is a damaged file, said as blank
        # (not as an unknown value -1, which no cell of the file holds).
        if blank.any() and (col == "AGEP" or -1 not in VALUES[col]):
            rows = ", ".join(str(int(i)) for i in df.index[blank][:3])
            raise DataFormatError(
                f"{path}: column {col!r} has {int(blank.sum())} blank cell(s) (line(s) {rows}"
                f"{', …' if blank.sum() > 3 else ''}); every person record has a {col}"
            )
        vals = num.fillna(-1)  # ACSEmployment postprocess: np.nan_to_num(x, -1)
        if (vals != np.round(vals)).any():
            raise DataFormatError(f"{path}: column {col!r} has non-integer values")
        vals = vals.astype(np.int64)
        if col == "AGEP":
            if (vals < 0).any():
                raise DataFormatError(f"{path}: column 'AGEP' has negative ages")
            vals = vals // 10
        codes[:, j] = encode_fixed(vals, VALUES[col], path=path, column=col)
    return CategoricalTable(
        codes,
        COLUMNS,
        DOMAINS,
        "real",
        info={"file": str(path), "rows_used": int(len(df)), "subsample": raw_rows},
    )


def standin(n_rows: int, seed: int) -> CategoricalTable:
    """A "raw" ACS-like table sampled from the stand-in network (same columns and domains)."""
    codes = sample_standin(COLUMNS, DOMAINS, STANDIN, n_rows, seed)
    return CategoricalTable(
        codes,
        COLUMNS,
        DOMAINS,
        "standin",
        info={"generator": "privrisk.data.acs.STANDIN Bayesian network", "rows": n_rows},
    )


def real_files(block: Mapping[str, Any]) -> list[Path]:
    return [Path(block.get("path", DEFAULT_PATH))]


def load(block: Mapping[str, Any], *, seed: int = 0) -> CategoricalTable:
    """The raw ACS table for a data block ``{source, path, standin_size, raw_rows}``: the real
    file at ``path`` (``raw_rows`` rows subsampled, null = all) or ``standin_size`` stand-in rows."""
    return load_table(
        "acs", block, seed=seed, read_real=load_pums_csv, standin=standin, default_path=DEFAULT_PATH
    )


# --- the dataset: download table, conversion, description ---


def convert(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Extract folktables' person file (``psam_p06.csv``) from the Census zip; check its columns."""
    (out,) = outputs
    if out.exists():
        return
    (archive,) = archives.values()
    with zipfile.ZipFile(archive) as zf:
        csvs = [n for n in zf.namelist() if n.lower().endswith(".csv")]
        if len(csvs) != 1:
            raise ValueError(
                f"{what}: {archive} holds {csvs or 'no'} CSV files; expected psam_p06.csv only"
            )
        with atomic_output(out) as part:
            with zf.open(csvs[0]) as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            header = list(pd.read_csv(part, nrows=0).columns)
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise ValueError(
                    f"{what}: {archive}:{csvs[0]} lacks the ACSEmployment columns {missing}"
                )


ACS = Dataset(
    name="acs",
    real_files=real_files,
    fallback="standin",
    obtain=(
        "Download it once with folktables: ACSDataSource(survey_year='2018', horizon='1-Year', "
        "survey='person', root_dir='data/raw/acs').get_data(states=['CA'], download=True), and "
        "set swanberg2025.data.acs.path to the psam_p06.csv it writes."
    ),
    # folktables' URL for 2018 1-Year California persons; the Census publishes no checksum
    remotes=(
        Remote(
            "csv_pca.zip",
            "https://www2.census.gov/programs-surveys/acs/data/pums/2018/1-Year/csv_pca.zip",
            None,
            "about 80 MB (psam_p06.csv about 600 MB)",
        ),
    ),
    convert=convert,
    licence="US Census Bureau public data (US government work, public domain)",
)
