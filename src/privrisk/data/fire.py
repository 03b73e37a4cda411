"""San Francisco Fire Department Calls for Service (FIRE), as in Annamalai et al. (USENIX Sec 2024).

Real data: the CSV export of data.sfgov.org dataset nuek-vuh3 at
``data/raw/fire/Fire_Department_Calls_for_Service.csv``, placed by hand or prepared from the
city's export by the ``prepare_fire`` rule (:data:`FIRE`, :func:`convert`). We keep
the 10 categorical columns of the reference preparation, drop rows with a missing value in them,
subsample rows (the file has millions; the BayNet fit needs far fewer), and code each column by
its sorted distinct values in the whole file (pandas category codes). Domain sizes therefore
come from the file; the reference snapshot had the sizes in ``DOMAINS`` and the provenance
records the sizes we obtained.

Stand-in: a Bayesian network with these exact columns and domains (call type drives its group,
priority, ALS unit, disposition and alarms; station area drives battalion and zipcode; zipcode
drives city). The root column Call Type follows the published 2018 call-type shares of the real
dataset (:data:`SF_PUBLISHED`, source next to the numbers); every other column is hand-shaped
with no published source behind it (Call Type Group, Priority, ALS Unit, Disposition, Alarms,
Station Area, Battalion, Zipcode, City).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core import seeds
from .dataset import PREPARE_KEYS, Dataset, Remote, atomic_output
from .tabular import (
    CategoricalTable,
    DataFormatError,
    StandinSpec,
    geometric,
    load_table,
    read_csv_columns,
    sample_standin,
    subsample_rows,
)

NAME = "FIRE"
DEFAULT_PATH = Path("data/raw/fire/Fire_Department_Calls_for_Service.csv")

# Reference domain sizes (fire-domain.json of the reference preparation), in its column order.
DOMAIN_SIZES = {
    "Call Type": 31,
    "Call Final Disposition": 15,
    "City": 9,
    "Zipcode of Incident": 27,
    "Battalion": 12,
    "Station Area": 46,
    "Priority": 9,
    "ALS Unit": 2,
    "Call Type Group": 4,
    "Number of Alarms": 5,
}
COLUMNS = list(DOMAIN_SIZES)
#: rows the FIRE conversion keeps when the block gives no ``prepare_rows``
PREPARE_ROWS = 2_000_000
DOMAINS = list(DOMAIN_SIZES.values())
log = logging.getLogger(__name__)

# Call-type shares of the real dataset for 2018 (one row per response, the rows the reference
# preparation codes). Source: "SF Fire Department service calls: Data analysis for the year 2018"
# (usf-cs360-spring2019.github.io/midterm-the-rad-grads, read offline in the stored-pages corpus):
# Medical Incident 70.3 % (214,580 rows), Alarms 11.7 %, structure + outside fires 10.3 % with
# structure fires 5.9 times as frequent as outside fires.
SF_PUBLISHED = {
    "Medical Incident": 70.3,
    "Alarms": 11.7,
    "Structure Fire": 10.3 * 5.9 / 6.9,
    "Outside Fire": 10.3 / 6.9,
}


def _call_type_base() -> list[float]:
    """Call Type base over its 31 codes: the four published shares on the four most frequent
    codes (codes 0-3 here; the real codes are the alphabetical order of the names, which the
    stand-in does not reproduce), the remaining 7.7 % spread geometrically (ratio 0.8, no source)
    over the other 27 call types."""
    head = list(SF_PUBLISHED.values())
    tail = np.asarray(geometric(31 - len(head), 0.8))
    return head + list(tail / tail.sum() * (100.0 - sum(head)))


STANDIN = StandinSpec(
    parents={
        "Call Type": (),
        "Call Type Group": ("Call Type",),
        "Priority": ("Call Type", "Call Type Group"),
        "ALS Unit": ("Call Type", "Priority"),
        "Call Final Disposition": ("Call Type", "ALS Unit"),
        "Number of Alarms": ("Call Type",),
        "Station Area": (),
        "Battalion": ("Station Area",),
        "Zipcode of Incident": ("Station Area",),
        "City": ("Zipcode of Incident",),
    },
    base={
        "Call Type": _call_type_base(),
        "Call Final Disposition": geometric(15, 0.6),
        "City": geometric(9, 0.25),
        "Zipcode of Incident": geometric(27, 0.9),
        "Battalion": geometric(12, 0.92),
        "Station Area": geometric(46, 0.96),
        "Priority": geometric(9, 0.35, start=2),
        "ALS Unit": [40, 60],
        "Call Type Group": [55, 25, 15, 5],
        "Number of Alarms": geometric(5, 0.03),
    },
    concentration={c: 0.5 for c in COLUMNS}
    | {
        "Battalion": 0.1,
        "Zipcode of Incident": 0.15,
        "City": 0.2,
        "ALS Unit": 0.5,
        "Call Type": 0.3,
    },
)


def _sorted_categories(values: pd.Series) -> list[str]:
    """Distinct values in pandas' category order: numeric order if all are numbers, else text."""
    uniq = pd.unique(values)
    num = pd.to_numeric(pd.Series(uniq), errors="coerce")
    if num.notna().all():
        return [u for _, u in sorted(zip(num, uniq, strict=True))]
    return sorted(uniq)


def load_fire_csv(
    path: str | Path, *, raw_rows: int | None = 200_000, seed: int = 0
) -> CategoricalTable:
    """Parse the FIRE CSV into the 10 coded columns (codes from the whole file, rows subsampled).

    Raises DataFormatError naming the file and column when a column is missing, when no complete
    row remains, or when a column has a single value or more distinct values than plausible for a
    categorical column (a sign of a shifted or corrupt file).
    """
    path = Path(path)
    df = read_csv_columns(path, COLUMNS)
    n_read = len(df)
    df = df.dropna(how="any")
    if len(df) == 0:
        raise DataFormatError(f"{path}: no row has all of the columns {COLUMNS}")
    codes_all = np.empty((len(df), len(COLUMNS)), dtype=np.int64)
    domains = []
    for j, col in enumerate(COLUMNS):
        vals = df[col].str.strip()
        cats = _sorted_categories(vals)
        # A categorical column of the reference preparation has at most 46 values; allow slack
        # for newer snapshots but catch free text or numbers in a shifted column.
        if len(cats) > 4 * max(DOMAINS):
            raise DataFormatError(
                f"{path}: column {col!r} has {len(cats)} distinct values; expected a categorical "
                f"column (reference: {DOMAIN_SIZES[col]} values) — is the file mis-shaped?"
            )
        codes_all[:, j] = pd.Categorical(vals, categories=cats).codes
        domains.append(len(cats))
    keep = subsample_rows(pd.DataFrame({"i": np.arange(len(df))}), raw_rows, seed)["i"].to_numpy()
    return CategoricalTable(
        codes_all[keep],
        COLUMNS,
        domains,
        "real",
        info={
            "file": str(path),
            "rows_read": n_read,
            "rows_complete": int(len(df)),
            "rows_used": int(len(keep)),
            "subsample": raw_rows,
            "domains_vs_reference": {
                c: [d, DOMAIN_SIZES[c]] for c, d in zip(COLUMNS, domains, strict=True)
            },
        },
    )


def standin(n_rows: int, seed: int) -> CategoricalTable:
    codes = sample_standin(COLUMNS, DOMAINS, STANDIN, n_rows, seed)
    return CategoricalTable(
        codes,
        COLUMNS,
        DOMAINS,
        "standin",
        info={"generator": "privrisk.data.fire.STANDIN Bayesian network", "rows": n_rows},
    )


def real_files(block: Mapping[str, Any]) -> list[Path]:
    return [Path(block.get("path", DEFAULT_PATH))]


def load(block: Mapping[str, Any], *, seed: int = 0) -> CategoricalTable:
    """The raw FIRE table for a data block ``{source, path, standin_size, raw_rows}``: the real
    file at ``path`` (``raw_rows`` rows subsampled, null = all) or ``standin_size`` stand-in rows."""
    return load_table(
        "fire",
        block,
        seed=seed,
        read_real=load_fire_csv,
        standin=standin,
        default_path=DEFAULT_PATH,
    )


# --- the dataset: download table, conversion, description ---


def convert(
    archives: Mapping[str, Path],
    block,
    outputs: list[Path],
    *,
    what: str,
    chunk_rows: int = 200_000,
) -> None:
    """The 10 columns of the city's export, complete rows only, uniformly sub-sampled.

    The export has millions of rows and dozens of columns; it is streamed in chunks of
    ``chunk_rows`` and every complete row gets a seeded uniform key; the ``prepare_rows`` rows with
    the smallest keys are kept (a uniform sample without replacement, the same for the same file),
    written in file order. ``prepare_rows: null`` keeps every complete row.
    """
    (out,) = outputs
    if out.exists():
        return
    (archive,) = archives.values()
    keep = block.get("prepare_rows", PREPARE_ROWS)
    header = list(pd.read_csv(archive, nrows=0).columns)
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise ValueError(
            f"{what}: {archive} lacks the columns {missing}; the export has {header[:12]}…"
        )
    rng = seeds.rng(0, "fire", "prepare")
    kept: pd.DataFrame | None = None
    n_read = n_complete = 0
    for chunk in pd.read_csv(
        archive,
        usecols=COLUMNS,
        dtype=str,
        chunksize=chunk_rows,
        keep_default_na=False,
        na_values=[""],
    ):
        n_read += len(chunk)
        chunk = chunk.dropna(how="any")[COLUMNS]
        chunk = chunk.assign(
            _row=np.arange(n_complete, n_complete + len(chunk)), _key=rng.random(len(chunk))
        )
        n_complete += len(chunk)
        kept = chunk if kept is None else pd.concat([kept, chunk])
        if keep is not None and len(kept) > keep:
            kept = kept.nsmallest(keep, "_key")
    if kept is None or len(kept) == 0:
        raise ValueError(f"{what}: {archive} has no row with all of {COLUMNS}")
    with atomic_output(out) as part:
        kept.sort_values("_row")[COLUMNS].to_csv(part, index=False)
    log.info(
        "%s: %d rows read, %d complete, %d kept in %s", what, n_read, n_complete, len(kept), out
    )


FIRE = Dataset(
    name="fire",
    real_files=real_files,
    fallback="standin",
    obtain=(
        "Export 'Fire Department Calls for Service' (data.sfgov.org, dataset nuek-vuh3) as CSV "
        "to swanberg2025.data.fire.path."
    ),
    # the city's export of dataset nuek-vuh3 grows daily: no fixed checksum can exist
    remotes=(
        Remote(
            "nuek-vuh3.csv",
            "https://data.sfgov.org/api/views/nuek-vuh3/rows.csv?accessType=DOWNLOAD",
            None,
            "several GB, growing",
        ),
    ),
    convert=convert,
    prepare_keys=(*PREPARE_KEYS, "prepare_rows"),
    licence="Open Data Commons PDDL (DataSF)",
)
