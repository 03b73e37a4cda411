"""Lowy, Li, Liu, Koike-Akino, Parsons & Wang, "Why does differential privacy with large ε
defend against practical membership inference attacks?" (arXiv 2402.09540).

``exponential``: Figures 1–3 (exponential mechanism, exact Proposition 9); ``gaussian``:
Figures 4–6 in both readings (Gaussian mechanism, Proposition 12's bound); ``common``: the
paper's sweep, table, plot and claims helpers; ``registry``: what the pipeline makes. Every
figure is cheap (under a minute at T = 100), so there are no steps.
"""
