#!/usr/bin/env bash
# Proves scripts/slurm_sweep.sh on a real Slurm cluster: brings up a one-node cluster on the
# loopback (munged, slurmctld, slurmd; Debian's slurm-wlm and munge), submits a sharded sweep as a
# job array with `sbatch --array`, waits for it, merges the parts and checks that the table is
# byte-identical to an unsharded run. Step of .ci/run; docs/sweeps.md.
#
#   scripts/slurm_ci.sh [--tasks N] [--wait SEC] [--host-loopback]
#
# Needs root: it installs slurm-wlm and munge with apt-get when they are missing, and runs the
# daemons. Everything lives in a temporary folder (keys, slurm.conf, state, logs, the job's
# files); the daemons are stopped by their PIDs when the script ends, however it ends. When the
# kernel allows it, the cluster runs in a network namespace of its own that has only the loopback
# interface; otherwise (or with --host-loopback) on this host's 127.0.0.1 with free ports. SBUFSIM names the binary (default:
# build/sbufsim of this checkout).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tasks=4
wait_seconds=120
netns=1
while (($#)); do
    case "$1" in
        --tasks) tasks=$2; shift 2 ;;
        --wait) wait_seconds=$2; shift 2 ;;
        --host-loopback) netns=0; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "slurm_ci.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
sbufsim=${SBUFSIM:-$here/build/sbufsim}
[[ -x $sbufsim ]] || { echo "slurm_ci.sh: no sbufsim at $sbufsim (build first, or set SBUFSIM)" >&2; exit 2; }
sbufsim=$(cd "$(dirname "$sbufsim")" && pwd)/$(basename "$sbufsim")

say() { echo "slurm_ci: $*"; }
fail() { echo "slurm_ci: FAIL: $*" >&2; exit 1; }

# ---- packages ----------------------------------------------------------------------------------
if [[ -z ${SBUFSIM_SLURM_NETNS:-} ]]; then
    [[ $(id -u) == 0 ]] || fail "needs root (it runs slurmctld, slurmd and munged)"
    missing=()
    for p in slurmctld slurmd slurm-client munge; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        say "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    # A network namespace with only the loopback: nothing can reach another host. Slurm resolves
    # with AI_ADDRCONFIG, which finds no IPv4 when 127.0.0.1 is the only address: a second
    # loopback address (127.0.0.2, same interface) lets it resolve.
    if ((netns)) && unshare -n true 2>/dev/null; then
        exec unshare -n -- env SBUFSIM_SLURM_NETNS=1 SBUFSIM="$sbufsim" \
            bash -c 'ip link set lo up && ip addr add 127.0.0.2/8 dev lo && exec bash "$0" "$@"' \
            "$0" --tasks "$tasks" --wait "$wait_seconds"
    fi
fi

# ---- the cluster's folder and its teardown ----------------------------------------------------
job=
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbufsim-slurm.XXXXXX")
chmod 755 "$tmp"
mkdir -m 700 "$tmp/key"
mkdir -m 755 "$tmp/run" "$tmp/log" "$tmp/state" "$tmp/spool" "$tmp/job"
stop() {
    local pidfile pid
    set +e
    # Jobs first, so that slurmd ends their steps before it goes.
    if [[ -n ${job:-} && -n $(squeue -h -j "$job" 2>/dev/null) ]]; then
        scancel "$job"
        for _ in $(seq 100); do [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break; sleep 0.1; done
    fi
    for pidfile in "$tmp/run/slurmd.pid" "$tmp/run/slurmctld.pid" "$tmp/run/munged.pid"; do
        [[ -s $pidfile ]] || continue
        pid=$(<"$pidfile")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
}
show_logs() {
    local f
    for f in "$tmp"/log/*.log "$tmp"/job/*.log; do
        if [[ -f $f ]]; then echo "---- $f"; tail -20 "$f"; fi
    done >&2
}
trap 'rc=$?; set +e; if ((rc)); then show_logs; fi; stop; rm -rf "$tmp"; exit $rc' EXIT

# Ports: the usual ones inside our own namespace; elsewhere two that nothing listens on.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [[ -n ${SBUFSIM_SLURM_NETNS:-} ]]; then
    ctld_port=6817 slurmd_port=6818
    say "in a network namespace with only the loopback"
else
    ctld_port=$((20000 + RANDOM % 20000))
    while ! port_free "$ctld_port" || ! port_free $((ctld_port + 1)); do ctld_port=$((ctld_port + 2)); done
    slurmd_port=$((ctld_port + 1))
    say "on 127.0.0.1 ports $ctld_port, $slurmd_port (no network namespace)"
fi

# ---- munge -----------------------------------------------------------------------------------
mungekey --create --keyfile="$tmp/key/munge.key"
munged --key-file="$tmp/key/munge.key" --socket="$tmp/run/munge.socket" --pid-file="$tmp/run/munged.pid" \
    --log-file="$tmp/log/munged.log" --seed-file="$tmp/key/munged.seed"

# ---- slurm.conf: this machine's CPUs, sockets, cores, threads and memory, as slurmd sees them ------
host=$(hostname -s)
node=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //')
cpus=$(sed -nE 's/.*CPUs=([0-9]+).*/\1/p' <<<"$node")
cat >"$tmp/slurm.conf" <<EOF
ClusterName=sbufsimci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/run/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName=ci0 NodeAddr=127.0.0.1 NodeHostname=$host $node State=UNKNOWN
PartitionName=ci Nodes=ci0 Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N ci0
deadline=$((SECONDS + 30))
until [[ $(sinfo -h -n ci0 -o %t 2>/dev/null) == idle ]]; do
    ((SECONDS < deadline)) || { sinfo >&2 || true; fail "node ci0 not idle after 30 s"; }
    sleep 0.5
done
say "cluster up: node ci0 with $node"

# ---- the sweep, sharded over a job array ------------------------------------------------------
trace=$here/traces/dma_vs_compute.trc
vary=(--vary tdm.dma_slots=0:8 --vary tdm.max_slots=8,16)
# The sbatch options of docs/sweeps.md's example, but its --array: an example a small node cannot
# start (e.g. --cpus-per-task above its CPUs) stays pending here and fails the wait below.
read -r -a docs_options <<<"$(sed -n 's|^sbatch \(.*\) scripts/slurm_sweep.sh .*|\1|p' "$here/docs/sweeps.md" | head -1 \
    | tr ' ' '\n' | { grep -v '^--array=' || true; } | paste -sd' ')"
start=$SECONDS
# Submits slurm_sweep.sh as the array `$1` (extra environment `$2`, e.g. SWEEP_SHARDS=4) and waits
# until each of its `$3` tasks completed with status 0; prints the job id.
submit_and_wait() {
    local array=$1 env=$2 count=$3 job states
    job=$(sbatch --parsable --array="$array" ${docs_options[@]+"${docs_options[@]}"} --chdir="$tmp/job" --output="$tmp/job/sweep-%A_%a.log" \
        --export=ALL,SBUFSIM="$sbufsim",SWEEP_OUT="$tmp/job/sweep-out"${env:+,$env} \
        "$here/scripts/slurm_sweep.sh" "$trace" "${vary[@]}")
    local deadline=$((SECONDS + wait_seconds))
    while [[ -n $(squeue -h -j "$job" 2>/dev/null) ]]; do
        ((SECONDS < deadline)) || { squeue >&2; fail "job $job still queued or running after $wait_seconds s"; }
        sleep 0.5
    done
    states=$(scontrol show job "$job" | grep -oE 'JobState=[A-Z]+ |ExitCode=[0-9:]+')
    [[ $(grep -c 'JobState=COMPLETED' <<<"$states") == "$count" && $(grep -c 'ExitCode=0:0' <<<"$states") == "$count" ]] \
        || fail "job $job: not every task completed with status 0: $(paste -sd' ' <<<"$states")"
    echo "$job"
}
job=$(submit_and_wait "0-$((tasks - 1))" "" "$tasks")
say "job array $job: all $tasks tasks (0-$((tasks - 1))) completed in $((SECONDS - start)) s; task 0 said: $(head -1 "$tmp/job/sweep-${job}_0.log")"

# ---- a task cut short, re-submitted on its own -------------------------------------------------
# As a pre-empted task leaves it: the last shard's part file with its rows but one (an array of
# one task counts 1, so the re-submission says how many shards the sweep has).
last=$(printf '%s/job/sweep-out/part-%05d.csv' "$tmp" $((tasks - 1)))
head -n -1 "$last" >"$last.cut" && mv "$last.cut" "$last"
again=$(submit_and_wait "$((tasks - 1))" "SWEEP_SHARDS=$tasks" 1)
say "task $((tasks - 1)) cut short and re-submitted alone (job $again): $(tail -1 "$tmp/job/sweep-${again}_$((tasks - 1)).log")"

# ---- merged parts == the unsharded table ------------------------------------------------------
cat "$tmp"/job/sweep-out/part-*.csv >"$tmp/merged.csv"
(cd "$tmp/job" && "$sbufsim" sweep "$trace" "${vary[@]}" --jobs "$cpus" --out "$tmp/whole.csv" --quiet)
cmp "$tmp/merged.csv" "$tmp/whole.csv" || fail "the merged parts differ from the unsharded table"
say "merged $(($(wc -l <"$tmp/merged.csv") - 1)) rows from $tasks parts: byte-identical to the unsharded sweep"
