#!/usr/bin/env bash
# xu2022's models at paper width, their replicate runs batched on one device, within a time
# budget (default 12 minutes): probe each model on the device, size the shards to its memory,
# train what fits through the pipeline itself, and report times and member-vs-hold-out AUCs.
#
#   bash benchmarks/gpu_paper_scale.sh [--budget-min 12] [--models mnist_wgangp,cifar10_wgangp]
#       [--configfile config/config.yaml config/paper.yaml] [--runs-per-job N] [--workdir DIR]
#       [--cores N] [--install]
#
# Needs the project installed with the pipeline's extras (torch, Snakemake, opacus): when they do
# not import, or with --install, the script installs them first: pip install -e ".[pipeline]"
# -c constraints.txt (pip's torch wheel for Linux is a CUDA build). The budget stops running
# jobs, not only new ones (benchmarks/within_budget.sh: SIGINT to Snakemake at the budget, then
# whatever is left of its jobs killed). Data: whatever the
# config resolves to on that machine (real files under data/raw, else bundled samples and
# stand-ins, as `privrisk data` lists). Outputs: results/gpu_paper_scale/summary.md and .json,
# and the models' files under results/xu2022/intermediate/ (the pipeline's own shards and pooled
# files: `snakemake --configfile <the same files> results/gpu_paper_scale/overlay.yaml` goes on
# from them to the figures). Details: benchmarks/gpu_paper_scale.py; docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
budget=12
cores=$(nproc)
workdir=.
args=()
configfiles=(config/config.yaml config/paper.yaml)
install=0
while (($#)); do
  case "$1" in
    --budget-min) budget=$2; args+=("$1" "$2"); shift 2 ;;
    --workdir) workdir=$2; args+=("$1" "$2"); shift 2 ;;
    --cores) cores=$2; shift 2 ;;
    --configfile)
      shift
      configfiles=()
      while (($#)) && [[ $1 != --* ]]; do configfiles+=("$1"); shift; done
      ;;
    --models | --runs-per-job | --device) args+=("$1" "$2"); shift 2 ;;
    --install) install=1; shift ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "gpu_paper_scale.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || echo "no nvidia-smi: running on what torch finds (the CPU here)"
if ((install)) || ! python -c "import torch, snakemake, opacus, privrisk" 2> /dev/null; then
  # the pipeline's extras, at the versions CI tests (constraints.txt pins torch without a +cpu
  # label, so pip takes its default build: CUDA on Linux)
  python -m pip install -e ".[pipeline]" -c constraints.txt
fi
python -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"

abs_configs=()
for c in "${configfiles[@]}"; do abs_configs+=("$(realpath "$c")"); done
python benchmarks/gpu_paper_scale.py plan --t0 "$t0" --configfile "${abs_configs[@]}" "${args[@]}"
out="$workdir/results/gpu_paper_scale"
mapfile -t targets < "$out/targets.txt"
left=$((budget * 60 - ($(date +%s) - t0) - 35)) # 15 s for the jobs to stop, 20 s for the report
if ((${#targets[@]})) && ((left > 0)); then
  echo "training ${#targets[@]} model(s) through the pipeline, stopped after ${left} s"
  # one GPU: the training jobs declare gpu=1 at paper scale, so they take it in turn
  # the budget stops the running jobs too (a job past it is cancelled, its outputs incomplete)
  bash benchmarks/within_budget.sh "$left" 15 -- \
    snakemake --cores "$cores" --resources gpu=1 -s "$PWD/Snakefile" -d "$workdir" \
    "${targets[@]}" --configfile "${abs_configs[@]}" "$(realpath "$out/overlay.yaml")" \
    > "$out/snakemake.log" 2>&1 || echo "snakemake stopped (exit $?): see $out/snakemake.log"
else
  echo "nothing to train within the budget"
fi
python benchmarks/gpu_paper_scale.py report --t0 "$t0" --workdir "$workdir"
