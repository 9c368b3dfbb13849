#!/usr/bin/env bash
# A throwaway three-master Redis Cluster on loopback ports, for the store-redis tests.
#
#   bash .ci/redis-cluster.sh start    # prints e.g. 127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003
#   bash .ci/redis-cluster.sh status   # prints the node list if the cluster is up, else exits 1
#   bash .ci/redis-cluster.sh stop     # shuts the nodes down and removes their directory
#
# start prints the node list, in FENCEKIT_REDIS_CLUSTER_NODES form, as the last (and only) line
# of its standard output; progress goes to standard error. It is idempotent: a healthy cluster
# started earlier from the same directory is reused, anything else of ours is stopped and the
# cluster is created again. Nodes keep nothing on disk (no RDB, no AOF) and listen on 127.0.0.1
# only.
#
# Environment:
#   FENCEKIT_REDIS_CLUSTER_PORTS  three ports, e.g. "7001 7002 7003" (default). If unset and a
#                                 default port (or its cluster bus port, +10000) is taken by
#                                 something that is not ours, the next free ports are used.
#   FENCEKIT_REDIS_CLUSTER_DIR    where the nodes live (default: $TMPDIR/fencekit-redis-cluster)
set -euo pipefail

HOST=127.0.0.1
DIR="${FENCEKIT_REDIS_CLUSTER_DIR:-${TMPDIR:-/tmp}/fencekit-redis-cluster}"
TIMEOUT_S=60

log() { echo "redis-cluster: $*" >&2; }
die() { log "$*"; exit 1; }

need() {
  command -v "$1" >/dev/null 2>&1 \
    || die "$1 not found; install Redis 7 (Debian: apt-get install -y redis-server) and retry"
}

# Whether something accepts TCP connections on the loopback port.
listening() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

cli() { # cli <port> <args...>: redis-cli with a short timeout, never waiting on a dead node
  local port=$1; shift
  timeout 5 redis-cli -h "$HOST" -p "$port" "$@" 2>/dev/null
}

# Whether the node on <port> is one of ours: a Redis whose working directory is under $DIR.
ours() {
  local dir
  dir=$(cli "$1" config get dir | sed -n 2p) || return 1
  case "$dir" in "$DIR"/*) return 0 ;; *) return 1 ;; esac
}

state_ok() { cli "$1" cluster info | tr -d '\r' | grep -q '^cluster_state:ok$'; }

node_list() { # node_list <ports...> -> 127.0.0.1:p1,127.0.0.1:p2,...
  local out="" p
  for p in "$@"; do out="${out:+$out,}$HOST:$p"; done
  echo "$out"
}

recorded_ports() { [ -f "$DIR/ports" ] && cat "$DIR/ports" || true; }

healthy() { # healthy <ports...>: all ours, all ok, all 16384 slots assigned
  local p
  [ $# -eq 3 ] || return 1
  for p in "$@"; do
    ours "$p" || return 1
    state_ok "$p" || return 1
    cli "$p" cluster info | tr -d '\r' | grep -q '^cluster_slots_assigned:16384$' || return 1
  done
}

shutdown_port() { # stops the node of ours on <port>, waiting for the port to close
  local port=$1 i
  listening "$port" || return 0
  ours "$port" || { log "port $port is not one of ours; leaving it alone"; return 0; }
  cli "$port" shutdown nosave >/dev/null || true
  for i in $(seq 1 50); do listening "$port" || return 0; sleep 0.1; done
  local pidfile="$DIR/node-$port/redis.pid"
  if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  for i in $(seq 1 50); do listening "$port" || return 0; sleep 0.1; done
  die "the node on port $port did not stop; see $DIR/node-$port/redis.log"
}

stop() {
  local p
  for p in $(recorded_ports); do shutdown_port "$p"; done
  # Nodes of a run whose ports file is gone still have their directories under $DIR.
  if [ -d "$DIR" ]; then
    for d in "$DIR"/node-*; do
      [ -d "$d" ] || continue
      shutdown_port "${d##*/node-}"
    done
  fi
  rm -rf "$DIR"
}

port_free() { ! listening "$1" && ! listening "$(($1 + 10000))"; }

choose_ports() {
  if [ -n "${FENCEKIT_REDIS_CLUSTER_PORTS:-}" ]; then
    # shellcheck disable=SC2206
    local ports=(${FENCEKIT_REDIS_CLUSTER_PORTS//,/ })
    [ ${#ports[@]} -eq 3 ] || die "FENCEKIT_REDIS_CLUSTER_PORTS must name three ports, got '$FENCEKIT_REDIS_CLUSTER_PORTS'"
    local p
    for p in "${ports[@]}"; do
      [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -ge 1024 ] && [ "$p" -le 55535 ] \
        || die "port '$p' in FENCEKIT_REDIS_CLUSTER_PORTS must be a number from 1024 to 55535"
      port_free "$p" || die "port $p or its cluster bus port $((p + 10000)) is in use; choose other FENCEKIT_REDIS_CLUSTER_PORTS"
    done
    echo "${ports[*]}"
    return
  fi
  local found=() p
  for p in $(seq 7001 7999); do
    if port_free "$p"; then found+=("$p"); fi
    if [ ${#found[@]} -eq 3 ]; then echo "${found[*]}"; return; fi
  done
  die "no three free ports between 7001 and 7999 (with bus ports +10000); set FENCEKIT_REDIS_CLUSTER_PORTS"
}

start_node() {
  local port=$1
  local nd="$DIR/node-$port"
  mkdir -p "$nd"
  redis-server \
    --port "$port" --bind "$HOST" --protected-mode yes \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
    --save "" --appendonly no \
    --dir "$nd" --daemonize yes --pidfile "$nd/redis.pid" --logfile "$nd/redis.log" \
    >/dev/null || die "redis-server failed to start on port $port; see $nd/redis.log"
}

wait_until() { # wait_until <what> <command...>
  local what=$1 deadline=$((SECONDS + TIMEOUT_S)); shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || die "gave up after ${TIMEOUT_S}s waiting for $what; logs in $DIR"
    sleep 0.2
  done
}

all_ok() { local p; for p in "$@"; do state_ok "$p" || return 1; done; }
pong() { [ "$(cli "$1" ping)" = PONG ]; }

start() {
  need redis-server
  need redis-cli
  need timeout
  local ports
  # shellcheck disable=SC2207
  ports=($(recorded_ports))
  local wanted="${FENCEKIT_REDIS_CLUSTER_PORTS:-}"
  wanted="${wanted//,/ }"
  if [ ${#ports[@]} -gt 0 ] && { [ -z "$wanted" ] || [ "$(echo $wanted)" = "${ports[*]}" ]; } \
      && healthy "${ports[@]}"; then
    log "reusing the cluster in $DIR"
    node_list "${ports[@]}"
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
  local p addrs=()
  for p in "${ports[@]}"; do
    start_node "$p"
    addrs+=("$HOST:$p")
  done
  for p in "${ports[@]}"; do wait_until "redis on port $p to answer PING" pong "$p"; done
  log "creating a cluster of ${addrs[*]}"
  timeout "$TIMEOUT_S" redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes \
    >"$DIR/create.log" 2>&1 || die "redis-cli --cluster create failed; see $DIR/create.log"
  wait_until "cluster_state:ok on all nodes" all_ok "${ports[@]}"
  log "cluster is up in $DIR"
  node_list "${ports[@]}"
}

status() {
  local ports
  # shellcheck disable=SC2207
  ports=($(recorded_ports))
  if [ ${#ports[@]} -gt 0 ] && healthy "${ports[@]}"; then
    node_list "${ports[@]}"
  else
    log "no healthy cluster in $DIR"
    return 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) need redis-cli; need timeout; stop; log "stopped" ;;
  status) need redis-cli; need timeout; status ;;
  *) die "usage: $0 start|stop|status" ;;
esac
