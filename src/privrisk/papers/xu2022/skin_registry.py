"""xu2022, the skin-lesion half (spec §7–§11): Figures 1b, 1c, 2b, 4a, 4b, 7, 8.

Declared apart from the image-GAN half so the two can grow independently;
:mod:`.registry` appends these declarations to its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...workflow import Figure, Step


def skin_steps(section: Mapping[str, Any]) -> list[Step]:
    return []


def skin_figures(section: Mapping[str, Any]) -> list[Figure]:
    return []
