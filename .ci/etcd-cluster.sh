#!/usr/bin/env bash
# A throwaway three-member etcd cluster on loopback ports, for the store-etcd tests.
#
#   bash .ci/etcd-cluster.sh start    # prints http://127.0.0.1:2379,http://127.0.0.1:2381,http://127.0.0.1:2383
#   bash .ci/etcd-cluster.sh status   # prints the endpoint list if every member is healthy, else exits 1
#   bash .ci/etcd-cluster.sh stop     # stops the members and removes their directory
#
# start prints the endpoints, in FENCEKIT_ETCD_ENDPOINTS form, as the last (and only) line of its
# standard output; progress goes to standard error. It is idempotent: a healthy cluster started
# earlier from the same directory is reused, anything else of ours is stopped and the cluster is
# created again. Member i listens for clients on its port and for its peers on the port after it
# (2379 and 2380, 2381 and 2382, 2383 and 2384), on 127.0.0.1 only.
#
# Environment:
#   FENCEKIT_ETCD_CLUSTER_PORTS  three client ports, e.g. "2379 2381 2383" (default); each member's
#                                peer port is its client port + 1
#   FENCEKIT_ETCD_CLUSTER_DIR    where the members keep their data and logs
#                                (default: $TMPDIR/fencekit-etcd-cluster)
set -euo pipefail

HOST=127.0.0.1
DIR="${FENCEKIT_ETCD_CLUSTER_DIR:-${TMPDIR:-/tmp}/fencekit-etcd-cluster}"
TIMEOUT_S=60

log() { echo "etcd-cluster: $*" >&2; }
die() { log "$*"; exit 1; }

need() {
  command -v "$1" >/dev/null 2>&1 \
    || die "$1 not found; install etcd 3.4 or newer (Debian: apt-get install -y etcd-server etcd-client) and retry"
}

listening() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

endpoints() { # endpoints <ports...> -> http://127.0.0.1:p1,...
  local out="" p
  for p in "$@"; do out="${out:+$out,}http://$HOST:$p"; done
  echo "$out"
}

recorded_ports() { [ -f "$DIR/ports" ] && cat "$DIR/ports" || true; }

member_pid() { # the pid of our member on <port>, if it runs
  local f="$DIR/member-$1/etcd.pid" pid
  [ -f "$f" ] || return 1
  pid=$(cat "$f")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

healthy() { # healthy <ports...>: three members of ours, each answering as healthy
  [ $# -eq 3 ] || return 1
  local p
  for p in "$@"; do member_pid "$p" >/dev/null || return 1; done
  ETCDCTL_API=3 timeout 10 etcdctl --endpoints="$(endpoints "$@")" --dial-timeout=2s \
    --command-timeout=3s endpoint health >/dev/null 2>&1
}

stop_member() { # stops our member on <port>, waiting for its port to close
  local port=$1 pid i
  pid=$(member_pid "$port") || return 0
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  die "the member on port $port (pid $pid) did not stop; see $DIR/member-$port/etcd.log"
}

stop() {
  if [ -d "$DIR" ]; then
    for d in "$DIR"/member-*; do
      [ -d "$d" ] || continue
      stop_member "${d##*/member-}"
    done
  fi
  rm -rf "$DIR"
}

choose_ports() {
  # shellcheck disable=SC2206
  local ports=(${FENCEKIT_ETCD_CLUSTER_PORTS:-2379 2381 2383})
  ports=(${ports[@]//,/ })
  [ ${#ports[@]} -eq 3 ] || die "FENCEKIT_ETCD_CLUSTER_PORTS must name three ports, got '${FENCEKIT_ETCD_CLUSTER_PORTS:-}'"
  local p
  for p in "${ports[@]}"; do
    [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -ge 1024 ] && [ "$p" -le 65534 ] \
      || die "port '$p' in FENCEKIT_ETCD_CLUSTER_PORTS must be a number from 1024 to 65534"
    if listening "$p" || listening "$((p + 1))"; then
      die "port $p or its peer port $((p + 1)) is in use by something that is not ours; stop it or set FENCEKIT_ETCD_CLUSTER_PORTS"
    fi
  done
  echo "${ports[*]}"
}

start() {
  need etcd
  need etcdctl
  need timeout
  local ports
  # shellcheck disable=SC2207
  ports=($(recorded_ports))
  if [ ${#ports[@]} -gt 0 ] && healthy "${ports[@]}"; then
    log "reusing the cluster in $DIR"
    endpoints "${ports[@]}"
    return
  fi
  if [ -d "$DIR" ]; then
    log "stopping a stale or broken cluster in $DIR"
    stop
  fi
  # shellcheck disable=SC2207
  ports=($(choose_ports))
  mkdir -p "$DIR"
  echo "${ports[*]}" >"$DIR/ports"
  local p i=0 initial=""
  for p in "${ports[@]}"; do
    i=$((i + 1))
    initial="${initial:+$initial,}m$i=http://$HOST:$((p + 1))"
  done
  i=0
  for p in "${ports[@]}"; do
    i=$((i + 1))
    local md="$DIR/member-$p"
    mkdir -p "$md"
    setsid etcd --name "m$i" --data-dir "$md/data" \
      --listen-client-urls "http://$HOST:$p" --advertise-client-urls "http://$HOST:$p" \
      --listen-peer-urls "http://$HOST:$((p + 1))" --initial-advertise-peer-urls "http://$HOST:$((p + 1))" \
      --initial-cluster "$initial" --initial-cluster-state new --initial-cluster-token fencekit-ci \
      --auto-compaction-mode revision --auto-compaction-retention 100000 \
      >"$md/etcd.log" 2>&1 </dev/null &
    echo $! >"$md/etcd.pid"
  done
  local deadline=$((SECONDS + TIMEOUT_S))
  until healthy "${ports[@]}"; do
    [ "$SECONDS" -lt "$deadline" ] || die "gave up after ${TIMEOUT_S}s waiting for three healthy members; logs in $DIR/member-*/etcd.log"
    sleep 0.3
  done
  log "cluster is up in $DIR"
  endpoints "${ports[@]}"
}

status() {
  local ports
  # shellcheck disable=SC2207
  ports=($(recorded_ports))
  if [ ${#ports[@]} -gt 0 ] && healthy "${ports[@]}"; then
    endpoints "${ports[@]}"
  else
    log "no healthy cluster in $DIR"
    return 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop; log "stopped" ;;
  status) need etcdctl; need timeout; status ;;
  *) die "usage: $0 start|stop|status" ;;
esac
