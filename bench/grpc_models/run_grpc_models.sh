#!/usr/bin/env bash
# Measures the three gRPC server models (echo_servers.h) in one time window:
# for each repetition, each model in turn (the order rotates) runs as its own
# process on 127.0.0.1 and the client (another process) loads it with unary
# Ping and Session streams at concurrency 1 and 64. Prints one JSON line per
# run and then a table of medians over the repetitions.
#
#   bench/grpc_models/run_grpc_models.sh build/bin [REPETITIONS] [SECONDS]
set -euo pipefail
bin=$1
reps=${2:-3}
seconds=${3:-2}
work=$(mktemp -d)
pid=
trap 'if [[ -n "${pid}" ]]; then kill "${pid}" 2>/dev/null || true; wait "${pid}" 2>/dev/null || true; fi; rm -rf "${work}"' EXIT
models=(sync callback async)
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for rep in $(seq 1 "${reps}"); do
  for i in 0 1 2; do
    model=${models[$(( (i + rep) % 3 ))]}
    rm -f "${work}/port"
    "${bin}/grpc_models_server" --model="${model}" --port_file="${work}/port" &
    pid=$!
    for _ in $(seq 1 200); do [[ -s "${work}/port" ]] && break; sleep 0.05; done
    [[ -s "${work}/port" ]] || { echo "server ${model} did not start" >&2; exit 1; }
    port=$(cat "${work}/port")
    for kind in unary stream; do
      for concurrency in 1 64; do
        line=$("${bin}/grpc_models_client" --target="127.0.0.1:${port}" \
          --kind="${kind}" --concurrency="${concurrency}" \
          --duration="${seconds}s" --warmup=500ms)
        echo "{\"model\":\"${model}\",\"rep\":${rep},${line:1}" | tee -a "${work}/runs.jsonl"
      done
    done
    kill "${pid}"; wait "${pid}" || true; pid=
  done
done
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
/usr/bin/python3 - "${work}/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
print("| case | model | QPS (median) | p50 µs | p99 µs | runs |")
print("| --- | --- | --- | --- | --- | --- |")
for kind in ("unary", "stream"):
    for concurrency in (1, 64):
        for model in ("sync", "callback", "async"):
            rows = [r for r in runs if r["kind"] == kind and
                    r["concurrency"] == concurrency and r["model"] == model]
            med = lambda key: statistics.median(r[key] for r in rows)
            print(f"| {kind} c={concurrency} | {model} | {med('qps'):.0f} | "
                  f"{med('p50_us'):.0f} | {med('p99_us'):.0f} | {len(rows)} |")
PY
