# The one loop that turns every paper's declarations (privrisk.papers.<key>.registry: STEPS and
# FIGURES) into rules: one rule per step, one per figure, and for a step declaring Shards with
# `runs_per_job` below its run count one rule per shard plus the pooling rule that writes the
# step's own outputs (privrisk.pipeline.workflow.jobs). Paths, params, code and data inputs all come
# from privrisk.pipeline.workflow, so nothing about a particular paper is written here.
#
# With `--cache` (and SNAKEMAKE_OUTPUT_CACHE set: docs/running.md) every step, shard and pool rule
# is eligible for Snakemake's between-workflow output cache: a second checkout of the same commit
# fetches the trained models and attack results instead of recomputing them. Snakemake keys an
# entry by run.py's source, the rule's params, the checksums of the inputs no job writes (the
# `code` library files and the raw `data` files) and, recursively, the keys of the jobs upstream,
# so editing the code or a parameter misses the cache. Figures are not cached: they take seconds.
# Snakemake refuses a cached rule with a benchmark (a fetched output has no time to record), so a
# cached run writes no benchmarks; the `.sha256` sidecars become declared outputs, so that they
# travel with the files they vouch for. Without --cache, CI's default, nothing here changes.
_CACHED = workflow.workflow_settings.cache is not None


for _paper in wf.paper_keys():
    _reg = wf.load_registry(_paper, config)
    REGISTRIES[_paper] = _reg
    PAPER_TARGETS[_paper] = _reg.targets()

    for _job in wf.jobs(_reg, config, SCALE):
        _is_figure = _job.kind == "figure"
        _cache = _CACHED and not _is_figure
        # the steps it is made from: their code, data and params are this rule's too (an
        # interrupted rerun of one of them must leave this rule out of date: Registry.upstream)
        _up = _reg.upstream(_job.decl)

        rule:
            name:
                _job.rule
            input:
                **_job.inputs,
                # a shard's or pool's code is its step's too
                code=code(
                    *dict.fromkeys((_job.func, _job.decl.func, *(s.func for s in _up)))
                ),
                data=lineage_data(_paper, (_job.decl, *_up)),
            output:
                **(
                    report_outputs(_paper, _job.name, _job.decl.table)
                    if _is_figure
                    else _job.outputs
                ),
                # cached, a step's digest sidecars (written by run.py beside each output) are
                # outputs too: a step fetched from the cache arrives with them, not `unverified`
                **(
                    {f"sidecar__{k}": f"{v}.sha256" for k, v in _job.outputs.items()}
                    if _cache
                    else {}
                ),
            log:
                _job.log,
            benchmark:
                _job.benchmark
            cache: _cache
            # steps before figures, and a step that other steps read first (workflow.Job)
            priority: _job.priority
            conda:
                "../envs/privrisk.yaml"
            threads: _job.resources.threads
            resources:
                mem_mb=_job.resources.mem_mb,
                runtime=_job.resources.runtime,
                gpu=_job.resources.gpu,
            params:
                **lineage_params(_reg, _up),
                func=_job.func,
                cfg=_job.params,
                paper=_paper,
                name=_job.name,
                # step, shard, pool or figure (not a conditional script path: Snakemake evaluates
                # `script:` at run time, when the loop variables hold the last job's values)
                kind=_job.kind,
                # the generic report caption shows it when the figure has no caption file
                caption=wf.figure_caption(_job.func) if _is_figure else "",
            script:
                "../scripts/run.py"

        if _cache:
            # no public way to leave a directive out of one rule of a loop: drop the benchmark
            # again before Snakemake checks the cached rules (Workflow.check, after parsing)
            workflow.get_rule(_job.rule)._benchmark = None
