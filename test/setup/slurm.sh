#!/usr/bin/env bash
# A real one-node Slurm cluster on 127.0.0.1 for the runner's slurm executor tests:
# munged with its own socket and key, slurmctld + slurmd on their own ports, a GRES gpu
# declared over a dummy character device (so --gres=gpu:1 schedules), and slurmrestd with
# JWT auth running as nobody. State, spool and logs live in one temp folder.
# Idempotent: when the cluster already answers, it only re-issues the token.
# Writes RLENV_SLURM_URL, RLENV_SLURM_TOKEN_FILE, RLENV_SLURM_USER, RLENV_SLURM_CONF,
# RLENV_SLURM_PARTITION, RLENV_SLURM_SHARED into .test-artifacts/services/env (appends).
set -euo pipefail
trap 'echo "slurm: setup failed at line $LINENO: $BASH_COMMAND (logs: ${base:-?}/log)"' ERR
cd "$(dirname "$0")/../.."
repo=$(pwd)
base=${RLENV_SLURM_DIR:-/tmp/rlenv-slurm}
ctld_port=${RLENV_SLURM_CTLD_PORT:-16817}
slurmd_port=${RLENV_SLURM_SLURMD_PORT:-16818}
rest_port=${RLENV_SLURM_REST_PORT:-16820}
host=$(hostname -s)
envfile=.test-artifacts/services/env
mkdir -p .test-artifacts/services

for b in munged slurmctld slurmd slurmrestd scontrol; do
  command -v "$b" >/dev/null || { echo "slurm: $b not installed (slurm-wlm, slurmrestd, munge in test/setup/apt.sh)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm: needs root (slurmd, mknod)"; exit 1; }

export SLURM_CONF="$base/etc/slurm.conf"
url="http://127.0.0.1:$rest_port"
user=root

up() { scontrol ping 2>/dev/null | grep -q "is UP" && scontrol show node "$host" 2>/dev/null | grep -qE "State=(IDLE|MIXED|ALLOCATED)"; }
# Node, not curl: node is what the suites run on, curl may not be installed.
rest_up() {
  [ -f "$base/token" ] && node -e 'fetch(process.argv[1], { headers: { "X-SLURM-USER-NAME": process.argv[2], "X-SLURM-USER-TOKEN": process.argv[3] } }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
    "$url/slurm/v0.0.38/diag" "$user" "$(cat "$base/token")"
}

if ! up; then
  # Stop leftovers of an earlier, broken start: the pids this script recorded, then any daemon
  # of ours whose folder was deleted under them (pid files gone with it, ports still held),
  for p in slurmrestd slurmd slurmctld munged; do
    [ -f "$base/run/$p.pid" ] && kill "$(cat "$base/run/$p.pid")" 2>/dev/null || true
  done
  # known by the config or socket under $base that they were started with.
  for pid in $(pgrep -x 'slurmrestd|slurmd|slurmctld|munged' || true); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "SLURM_CONF=$base/etc/slurm.conf" \
      || tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$base/"; then
      kill "$pid" 2>/dev/null || true
    fi
  done
  sleep 0.5
  rm -rf "$base"
  mkdir -p "$base"/{etc,state,spool,log,run,munge,dev,shared}
  chmod 0755 "$base" "$base/etc" "$base/log"
  # Jobs write their shard outputs here; they run as $user but keep it open to all.
  chmod 1777 "$base/shared"

  # munge: own key and socket so nothing of the host's is touched.
  dd if=/dev/urandom of="$base/munge/munge.key" bs=1024 count=1 status=none
  chmod 0755 "$base/munge"; chmod 0400 "$base/munge/munge.key"  # slurmrestd (nobody) talks to the socket
  munged --force --key-file="$base/munge/munge.key" --socket="$base/munge/munge.socket" \
    --pid-file="$base/run/munged.pid" --log-file="$base/log/munged.log" --seed-file="$base/munge/seed"

  # The dummy GPU: a character device with NVIDIA's major number; nothing opens it.
  mknod "$base/dev/nvidia0" c 195 0
  # JWT signing key for slurmrestd's token auth.
  dd if=/dev/urandom of="$base/etc/jwt.key" bs=32 count=1 status=none
  chmod 0600 "$base/etc/jwt.key"

  cat > "$base/etc/slurm.conf" <<EOF
ClusterName=rlenv-test
SlurmctldHost=$host(127.0.0.1)
CommunicationParameters=NoInAddrAny
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$base/munge/munge.socket
CredType=cred/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$base/etc/jwt.key
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool/slurmd-%n
SlurmctldPidFile=$base/run/slurmctld.pid
SlurmdPidFile=$base/run/slurmd.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=4000 Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  cat > "$base/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=$host Name=gpu File=$base/dev/nvidia0
EOF
  chmod 0644 "$base/etc/slurm.conf" "$base/etc/gres.conf"
  mkdir -p "$base/spool/slurmd-$host"

  # Daemons outlive this script: start them from the state folder, never from the
  # checkout, which CI may delete (a daemon whose cwd is gone fails on getcwd).
  (cd "$base" && slurmctld -i && slurmd)
  for _ in $(seq 1 60); do up && break; sleep 0.5; done
  up || { echo "slurm: node $host did not come up (logs: $base/log)"; tail -n 5 "$base/log/slurmctld.log" "$base/log/slurmd.log" >&2 || true; exit 1; }
fi

scontrol token username=$user lifespan=86400 | sed -n 's/^SLURM_JWT=//p' > "$base/token"
chmod 0600 "$base/token"

if ! rest_up; then
  [ -f "$base/run/slurmrestd.pid" ] && kill "$(cat "$base/run/slurmrestd.pid")" 2>/dev/null || true
  # slurmrestd refuses to run as root; nobody only reads the config.
  (cd "$base" && SLURM_JWT=daemon exec nohup slurmrestd -a rest_auth/jwt -s openapi/v0.0.38 -u nobody -g nogroup "127.0.0.1:$rest_port" \
    > "$base/log/slurmrestd.log" 2>&1) &
  echo $! > "$base/run/slurmrestd.pid"
  for _ in $(seq 1 40); do rest_up && break; sleep 0.25; done
  rest_up || { echo "slurm: slurmrestd did not answer on $url (log: $base/log/slurmrestd.log)"; tail -n 5 "$base/log/slurmrestd.log" >&2; exit 1; }
fi

{
  echo "RLENV_SLURM_URL=$url"
  echo "RLENV_SLURM_TOKEN_FILE=$base/token"
  echo "RLENV_SLURM_USER=$user"
  echo "RLENV_SLURM_CONF=$SLURM_CONF"
  echo "RLENV_SLURM_PARTITION=debug"
  echo "RLENV_SLURM_SHARED=$base/shared"
} >> "$envfile"
echo "slurm up: $url (node $host, gres gpu:1; token in $base/token, user $user; repo $repo)"
