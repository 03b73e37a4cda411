"""Estimators of membership privacy (MACE) and their confidence intervals."""
