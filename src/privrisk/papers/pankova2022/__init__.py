"""Pankova & Laud, "Interpreting ε of DP in terms of advantage in guessing or approximating
sensitive attributes" (CSF 2022; reproduced from the talk slides).

``figures``: every figure and table (analytic, plus seconds of Monte Carlo); ``registry``: what
the pipeline makes.
"""
