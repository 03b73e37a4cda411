#!/usr/bin/env bash
# Run a slice of the pipeline through a REAL single-node Slurm cluster and compare it with a local
# run (CI runs this on every submission; .ci/run calls it). The slice: an analytic paper
# (thudi2022), a step-and-figure chain of an experimental paper (swanberg2025 Figure 3: the
# batched DP-SGD training step, then the figure) and a model whose replicate runs train in shards
# (xu2022's CIFAR-10 WGAN-GP with 3 runs: one Slurm job per run with runs_per_job=1, a pooling job,
# then Figure 1a), at tiny scale. The local run trains that model unsharded, in one job.
#
# Checks: the run ends; every job went through sbatch (one Slurm job id per job in the plugin's
# logs and in squeue's history), each shard in a job of its own; every CSV equals the local run's
# byte for byte, and so do the pooled model's record and every array of its queries and split. The cluster comes
# from the verified recipe in ../shared/cluster (Debian slurm-wlm + munge, mode without slurmdbd,
# so the status command is squeue); its daemons are stopped on exit. Where Slurm cannot be
# installed or started (not root, no recipe, no package registry), it says why and skips.
set -euo pipefail
cd "$(dirname "$0")/../../.."
REPO=$PWD
CLUSTER="${CLUSTER_RECIPE:-$REPO/../shared/cluster}"
skip() { echo "SKIPPED slurm slice: $*"; exit 0; }
[ -x "$CLUSTER/start_local_slurm.sh" ] || skip "no cluster recipe at $CLUSTER"
[ "$(id -u)" = 0 ] || skip "installing and starting Slurm needs root"
# temporary files through mktemp (a fresh name, mode 600), never a fixed name under /tmp that
# another user could plant as a link for root to write through
# Everything temporary goes on exit, whatever the outcome (the failures print their logs' tails
# first): the start log, the two runs' working directory, the cluster's daemons.
# KEEP_SLURM_SLICE=1 keeps the working directory to look into.
start_log="" work="" slurm_started=""
cleanup() {
  if [ -n "$slurm_started" ]; then "$CLUSTER/stop_local_slurm.sh" > /dev/null 2>&1 || true; fi
  if [ -n "$start_log" ]; then rm -f "$start_log"; fi
  if [ -n "$work" ]; then
    if [ -n "${KEEP_SLURM_SLICE:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
  fi
}
trap cleanup EXIT
start_log=$(mktemp "${TMPDIR:-/tmp}/privrisk_slurm_start.XXXXXX")
if ! SLURM_WITH_DBD=0 "$CLUSTER/start_local_slurm.sh" > "$start_log" 2>&1; then
  tail -20 "$start_log"
  skip "Slurm could not be installed or started here (log above)"
fi
slurm_started=1
sinfo
pip install -q -c constraints.txt "snakemake-executor-plugin-slurm>=2.8"

targets=(thudi2022 results/swanberg2025/fig3.csv results/xu2022/fig1a.csv)
work=$(mktemp -d "${TMPDIR:-/tmp}/privrisk_slurm.XXXXXX")
mkdir -p "$work/slurm" "$work/local"
# the sharded model: 3 runs of the tiny CIFAR-10 WGAN-GP (config/tiny.yaml trains 1)
printf 'xu2022:\n  models:\n    cifar10_wgangp: {runs: 3}\n' > "$work/runs.yaml"
config=(--configfile config/config.yaml config/tiny.yaml "$work/runs.yaml")

t0=$(date +%s)
timeout 1500 snakemake --profile workflow/profiles/slurm --slurm-status-command squeue --slurm-keep-successful-logs \
  -d "$work/slurm" "${targets[@]}" "${config[@]}" --config runs_per_job=1 > "$work/slurm.log" 2>&1 \
  || { tail -40 "$work/slurm.log"; echo "FAILED: the slice did not finish through Slurm"; exit 1; }
echo "slice through Slurm: $(( $(date +%s) - t0 )) s"
# squeue keeps finished jobs for MinJobAge (600 s in the recipe): read its history right away
known=$(squeue --states=all -h -o %i | sort -u)
snakemake --cores 2 -d "$work/local" "${targets[@]}" "${config[@]}" > "$work/local.log" 2>&1 \
  || { tail -40 "$work/local.log"; echo "FAILED: the local run of the slice"; exit 1; }

# every job was submitted with sbatch: one Slurm job id per job
n_jobs=$(grep -c "^Finished jobid" "$work/local.log" || true)
ids=$(grep -oE "Job [0-9]+ has been submitted with SLURM jobid [0-9]+" "$work/slurm.log" | awk '{print $NF}' | sort -u)
n_ids=$(printf '%s\n' "$ids" | grep -c . || true)
echo "local jobs: $n_jobs; Slurm job ids: $n_ids"
# the local count includes the target rules, which Snakemake runs locally (localrules)
[ "$n_ids" -ge $(( n_jobs - 2 )) ] || { echo "FAILED: only $n_ids of $n_jobs jobs went through sbatch"; exit 1; }
# each id has the log slurmd wrote for it; squeue's history still holds the recent ones
for id in $ids; do
  # rule_<name>/<id>.log, or rule_<name>/<wildcards>/<id>.log for a rule with wildcards
  find "$work/slurm/.snakemake/slurm_logs" -name "$id.log" | grep -q . || { echo "FAILED: no Slurm log for job $id"; exit 1; }
done
n_known=$(comm -12 <(printf '%s\n' $ids | sort) <(printf '%s\n' "$known") | grep -c . || true)
[ "$n_known" -ge 1 ] || { echo "FAILED: none of the job ids is in squeue's history"; exit 1; }
echo "$n_known of $n_ids job ids still in squeue's history (the rest aged out after MinJobAge)"

# the outputs equal the local run's, byte for byte
n=0
while IFS= read -r f; do
  cmp -s "$work/local/$f" "$work/slurm/$f" || { echo "FAILED: $f differs between Slurm and local runs"; exit 1; }
  n=$((n + 1))
done < <(cd "$work/local" && find results -name '*.csv' | sort)
[ "$n" -gt 10 ] || { echo "FAILED: only $n CSVs compared"; exit 1; }

# the sharded model: one Slurm job per shard, and the pooled files equal the unsharded model's
model=results/xu2022/intermediate/cifar10_wgangp
for shard in runs0_0 runs1_1 runs2_2; do
  find "$work/slurm/.snakemake/slurm_logs/rule_xu2022_train_cifar10_wgangp_$shard" -name '*.log' | grep -q . \
    || { echo "FAILED: shard $shard of the CIFAR-10 WGAN-GP did not run as a Slurm job"; exit 1; }
done
cmp "$work/local/${model}_record.json" "$work/slurm/${model}_record.json" \
  || { echo "FAILED: the pooled record differs from the unsharded model's"; exit 1; }
python - "$work/local/$model" "$work/slurm/$model" <<'PY' || { echo "FAILED: the pooled arrays differ from the unsharded model's"; exit 1; }
import json, sys
import numpy as np
local, slurm = sys.argv[1:]
for part in ("queries", "split"):
    a, b = np.load(f"{local}_{part}.npz"), np.load(f"{slurm}_{part}.npz")
    assert a.files == b.files, (part, a.files, b.files)
    for k in a.files:
        assert a[k].dtype == b[k].dtype and a[k].tobytes() == b[k].tobytes(), (part, k)
jobs = json.load(open(f"{slurm}_shards.json"))["jobs"]
assert [j["runs"] for j in jobs] == [[0, 1], [1, 2], [2, 3]], jobs
print(f"pooled from {len(jobs)} Slurm jobs on {sorted({j['host'] for j in jobs})}: the same bytes")
PY
echo "slurm slice OK: $n_ids jobs through sbatch, $n CSVs identical to the local run, a model sharded over 3 jobs identical to it trained in one"
