# The one loop that turns every paper's declarations (privrisk.papers.<key>.registry: STEPS and
# FIGURES) into rules: one rule per step, one per figure. Paths, params, code and data inputs all
# come from privrisk.workflow, so nothing about a particular paper is written here.


for _paper in wf.paper_keys():
    _reg = wf.load_registry(_paper, config)
    REGISTRIES[_paper] = _reg
    PAPER_TARGETS[_paper] = _reg.targets()

    for _decl in (*_reg.steps, *_reg.figures):
        _is_step = isinstance(_decl, wf.Step)
        _res = _decl.resources_for(SCALE)
        # the steps it is made from: their code, data and params are this rule's too (an
        # interrupted rerun of one of them must leave this rule out of date: Registry.upstream)
        _up = _reg.upstream(_decl)

        rule:
            name:
                _reg.rule_name(_decl)
            input:
                **_reg.inputs(_decl),
                code=code(_decl.func, *(s.func for s in _up)),
                data=lineage_data(_paper, (_decl, *_up)),
            output:
                **(
                    _reg.step_outputs(_decl)
                    if _is_step
                    else report_outputs(_paper, _decl.name, _decl.table)
                ),
            log:
                wf.log_path(_paper, _decl.name),
            benchmark:
                wf.benchmark_path(_paper, _decl.name)
            conda:
                "../envs/privrisk.yaml"
            threads: _res.threads
            resources:
                mem_mb=_res.mem_mb,
                runtime=_res.runtime,
                gpu=_res.gpu,
            params:
                **lineage_params(_reg, _up),
                func=_decl.func,
                cfg=wf.params(config, _paper, _decl),
                paper=_paper,
                name=_decl.name,
                # (not a conditional script path: Snakemake evaluates `script:` at run time, when
                # the loop variables hold the last declaration's values)
                kind="step" if _is_step else "figure",
                # the generic report caption shows it when the figure has no caption file
                caption="" if _is_step else wf.figure_caption(_decl.func),
            script:
                "../scripts/run.py"
