"""What the fixture paper makes: one analytic figure."""

from ...core.declarations import Figure, Paper

PAPER = Paper(
    title="A fixture paper",
    authors="The privrisk tests",
    venue="tests/fixture_paper",
    summary="one analytic figure, one claim",
    order=1000,
)

FIGURES = (Figure(name="fig1", func="privrisk.papers.fixture2099.figures:fig1"),)
