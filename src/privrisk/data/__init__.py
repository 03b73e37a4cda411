"""Datasets: one loader per dataset (real path + bundled sample or stand-in), per design.md §6."""
