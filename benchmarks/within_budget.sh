#!/usr/bin/env bash
# Run a command within a time budget that stops its running work, not only what it would start:
#
#   bash benchmarks/within_budget.sh SECONDS [GRACE] -- COMMAND [ARGS...]
#
# The command runs in a session of its own. At SECONDS it gets SIGINT (Snakemake then cancels its
# running jobs and marks their outputs incomplete); still running GRACE seconds later (default
# 30) it is killed; and every process left in its session afterwards (a job Snakemake spawned in
# a process group of its own survives a signal to Snakemake alone) is killed too. Exits with the
# command's status (124 when the budget stopped it).
set -uo pipefail
budget=$1
shift
grace=30
if [[ ${1:-} != -- ]]; then
  grace=$1
  shift
fi
[[ ${1:-} == -- ]] || { echo "within_budget.sh: usage: SECONDS [GRACE] -- COMMAND ..." >&2; exit 2; }
shift
sidfile=$(mktemp)
# setsid execs the command in place (the child of timeout is no group leader): its pid is the
# session's id, written before the exec
timeout --signal=INT --kill-after="$grace" "$budget" \
  setsid bash -c 'echo $$ > "$0"; exec "$@"' "$sidfile" "$@"
rc=$?
sid=$(cat "$sidfile")
rm -f "$sidfile"
if [[ -n $sid ]]; then
  left=$(ps -eo pid=,sid= | awk -v s="$sid" '$2 == s { print $1 }')
  if [[ -n $left ]]; then
    echo "within_budget.sh: killing what the command left running: $(echo $left)" >&2
    kill -KILL $left 2> /dev/null || true
    for _ in $(seq 50); do # until they are gone (a signal is delivered, not awaited); a zombie
      # is gone too (it waits only for a parent to reap it, which can take seconds under an init
      # that reaps lazily)
      ps -o stat= -p "$(echo $left | tr ' ' ,)" | grep -qv '^Z' || break
      sleep 0.1
    done
  fi
fi
((rc == 137)) && rc=124 # killed after the grace: the budget stopped it all the same
exit "$rc"
