# Real data on demand: one prepare_<dataset> rule per configured data block of a dataset with a
# download table (its Dataset description, privrisk.data.sources.DATASETS), generated from
# privrisk.data.prepare.rule_specs. Its one output is a marker, data/prepared/<dataset>.json,
# an input of a figure or step only when that data is wanted (source: real, or auto with
# download: true; privrisk.data.sources.rule_inputs), so an offline default run never downloads
# anything. The data files are never a rule's output: Snakemake deletes outputs before a job
# runs (--forcerun, --forceall), and a file placed by hand must survive that. The rule keeps
# whatever is in place, downloads once into data/raw (verified) what is missing, then converts;
# data/README.md explains it.

from privrisk.data import prepare as _prepare  # noqa: E402
from privrisk.data.enron import GPT2_MARKER as _GPT2_MARKER  # noqa: E402

for _spec in _prepare.rule_specs(config):

    rule:
        name:
            f"prepare_{_spec.dataset}"
        output:
            str(_prepare.prepared_marker(_spec.dataset)),
        log:
            f"results/logs/data/prepare_{_spec.dataset}.log",
        threads: 1
        resources:
            mem_mb=4000,
            runtime=240,
        params:
            dataset=_spec.dataset,
            where=_spec.where,
            block=_spec.block,
            files=list(_spec.outputs),
        run:
            prepare_job(log, params, output[0])


rule prepare_gpt2:
    output:
        str(_GPT2_MARKER),
    log:
        "results/logs/data/prepare_gpt2.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    run:
        from privrisk.contract.joblog import job_log

        with job_log(log[0]):
            _prepare.prepare_gpt2(output[0])
