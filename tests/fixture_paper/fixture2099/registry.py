"""What fixture2099 makes: one analytic figure (the example ``privrisk new-paper`` wrote)."""

from ...core.declarations import Figure, Paper

# The docs' paper table (README), the paper's page and the status page show these; the code
# never reads them, so editing them reruns no job.
PAPER = Paper(
    title="fixture2099: the paper's title (edit its registry.py)",
    authors="the paper's authors",
    venue="where it appeared",
    # version="which version is reproduced (e.g. arXiv v2) when there are several",
    summary="one analytic figure",  # what it needs, in a few words (the README's paper table)
    # the place in every listing (the ledger, the status page, the docs, the README table): lowest
    # first, ties by key; the shipped papers use 1-5, cheap ones first, and 100 follows them
    order=100,
)

# One Figure per output. Its function gets params = config["fixture2099"]["common"] (when the
# section has one) overlaid by config["fixture2099"]["fig1"], plus the global seed. Add
# inputs={"name": Out("step", "name")} when it reads a step's artifact, table=True for a table,
# resources={"quick": Resources(...), "paper": Resources(...)} when it is not cheap.
# Expensive work (training, attacks) is a Step in STEPS = (Step(...),) with its function in a
# steps*.py module (CONTRIBUTING "Adding an expensive step"). Keys of the config section that
# must fit together are checked by a function check_config(section) -> list[str] defined here.
FIGURES = (Figure(name="fig1", func="privrisk.papers.fixture2099.figures:fig1"),)
