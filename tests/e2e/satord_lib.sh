# Sourced by the shell e2e tests: starts a real satord on a free loopback
# port, in memory, and stops it when the script exits.
#   start_satord SATORD WORK [FLAG...]
# sets pid (the satord process) and port (its gRPC port); satord's log is
# WORK/satord.log. The EXIT trap stops satord and removes WORK.
start_satord() {
  local binary=$1
  local dir=$2
  shift 2
  trap 'if [[ -n "${pid:-}" ]]; then kill "${pid}" 2>/dev/null || true; wait "${pid}" 2>/dev/null || true; fi; rm -rf "'"${dir}"'"' EXIT
  "${binary}" --grpc_address=127.0.0.1:0 --metrics_address= \
    --port_file="${dir}/ports.json" "$@" 2>"${dir}/satord.log" &
  pid=$!
  # Bounded: 400 x 50 ms.
  for _ in $(seq 1 400); do
    [[ -s "${dir}/ports.json" ]] && break
    kill -0 "${pid}" 2>/dev/null || { cat "${dir}/satord.log"; exit 1; }
    sleep 0.05
  done
  [[ -s "${dir}/ports.json" ]] || { echo "satord did not start"; cat "${dir}/satord.log"; exit 1; }
  port=$(sed -E 's/.*"grpc_port":([0-9]+).*/\1/' "${dir}/ports.json")
}
