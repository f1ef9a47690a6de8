#!/usr/bin/env bash
# Container smoke test with podman: builds the FROM-scratch image of
# deploy/docker/Dockerfile.local from this build's satord (no registry is
# reachable here, so no base image can be pulled), runs it the way the
# StatefulSet does (non-root, read-only root filesystem, --data_dir on a
# volume at /var/lib/sator) on the host network bound to 127.0.0.1, checks
# that it serves gRPC health and /metrics as user 65532, creates a scene,
# stops it with SIGTERM and checks that it drained and exited 0, then starts a
# new container on the same volume (a pod restart) and finds the scene there.
# Usage: podman_smoke_test.sh <repo> <satord> <satorctl> <out dir>
source "$(dirname "$0")/lib.sh"
repo=$1
satord=$2
satorctl=$3
out=$4

command -v podman >/dev/null 2>&1 || Skip "podman is not installed (scripts/bootstrap installs it)"
command -v runc >/dev/null 2>&1 || Skip "runc is not installed (scripts/bootstrap installs it)"
if grep -qaE '__(asan|tsan|msan)_init|__ubsan_handle_' "${satord}"; then
  Skip "satord is a sanitizer build; the image carries the Release build"
fi

rm -rf "${out}"
mkdir -p "${out}/data"
# podman 4.3 here needs runc and no default ulimits (MACHINE-NOTES).
printf '[containers]\ndefault_ulimits = []\n' >"${out}/containers.conf"
export CONTAINERS_CONF="${out}/containers.conf"
podman=(podman --runtime=runc)
tag="localhost/satord-smoke:$$"
name="satord-smoke-$$"

Cleanup() {
  "${podman[@]}" rm -f -t 0 "${name}" >/dev/null 2>&1 || true
  "${podman[@]}" rmi -f "${tag}" >/dev/null 2>&1 || true
}
trap Cleanup EXIT

"${repo}/deploy/docker/make_local_context.sh" "${satord}" "${out}/context" >/dev/null
"${podman[@]}" build -q -f "${repo}/deploy/docker/Dockerfile.local" -t "${tag}" \
  "${out}/context" >/dev/null || Fail "podman build failed"

# Can this machine run a container at all? If not, the cause is the
# environment (no cgroups, no namespaces), not satord: say so and skip.
if ! preflight=$("${podman[@]}" run --rm --network=host "${tag}" --version 2>&1); then
  Skip "podman cannot run containers here: ${preflight}"
fi
grep -q '^satord ' <<<"${preflight}" || Fail "satord --version in the image printed: ${preflight}"

# The data volume must be writable by 65532, as the StatefulSet's fsGroup
# makes it.
chown 65532:65532 "${out}/data" 2>/dev/null || chmod 0777 "${out}/data"
StartContainer() {  # StartContainer <name>: runs satord, waits for its ports.
  rm -f "${out}/data/ports.json"
  "${podman[@]}" run -d --name "$1" --network=host --read-only \
    -v "${out}/data:/var/lib/sator" "${tag}" \
    --grpc_address=127.0.0.1:0 --metrics_address=127.0.0.1:0 \
    --data_dir=/var/lib/sator --drain_deadline=5s \
    --port_file=/var/lib/sator/ports.json >/dev/null ||
    Fail "podman run failed"
  # Wait (bounded) for the port file satord writes once it serves.
  for _ in $(seq 1 100); do
    [[ -s "${out}/data/ports.json" ]] && break
    sleep 0.1
  done
  [[ -s "${out}/data/ports.json" ]] || {
    "${podman[@]}" logs "$1" >&2 || true
    Fail "satord in the container did not start serving within 10 s"
  }
  grpc_port=$(sed -E 's/.*"grpc_port":([0-9]+).*/\1/' "${out}/data/ports.json")
  metrics_port=$(sed -E 's/.*"metrics_port":([0-9]+).*/\1/' "${out}/data/ports.json")
}
StartContainer "${name}"

# Non-root, read-only root filesystem.
[[ "$("${podman[@]}" inspect "${name}" --format '{{.HostConfig.ReadonlyRootfs}}')" == true ]] ||
  Fail "the root filesystem is not read-only"
pid=$("${podman[@]}" inspect "${name}" --format '{{.State.Pid}}')
uid=$(awk '/^Uid:/ {print $2}' "/proc/${pid}/status")
[[ "${uid}" == 65532 ]] || Fail "satord runs as uid ${uid}, not 65532"

# Serving: gRPC health through satorctl, and /metrics.
health=$("${satorctl}" health --target="127.0.0.1:${grpc_port}" 2>&1) ||
  Fail "health check failed: ${health}"
grep -qi 'SERVING' <<<"${health}" || Fail "health answered: ${health}"
metrics=$(curl -sf "http://127.0.0.1:${metrics_port}/metrics") ||
  Fail "/metrics did not answer"
grep -q '^sator_build_info' <<<"${metrics}" || Fail "/metrics does not serve sator_build_info"

# A scene, to find again after the restart.
created=$("${satorctl}" scene create smoke-arena --dimension=3 \
  --target="127.0.0.1:${grpc_port}" 2>&1) || Fail "scene create failed: ${created}"

# SIGTERM (podman stop sends the image's STOPSIGNAL): drained, exit 0.
"${podman[@]}" stop -t 10 "${name}" >/dev/null
code=$("${podman[@]}" inspect "${name}" --format '{{.State.ExitCode}}')
[[ "${code}" == 0 ]] || Fail "satord exited ${code} after SIGTERM"
log=$("${podman[@]}" logs "${name}" 2>&1)
grep -q '"event":"stopped","drained":true' <<<"${log}" ||
  Fail "satord's log shows no completed drain: ${log}"

# A new container on the same volume, as a restarted pod: the scene is back.
second="${name}-restarted"
Cleanup2() { "${podman[@]}" rm -f -t 0 "${second}" >/dev/null 2>&1 || true; Cleanup; }
trap Cleanup2 EXIT
StartContainer "${second}"
found=$("${satorctl}" scene get smoke-arena --target="127.0.0.1:${grpc_port}" 2>&1) ||
  Fail "the scene did not survive the restart: ${found}"
grep -q 'smoke-arena' <<<"${found}" || Fail "scene get answered: ${found}"
"${podman[@]}" stop -t 10 "${second}" >/dev/null
echo "ok: image runs as 65532 on a read-only root, serves, drains on SIGTERM," \
  "and a restart on the same volume keeps its scenes"
