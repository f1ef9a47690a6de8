#!/usr/bin/env bash
# Validates the rendered overlays offline against the Kubernetes schemas
# (npm kubernetes-models, @kubernetes-models/prometheus-operator) and asserts
# the security, probe, resource and drain promises (validate_manifests.mjs).
# Then breaks the render on purpose, one promise at a time, and checks that
# the validator refuses each broken copy.
# Usage: k8s_schema_test.sh <repo> <out dir>
source "$(dirname "$0")/lib.sh"
repo=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v kubectl >/dev/null || Skip "kubectl not installed"
command -v node >/dev/null || Skip "node not installed (Debian package nodejs)"
mkdir -p "${out}"

# Pinned versions; installed once into <repo>/.cache (the npm registry is the
# only network access).
modules="${repo}/.cache/kubernetes-models"
packages=(kubernetes-models@5.1.0 @kubernetes-models/prometheus-operator@6.0.0
          yaml@2.9.1)
if [[ ! -f "${modules}/node_modules/.sator-installed-v1" ]]; then
  command -v npm >/dev/null || Skip "npm not installed (Debian package npm)"
  echo "installing ${packages[*]} into ${modules}"
  if ! timeout 240 npm install --no-audit --no-fund --loglevel=error \
      --prefix "${modules}" "${packages[@]}"; then
    Skip "npm install ${packages[*]} failed (is the npm registry reachable?)"
  fi
  touch "${modules}/node_modules/.sator-installed-v1"
fi

files=()
for overlay in "${kOverlays[@]}"; do
  file="${out}/schema-${overlay}.yaml"
  timeout 60 kubectl kustomize "${repo}/deploy/k8s/overlays/${overlay}" \
    >"${file}" || Fail "kubectl kustomize ${overlay}"
  files+=("${file}")
done
timeout 120 node "${here}/validate_manifests.mjs" "${modules}/node_modules" \
  "${files[@]}" || Fail "rendered manifests do not validate"

# Each mutation breaks one promise; the validator must refuse it.
prod="${out}/schema-prod.yaml"
mutations=(
  's/^  replicas: 3$/  replicas: three/'                       # schema: type
  's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: false/'
  's/runAsNonRoot: true/runAsNonRoot: false/'
  's/service: sator.liveness/service: sator.readiness/'
  's/^          limits:$/          limits:\n            cpu: "2"/'
  's/terminationGracePeriodSeconds: 30/terminationGracePeriodSeconds: 10/'
  's/^      enableServiceLinks:/      enableServiceLink:/'       # unknown field
  's/clusterIP: None/clusterIP: 10.0.0.1/'
  's/- ALL$/- NET_RAW/'
  's/^    - namespaceSelector:$/    - ipBlock:\n        cidr: 0.0.0.0\/0\n    - namespaceSelector:/'
  's/^      containers:$/      containerz:/'                # schema: required
)
i=0
for mutation in "${mutations[@]}"; do
  i=$((i + 1))
  broken="${out}/schema-broken-${i}.yaml"
  sed "${mutation}" "${prod}" >"${broken}"
  cmp -s "${prod}" "${broken}" && Fail "mutation ${i} (${mutation}) changed nothing"
  if timeout 120 node "${here}/validate_manifests.mjs" \
      "${modules}/node_modules" "${broken}" >"${broken}.log" 2>&1; then
    Fail "mutation ${i} (${mutation}) was accepted"
  fi
  echo "mutation ${i} refused: $(grep -m1 '^FAIL' "${broken}.log" | cut -c1-160)"
done
echo "ok: ${#mutations[@]} broken copies refused"
