"""The bottom layer: what every other part of privrisk may import and what imports nothing else.

- ``grids``         :func:`~privrisk.core.grids.grid` (a list or a dense ``{min, max, n_points}``
                    grid), :func:`~privrisk.core.grids.deep_update`, :func:`~privrisk.core.grids.eps_tag`,
                    :class:`~privrisk.core.grids.ConfigError`;
- ``declarations``  the types a paper declares its work with (:class:`Step`, :class:`Figure`,
                    :class:`Out`, :class:`Resources`, :class:`Registry`);
- ``paths``         where every artifact, figure file, log and benchmark lives;
- ``seeds``         the one way to derive random streams from the config's seed;
- ``device``        the one torch device setting.

Layers (imports point down only; ``.importlinter`` checks it in CI): core <- concepts
(accounting, mechanisms, bounds, models, training, attacks, estimators, priors, data) <- contract
(claims, verdicts, figure, plotting, provenance, joblog) <- papers.<key> and explain (independent
of each other) <- pipeline (workflow, config, config_checks, cli and ``workflow/``).
"""
