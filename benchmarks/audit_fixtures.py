"""The audit's bug fixtures (issue 48): every DP-SGD bug refuted, every honest control consistent,
the project's own DP-SGD audited at ε ∈ {1, 4, 10}; prints the tables and the CPU time.

    python benchmarks/audit_fixtures.py                          # print
    python benchmarks/audit_fixtures.py --write-docs docs/audit.md  # and write them into the doc

The work is :func:`privrisk.audit.fixtures.main` (also ``python -m privrisk.audit.fixtures``).
"""

from __future__ import annotations

import sys

from privrisk.audit.fixtures import main

if __name__ == "__main__":
    sys.exit(main())
