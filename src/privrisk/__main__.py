"""``python -m privrisk …`` runs the ``privrisk`` command.

The command module is loaded by a call, not an import statement: nothing in the library may
import the pipeline layer (``tests/test_layers.py``), and this file is not part of it.
"""

import importlib

raise SystemExit(importlib.import_module("privrisk.pipeline.cli").main())
