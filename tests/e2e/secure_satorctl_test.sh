#!/usr/bin/env bash
# satorctl's TLS and token flags against the real satord serving mutual TLS
# and bearer tokens: each flag is needed (the call fails without it, with the
# status satord or the handshake gives) and enough (the call runs with it);
# roles apply to satorctl's calls; bad flag combinations and missing files
# are clear errors; a token never appears in satorctl's messages.
set -euo pipefail
satord=$1
satorctl=$2
work=$(mktemp -d)
pid=
trap 'if [[ -n "${pid}" ]]; then kill "${pid}" 2>/dev/null || true; wait "${pid}" 2>/dev/null || true; fi; rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Certificates: a CA; a server certificate naming only satord.sator.test (so
# dialling 127.0.0.1 needs --tls_server_name); a client certificate.
cd "${work}"
ssl() { /usr/bin/openssl "$@" >>openssl.log 2>&1 || { cat openssl.log; exit 1; }; }
ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
  -subj /CN=test-ca -keyout ca.key -out ca.pem
leaf() {  # name, extensions
  printf '%s\n' "$2" > "$1.ext"
  ssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
    -keyout "$1.key" -out "$1.csr"
  ssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
    -extfile "$1.ext" -out "$1.pem"
}
leaf server $'subjectAltName=DNS:satord.sator.test\nextendedKeyUsage=serverAuth'
leaf client 'extendedKeyUsage=clientAuth'

read_token=$(/usr/bin/openssl rand -hex 32)
admin_token=$(/usr/bin/openssl rand -hex 32)
printf 'read %s reader\nadmin %s operator\n' "${read_token}" "${admin_token}" > tokens
chmod 600 tokens
printf '%s\n' "${read_token}" > read.token
printf '  %s  \n# a comment line is not read\n' "${admin_token}" > admin.token
: > empty.token

"${satord}" --grpc_address=127.0.0.1:0 --metrics_address= \
  --tls_cert_file=server.pem --tls_key_file=server.key \
  --tls_client_ca_file=ca.pem --auth_token_file=tokens \
  --port_file=ports.json 2>satord.log &
pid=$!
for _ in $(seq 1 400); do
  [[ -s ports.json ]] && break
  kill -0 "${pid}" 2>/dev/null || { cat satord.log; exit 1; }
  sleep 0.05
done
[[ -s ports.json ]] || fail "satord did not start"
port=$(sed -E 's/.*"grpc_port":([0-9]+).*/\1/' ports.json)
ctl() { "${satorctl}" --target="127.0.0.1:${port}" --deadline=10s "$@"; }
tls=(--tls_ca=ca.pem --tls_server_name=satord.sator.test
     --tls_cert=client.pem --tls_key=client.key)

# Everything given: the call runs.
out=$(ctl "${tls[@]}" --token_file=read.token ping --payload=hi) || fail "ping: ${out}"
[[ ${out} == *'"payload":"hi"'* ]] || fail "ping: ${out}"
# --token works as well (documented as visible in ps).
out=$(ctl "${tls[@]}" --token="${read_token}" ping --payload=t) || fail "--token: ${out}"
[[ ${out} == *'"payload":"t"'* ]] || fail "--token: ${out}"

# Each TLS flag is needed. (Exit 1 with the transport's status.)
if out=$(ctl --token_file=read.token ping 2>&1); then fail "plaintext to a TLS port: ${out}"; fi
[[ ${out} == *UNAVAILABLE* ]] || fail "plaintext: ${out}"
if out=$(ctl --tls_ca=ca.pem --tls_cert=client.pem --tls_key=client.key \
           --token_file=read.token ping 2>&1); then
  fail "certificate accepted for a name it does not carry: ${out}"; fi
[[ ${out} == *UNAVAILABLE* ]] || fail "no server name: ${out}"
if out=$(ctl --tls_server_name=satord.sator.test --tls_cert=client.pem \
           --tls_key=client.key --token_file=read.token ping 2>&1); then
  fail "server certificate accepted without its CA: ${out}"; fi
[[ ${out} == *UNAVAILABLE* ]] || fail "no CA: ${out}"
if out=$(ctl --tls_ca=ca.pem --tls_server_name=satord.sator.test \
           --token_file=read.token ping 2>&1); then
  fail "mutual TLS without a client certificate: ${out}"; fi
[[ ${out} == *UNAVAILABLE* ]] || fail "no client certificate: ${out}"

# The token is needed, and its role applies.
if out=$(ctl "${tls[@]}" ping 2>&1); then fail "no token: ${out}"; fi
[[ ${out} == *UNAUTHENTICATED* ]] || fail "no token: ${out}"
if out=$(ctl "${tls[@]}" --token_file=read.token scene create arena --dimension=2 2>&1); then
  fail "read token created a scene: ${out}"; fi
[[ ${out} == *'PERMISSION_DENIED: role read may not call /sator.v1.SceneService/CreateScene'* ]] ||
  fail "read role: ${out}"
[[ ${out} != *"${read_token}"* ]] || fail "token echoed: ${out}"
out=$(ctl "${tls[@]}" --token_file=admin.token scene create arena --dimension=2) ||
  fail "admin create: ${out}"
[[ ${out} == *'"scene_id":"arena"'* ]] || fail "admin create: ${out}"
out=$(ctl "${tls[@]}" --token_file=read.token call sator.v1.SceneService/GetScene \
        --json='{"scene_id":"arena"}') || fail "get: ${out}"
[[ ${out} == *'"scene_id":"arena"'* ]] || fail "get: ${out}"
# Health is open to probes: TLS, no token.
[[ $(ctl "${tls[@]}" health) == '{"status":"SERVING"}' ]] || fail health

# Bad flags: exit 1, the flag named, never the token.
if out=$(ctl "${tls[@]}" --token_file=read.token --token="${admin_token}" ping 2>&1); then
  fail "both token flags: ${out}"; fi
[[ ${out} == *'INVALID_ARGUMENT: give --token_file or --token, not both'* ]] || fail "both: ${out}"
[[ ${out} != *"${admin_token}"* ]] || fail "token echoed: ${out}"
if out=$(ctl "${tls[@]}" --token_file=missing.token ping 2>&1); then fail "missing token file"; fi
[[ ${out} == *'NOT_FOUND: --token_file: cannot read missing.token'* ]] || fail "missing: ${out}"
if out=$(ctl "${tls[@]}" --token_file=empty.token ping 2>&1); then fail "empty token file"; fi
[[ ${out} == *'INVALID_ARGUMENT: --token_file: empty.token has no token on its first line'* ]] ||
  fail "empty: ${out}"
if out=$(ctl --tls_ca=ca.pem --tls_cert=client.pem --token_file=read.token ping 2>&1); then
  fail "cert without key"; fi
[[ ${out} == *'INVALID_ARGUMENT: give --tls_cert and --tls_key together, or neither'* ]] ||
  fail "cert without key: ${out}"
if out=$(ctl --tls_ca=missing.pem ping 2>&1); then fail "missing CA file"; fi
[[ ${out} == *'NOT_FOUND: --tls_ca: cannot read missing.pem'* ]] || fail "missing CA: ${out}"
[[ $(grep -c -e "${read_token}" -e "${admin_token}" satord.log || true) == 0 ]] ||
  fail "a token in satord's log"
echo "secure satorctl: all checks passed"
