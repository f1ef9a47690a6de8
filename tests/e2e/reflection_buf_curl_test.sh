#!/usr/bin/env bash
# A client nobody here wrote: `buf curl` lists satord's services through
# server reflection and calls Ping and the health check. Exits 77 (skipped)
# only if buf cannot be installed.
set -euo pipefail
satord=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
buf="${root}/scripts/buf"
"${buf}" --version >/dev/null || exit $?

work=$(mktemp -d)
# shellcheck source=satord_lib.sh
source "$(dirname "$0")/satord_lib.sh"
start_satord "${satord}" "${work}"
url="http://127.0.0.1:${port}"
curl_args=(curl --protocol grpc --http2-prior-knowledge --timeout 10s)

services=$("${buf}" "${curl_args[@]}" --list-services "${url}")
for expected in sator.v1.QueryService grpc.health.v1.Health; do
  grep -qx "${expected}" <<<"${services}" || {
    echo "missing service ${expected} in: ${services}"; exit 1; }
done

# "aGVsbG8=" is base64 for "hello".
pong=$("${buf}" "${curl_args[@]}" -d '{"payload":"aGVsbG8="}' \
  "${url}/sator.v1.QueryService/Ping")
grep -q '"payload": "aGVsbG8="' <<<"${pong}" || { echo "bad Ping: ${pong}"; exit 1; }

# The health service's schema comes through reflection too (README.md).
health=$("${buf}" "${curl_args[@]}" \
  -d '{"service":"sator.v1.QueryService"}' "${url}/grpc.health.v1.Health/Check")
grep -q '"status": "SERVING"' <<<"${health}" || { echo "bad health: ${health}"; exit 1; }
echo "buf curl: reflection, Ping and health OK"
