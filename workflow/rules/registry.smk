# The one loop that turns every paper's declarations (privrisk.papers.<key>.registry: STEPS and
# FIGURES) into rules: one rule per step, one per figure. Paths, params, code and data inputs all
# come from privrisk.workflow, so nothing about a particular paper is written here.


for _paper in wf.PAPERS:
    if not wf.has_registry(_paper):
        continue
    _reg = wf.load_registry(_paper, config)
    REGISTRIES[_paper] = _reg
    PAPER_TARGETS[_paper] = _reg.targets()

    for _step in _reg.steps:
        _res = _step.resources_for(SCALE)

        rule:
            name:
                _reg.rule_name(_step)
            input:
                **_reg.inputs(_step),
                code=wf.code_inputs(_step.func),
                data=wf.data_inputs(config, _paper, _step),
            output:
                **_reg.step_outputs(_step),
            log:
                wf.log_path(_paper, _step.name),
            benchmark:
                wf.benchmark_path(_paper, _step.name)
            conda:
                "../envs/privrisk.yaml"
            threads: _res.threads
            resources:
                mem_mb=_res.mem_mb,
                runtime=_res.runtime,
                gpu=_res.gpu,
            params:
                func=_step.func,
                cfg=wf.params(config, _paper, _step),
            script:
                "../scripts/run_step.py"

    for _fig in _reg.figures:
        _res = _fig.resources_for(SCALE)

        rule:
            name:
                _reg.rule_name(_fig)
            input:
                **_reg.inputs(_fig),
                code=wf.code_inputs(_fig.func),
                data=wf.data_inputs(config, _paper, _fig),
            output:
                **report_outputs(_paper, _fig.name, _fig.table),
            log:
                wf.log_path(_paper, _fig.name),
            benchmark:
                wf.benchmark_path(_paper, _fig.name)
            conda:
                "../envs/privrisk.yaml"
            threads: _res.threads
            resources:
                mem_mb=_res.mem_mb,
                runtime=_res.runtime,
                gpu=_res.gpu,
            params:
                func=_fig.func,
                cfg=wf.params(config, _paper, _fig),
                paper=_paper,
                figure=_fig.name,
            script:
                "../scripts/make_figure.py"
