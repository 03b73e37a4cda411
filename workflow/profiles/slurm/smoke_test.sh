#!/usr/bin/env bash
# Smoke test of the Slurm profile on a throw-away local single-node Slurm cluster, using the
# verified recipe in ../shared/cluster (Debian packages slurm-wlm + munge; root needed).
#   bash workflow/profiles/slurm/smoke_test.sh [targets...]      (default target: thudi2022)
# Mode B (no slurmdbd) keeps the install small, so the status command must be squeue.
# Not part of .ci/run: it installs system packages and starts daemons.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CLUSTER="${CLUSTER_RECIPE:-../shared/cluster}"
[ -x "$CLUSTER/start_local_slurm.sh" ] || { echo "no cluster recipe at $CLUSTER"; exit 2; }
SLURM_WITH_DBD=0 "$CLUSTER/start_local_slurm.sh"
trap '"$CLUSTER/stop_local_slurm.sh" || true' EXIT
targets=("${@:-thudi2022}")
rm -rf results/thudi2022
timeout 900 snakemake --profile workflow/profiles/slurm --slurm-status-command squeue "${targets[@]}"
sacct >/dev/null 2>&1 || squeue --states=all | tail -5
echo "slurm smoke test OK: ${targets[*]}"
