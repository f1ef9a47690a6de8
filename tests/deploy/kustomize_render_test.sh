#!/usr/bin/env bash
# Renders the base and every overlay with `kubectl kustomize` (offline).
# Usage: kustomize_render_test.sh <repo> <out dir>
source "$(dirname "$0")/lib.sh"
repo=$1
out=$2
command -v kubectl >/dev/null || Skip "kubectl not installed"
mkdir -p "${out}"

# Every overlay directory must be one of kOverlays (a new overlay gets tested).
for dir in "${repo}"/deploy/k8s/overlays/*/; do
  name=$(basename "${dir}")
  [[ " ${kOverlays[*]} " == *" ${name} "* ]] ||
    Fail "overlay ${name} is not in tests/deploy/lib.sh kOverlays"
done

for target in base "${kOverlays[@]/#/overlays/}"; do
  file="${out}/$(echo "${target}" | tr / -).yaml"
  timeout 60 kubectl kustomize "${repo}/deploy/k8s/${target}" >"${file}" ||
    Fail "kubectl kustomize ${target}"
  count=$(grep -c '^kind: ' "${file}")
  echo "${target}: ${count} objects"
  [[ ${count} -ge 7 ]] || Fail "${target} rendered only ${count} objects"
done

# What the overlays promise to change.
grep -q 'replicas: 1$' "${out}/overlays-dev.yaml" || Fail "dev: replicas 1"
grep -q 'replicas: 3$' "${out}/overlays-prod.yaml" || Fail "prod: replicas 3"
grep -q -- '--log_level=debug' "${out}/overlays-dev.yaml" || Fail "dev: debug logs"
grep -q -- '--log_level=info' "${out}/overlays-prod.yaml" || Fail "prod: info logs"
grep -q 'namespace: sator-dev$' "${out}/overlays-dev.yaml" || Fail "dev namespace"
grep -q 'namespace: sator$' "${out}/overlays-prod.yaml" || Fail "prod namespace"
# Production does not serve reflection (docs/OPERATIONS.md); dev keeps it.
grep -q -- '--reflection=false' "${out}/overlays-prod.yaml" || Fail "prod: reflection off"
grep -q -- '--reflection=true' "${out}/overlays-prod.yaml" && Fail "prod: reflection on"
grep -q -- '--reflection=true' "${out}/overlays-dev.yaml" || Fail "dev: reflection on"
echo "ok"
