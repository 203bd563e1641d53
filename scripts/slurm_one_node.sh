#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for testing attnlab's Slurm
# launcher (CI starts it before the tests and stops it after them).
#
#   scripts/slurm_one_node.sh start    install what is missing, start munge,
#                                      slurmctld and slurmd, wait until the
#                                      partition is idle; prints the seconds
#   scripts/slurm_one_node.sh stop     stop the daemons this script started
#   scripts/slurm_one_node.sh status   exit 0 when the cluster answers
#   scripts/slurm_one_node.sh conf     print the path of its slurm.conf
#
# Clients find the cluster through SLURM_CONF=$(scripts/slurm_one_node.sh conf);
# the tests look there by themselves. The cluster runs as root (the daemons
# must), without systemd and without cgroups (proctrack/linuxproc, task/none),
# which a container does not delegate. Its state, spool, logs and pid files
# all live under one folder, ATTNLAB_SLURM_DIR (default /tmp/attnlab-slurm),
# so /etc/slurm is never written. Daemons are stopped by the pids this script
# recorded, never by name.
set -euo pipefail

dir=${ATTNLAB_SLURM_DIR:-/tmp/attnlab-slurm}
conf=$dir/slurm.conf
here=$(cd "$(dirname "$0")" && pwd)

log() { echo "slurm_one_node: $*" >&2; }

answers() {
  [[ -f $conf ]] && SLURM_CONF=$conf timeout 5 sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'
}

alive() {  # alive PIDFILE: the pid it names is running
  [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

write_conf() {
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  # RealMemory in MB, a little under what the machine has, so slurmd accepts it.
  mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  mkdir -p "$dir/state" "$dir/spool"
  cat >"$conf.tmp" <<EOF
# Written by attnlab's scripts/slurm_one_node.sh: a one-node test cluster.
ClusterName=attnlab
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  mv "$conf.tmp" "$conf"
}

start() {
  [[ $(id -u) -eq 0 ]] || { log "must run as root (slurmd starts jobs as their users)"; exit 1; }
  # Ask sinfo only when our controller runs: against a stopped one it waits for its timeout.
  if alive "$dir/slurmctld.started" && answers; then
    log "already up ($conf)"
    return 0
  fi
  local t0=$SECONDS
  "$here/setup.sh"  # slurm-wlm, munge and parallel are among its packages
  mkdir -p "$dir"
  local began
  began=$(date +%s.%N)

  # munge: reuse one that already answers (then it is not ours to stop).
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    log "munge already answers; using it"
  else
    mkdir -p /run/munge
    chown munge:munge /run/munge
    # --force: it refuses a log folder whose ownership it finds insecure.
    munged --force --pid-file="$dir/munged.pid" 2>>"$dir/munged.log"
    for _ in $(seq 50); do
      munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
      sleep 0.1
    done
    munge -n | unmunge >/dev/null || { log "munge does not answer; see $dir/munged.log"; exit 1; }
  fi

  write_conf
  # -D keeps them in the foreground of a background job whose pid we record;
  # setsid detaches them from this shell's terminal and signals.
  setsid slurmctld -D -f "$conf" >>"$dir/slurmctld.out" 2>&1 </dev/null &
  echo $! >"$dir/slurmctld.started"
  setsid slurmd -D -f "$conf" >>"$dir/slurmd.out" 2>&1 </dev/null &
  echo $! >"$dir/slurmd.started"

  for _ in $(seq 300); do
    answers && break
    alive "$dir/slurmctld.started" || { log "slurmctld exited; see $dir/slurmctld.log"; exit 1; }
    alive "$dir/slurmd.started" || { log "slurmd exited; see $dir/slurmd.log"; exit 1; }
    sleep 0.1
  done
  if ! answers; then
    log "the partition did not become idle within 30 s; see $dir/slurmctld.log"
    stop
    exit 1
  fi
  local ended
  ended=$(date +%s.%N)
  log "$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "cluster up in %.1f s", b - a }') (setup $((SECONDS - t0)) s in all); SLURM_CONF=$conf"
}

stop_pidfile() {  # stop_pidfile NAME FILE: SIGTERM the pid, wait up to 10 s
  local name=$1 file=$2 pid
  [[ -f $file ]] || return 0
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && { log "$name ($pid) did not stop; sending SIGKILL"; kill -9 "$pid"; }
    log "stopped $name ($pid)"
  fi
  rm -f "$file"
}

stop() {
  stop_pidfile slurmd "$dir/slurmd.started"
  stop_pidfile slurmctld "$dir/slurmctld.started"
  stop_pidfile munged "$dir/munged.pid"  # present only when this script started it
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) answers ;;
  conf) echo "$conf" ;;
  *) echo "usage: $0 start|stop|status|conf" >&2; exit 2 ;;
esac
