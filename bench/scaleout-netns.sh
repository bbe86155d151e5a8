#!/usr/bin/env bash
# restbench with two remote load generators, on one machine: network namespaces stand for the
# hosts. A "server" namespace (10.231.0.1, a bridge) runs restbench and the subject; two generator
# namespaces (10.231.0.2 and .3) run Debian's sshd with keys made here. Everything is removed on
# exit, Ctrl-C included. A benchmark, not a test (the tests are crates/restbench/tests/it/scaleout.rs).
#
#   sudo bench/scaleout-netns.sh [extra `restbench run` options]
#   RESTBENCH=target/release/restbench sudo -E bench/scaleout-netns.sh --duration 5s
#
# Needs root, iproute2 and openssh-server (apt-get install openssh-server iproute2).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "run as root: it creates network namespaces" >&2; exit 2; }
[ -x /usr/sbin/sshd ] || { echo "needs /usr/sbin/sshd: apt-get install openssh-server" >&2; exit 2; }
RESTBENCH=${RESTBENCH:-target/release/restbench}
[ -x "$RESTBENCH" ] || cargo build --release -p restbench
RESTBENCH=$(realpath "$RESTBENCH")

tag="rbs$$"
srv="${tag}s"; g1="${tag}g1"; g2="${tag}g2"
work=$(mktemp -d /tmp/restbench-scaleout.XXXXXX)
sshd_pids=()
cleanup() {
  for p in "${sshd_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for n in "$srv" "$g1" "$g2"; do ip netns del "$n" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for n in "$srv" "$g1" "$g2"; do ip netns add "$n"; ip -n "$n" link set lo up; done
ip -n "$srv" link add br0 type bridge
ip -n "$srv" link set br0 up
ip -n "$srv" addr add 10.231.0.1/24 dev br0
i=2
for g in "$g1" "$g2"; do
  ip -n "$srv" link add "v$i" type veth peer name eth0 netns "$g"
  ip -n "$srv" link set "v$i" master br0 up
  ip -n "$g" addr add "10.231.0.$i/24" dev eth0
  ip -n "$g" link set eth0 up
  i=$((i + 1))
done

ssh-keygen -q -t ed25519 -N '' -f "$work/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$work/id"
cp "$work/id.pub" "$work/authorized_keys"
mkdir -p /run/sshd
cat >"$work/sshd_config" <<EOC
ListenAddress 0.0.0.0:22
HostKey $work/hostkey
AuthorizedKeysFile $work/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
Subsystem sftp /usr/lib/openssh/sftp-server
EOC
for h in 10.231.0.2 10.231.0.3; do echo "$h $(cat "$work/hostkey.pub")"; done >"$work/known_hosts"
cat >"$work/ssh_config" <<EOC
Host *
  IdentityFile $work/id
  IdentitiesOnly yes
  UserKnownHostsFile $work/known_hosts
  StrictHostKeyChecking yes
EOC
for g in "$g1" "$g2"; do
  ip netns exec "$g" /usr/sbin/sshd -D -e -f "$work/sshd_config" 2>>"$work/sshd.log" &
  sshd_pids+=($!)
done
for h in 10.231.0.2 10.231.0.3; do
  for _ in $(seq 50); do
    ip netns exec "$srv" ssh -F "$work/ssh_config" -o BatchMode=yes "root@$h" true 2>/dev/null && break
    sleep 0.2
  done
done

export RESTBENCH_SSH_CONFIG="$work/ssh_config" RESTBENCH_REMOTE_DIR="$work/remote-bin"
ip netns exec "$srv" "$RESTBENCH" run --quick --subjects rust-hyper --workloads plaintext \
  --loadgen-hosts root@10.231.0.2,root@10.231.0.3 --server-address 10.231.0.1 \
  --out "${OUT:-results/scaleout-netns}" "$@"
