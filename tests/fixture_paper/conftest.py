"""The fixture paper's own tests (``tests/``, as ``privrisk new-paper`` wrote them) are not collected
here: they import ``privrisk.papers.fixture2099``, which exists only where ``PRIVRISK_PAPERS`` names
this folder, and their end-to-end run reads the config section from ``config/config.yaml``.
``tests/test_new_paper.py`` runs them: the claim tests in place, all of them in a temporary
checkout where ``privrisk new-paper`` wrote the paper into ``src/privrisk/papers/``."""

collect_ignore = ["tests"]
