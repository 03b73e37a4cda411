"""Thudi, Shumailov, Boenisch & Papernot, "Bounding Membership Inference" (ICLR 2022 submission).

``figures``: every figure and Table 1 (all analytic); ``registry``: what the pipeline makes.
"""
