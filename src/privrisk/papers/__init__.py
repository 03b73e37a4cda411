"""Per-paper composition: one module (or sub-package) per paper key, one function per figure.

A figure function takes its config section (``params``; and ``inputs`` if its rule has inputs)
and returns a :class:`privrisk.figure.FigureResult`. It composes library concepts (bounds,
accounting, models, attacks); it does not re-implement them.
"""
