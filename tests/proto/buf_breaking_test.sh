#!/usr/bin/env bash
# The public API has no breaking change against the committed baseline
# (proto/breaking_baseline.json, buf's FILE rules), and the check is live: a
# copy of proto/ with one field's type changed must fail it.
# Exit 77 (skipped) only when buf cannot be installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
buf="${root}/scripts/buf"
"${buf}" --version >/dev/null || exit $?  # 77 when buf cannot be installed.

cd "${root}/proto"
"${buf}" breaking --against breaking_baseline.json

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
cp -r "${root}/proto/buf.yaml" "${root}/proto/breaking_baseline.json" \
  "${root}/proto/sator" "${work}/"
sed -i 's/^  uint32 max_bodies = 4;/  int32 max_bodies = 4;/' \
  "${work}/sator/v1/scene_service.proto"
grep -q '^  int32 max_bodies = 4;' "${work}/sator/v1/scene_service.proto"
cd "${work}"
if out=$("${buf}" breaking --against breaking_baseline.json 2>&1); then
  echo "FAIL: a changed field type passed buf breaking"; exit 1
fi
[[ ${out} == *'changed type from "uint32" to "int32"'* ]] || {
  echo "FAIL: unexpected buf breaking output: ${out}"; exit 1; }
echo "buf breaking: no breaking change, and a breaking one is caught"
