"""ρ-zCDP as an RDP curve (Bun & Steinke 2016): ε_α = ρα at every order α > 1."""

from __future__ import annotations

import math

import numpy as np

#: orders at which a zCDP guarantee (RDP ρα at every α > 1) is converted
ZCDP_ORDERS = np.r_[np.linspace(1.01, 2.0, 100), np.geomspace(2.0, 1e5, 400)[1:]]


def zcdp_rdp(*, rho: float) -> tuple[np.ndarray, np.ndarray]:
    """ρ-zCDP as an RDP curve: ε_α = ρα at the orders :data:`ZCDP_ORDERS` (Bun & Steinke 2016)."""
    if not (rho >= 0 and math.isfinite(rho)):
        raise ValueError(f"rho must be >= 0 and finite, got {rho}")
    return ZCDP_ORDERS, rho * ZCDP_ORDERS
