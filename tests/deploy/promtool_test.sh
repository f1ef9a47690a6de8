#!/usr/bin/env bash
# promtool check config / check rules on deploy/prometheus, then the alert
# unit tests (alerts_test.yml), then the same tests against copies of the
# rules with a threshold moved, which must fail (Debian package prometheus).
# Usage: promtool_test.sh <repo> <out dir>
source "$(dirname "$0")/lib.sh"
repo=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v promtool >/dev/null ||
  Skip "promtool not installed (Debian package prometheus)"
mkdir -p "${out}"
prom="${repo}/deploy/prometheus"

timeout 60 promtool check config "${prom}/prometheus.yml" || Fail "check config"
timeout 60 promtool check rules "${prom}/alerts.yml" || Fail "check rules"
timeout 120 promtool test rules "${here}/alerts_test.yml" || Fail "test rules"

# Each broken copy must make the unit tests fail.
mutations=(
  's/) > 0.050$/) > 0.2/'          # latency threshold above the slow case
  's/) > 0.05$/) > 0.2/'           # error threshold above the failing case
  's/grpc_code!="OK"/grpc_code!="Internal"/'
  's/for: 2m$/for: 30m/'
  '/SatordWalSyncSlow/,$ s/) > 0.1$/) > 0.5/'  # flush threshold above the slow pod
  's/sator_wal_failed{job=~"satord|satord-local"} == 1/sator_wal_failed{job=~"satord|satord-local"} == 2/'
  '/SatordRequestsShed/,/for:/ s/) > 0$/) > 2/'  # shed threshold above 1/s
  's/outcome=~"failed|lost"} > 0$/outcome=~"failed|lost"} > 5/'  # more than the 3 given up
  's/outcome=~"failed|lost"}/outcome="failed"}/'  # blind to records a gap lost
  '/SatordSessionLatencyP99/,$ s/) > 0.025$/) > 0.1/'  # above the slow queries
  's/rate(sator_session_message_seconds_bucket{job=~"satord|satord-local"}/rate(sator_session_message_seconds_bucket{job=~"satord|satord-local", kind="open"}/'
)
i=0
for mutation in "${mutations[@]}"; do
  i=$((i + 1))
  dir="${out}/broken-${i}"
  mkdir -p "${dir}/deploy/prometheus" "${dir}/tests/deploy"
  sed "${mutation}" "${prom}/alerts.yml" >"${dir}/deploy/prometheus/alerts.yml"
  cmp -s "${prom}/alerts.yml" "${dir}/deploy/prometheus/alerts.yml" &&
    Fail "mutation ${i} (${mutation}) changed nothing"
  cp "${here}/alerts_test.yml" "${dir}/tests/deploy/"
  if timeout 120 promtool test rules "${dir}/tests/deploy/alerts_test.yml" \
      >"${dir}/log" 2>&1; then
    Fail "mutation ${i} (${mutation}) passed the alert tests"
  fi
done
echo "ok: ${#mutations[@]} broken rule files caught"
