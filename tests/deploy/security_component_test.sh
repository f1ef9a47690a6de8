#!/usr/bin/env bash
# Renders the prod overlay with deploy/k8s/components/security added (as
# docs/DEPLOY.md tells operators to) and checks what the component promises:
# satord's TLS, token and health-port flags, the Secrets mounted read-only,
# the probes (from the base) on the plaintext health port, the Service's appProtocol; and
# that this build's satord knows every flag the component passes.
# Usage: security_component_test.sh <repo> <satord> <out dir>
source "$(dirname "$0")/lib.sh"
repo=$1
satord=$2
out=$3
command -v kubectl >/dev/null || Skip "kubectl not installed"
mkdir -p "${out}/overlay"

# kustomize wants relative paths from the overlay to the repo.
rel=$(realpath --relative-to="${out}/overlay" "${repo}")
cat >"${out}/overlay/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ${rel}/deploy/k8s/overlays/prod
components:
  - ${rel}/deploy/k8s/components/security
YAML
rendered="${out}/prod-with-security.yaml"
timeout 60 kubectl kustomize "${out}/overlay" >"${rendered}" ||
  Fail "kubectl kustomize prod + components/security"

Expect() {  # Expect <description> <extended regex>
  grep -Eq -- "$2" "${rendered}" || Fail "$1 (no match for: $2)"
}
Expect "TLS certificate flag" '^ *- --tls_cert_file=/var/run/secrets/sator/tls/tls\.crt$'
Expect "TLS key flag" '^ *- --tls_key_file=/var/run/secrets/sator/tls/tls\.key$'
Expect "token file flag" '^ *- --auth_token_file=/var/run/secrets/sator/auth/tokens$'
Expect "health port flag" '^ *- --health_address=0\.0\.0\.0:50052$'
Expect "health containerPort" 'containerPort: 50052'
Expect "TLS Secret volume" 'secretName: satord-tls$'
Expect "token Secret volume" 'secretName: satord-tokens$'
Expect "gRPC Service speaks TLS" 'appProtocol: grpc$'
# Each probe keeps its service on the health port.
for probe in startupProbe livenessProbe readinessProbe; do
  port=$(grep -A3 "^ *${probe}:" "${rendered}" | grep -Eo 'port: [0-9]+' |
         head -1)
  [[ "${port}" == "port: 50052" ]] || Fail "${probe} on the health port: ${port}"
done
Expect "liveness still asks sator.liveness" 'service: sator\.liveness'
Expect "readiness still asks sator.readiness" 'service: sator\.readiness'
# The Secrets are mounted read-only.
for mount in /var/run/secrets/sator/tls /var/run/secrets/sator/auth; do
  grep -A2 -- "mountPath: ${mount}$" "${rendered}" | grep -q 'readOnly: true' ||
    Fail "${mount} mounted read-only"
done

# Every flag the component passes is one this satord accepts.
help=$("${satord}" --helpfull 2>&1 || true)
for flag in $(grep -Eo -- '- --[a-z_]+=' "${rendered}" | sed -E 's/- --([a-z_]+)=/\1/' |
              sort -u); do
  grep -q -- "--${flag}" <<<"${help}" || Fail "satord has no flag --${flag}"
done
echo "ok"
