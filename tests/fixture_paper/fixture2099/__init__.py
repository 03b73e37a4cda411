"""fixture2099: replace with the paper's authors, "title" (venue), and what this package holds.

``figures``: the figures; ``claims``: the paper's ledger and one function per claim; ``registry``:
what the pipeline makes. Written by ``privrisk new-paper fixture2099``: replace the example.
"""
