"""The pipeline layer: what runs the papers and checks their outputs, above everything else.

- ``workflow``       Snakemake's side: registries, rule inputs/outputs, code inputs of each rule.
- ``config``         config loading and schema validation (``config_checks``: checks beyond it).
- ``cli``            the ``privrisk`` command.
- ``docs``           every generated doc (``privrisk docs --write`` / ``--check``).
- ``completeness``   checks that a run's outputs are all there and current.
- ``run_summary``    the end-of-run summary; ``plan`` turns ledger plans into a config overlay.

Nothing below this layer imports it (``.importlinter``, ``tests/test_layers.py``): no rule's code
inputs include a file of this package, so an edit here reruns no job.
"""
