#!/usr/bin/env bash
# Checks the container images without a container engine:
#  1. deploy/docker/Dockerfile and Dockerfile.local make the promises of
#     docs/DEPLOY.md (base images, bootstrap packages, user 65532, ports,
#     STOPSIGNAL, OCI labels, /var/lib/sator, 0.0.0.0 binds);
#  2. the runtime package list of Dockerfile covers every library satord
#     links (ldd + dpkg -S);
#  3. make_local_context.sh gives a root filesystem whose libraries alone
#     load satord, and satord started from it, with each overlay's flags file
#     (the ConfigMap), serves on 127.0.0.1 and drains on SIGTERM.
# Usage: image_test.sh <repo> <satord binary> <out dir>
source "$(dirname "$0")/lib.sh"
repo=$1
satord=$2
out=$3
docker="${repo}/deploy/docker"
[[ -x "${satord}" ]] || Fail "satord not built: ${satord}"
# The image ships a Release satord; a sanitizer build links runtimes no image
# carries and does not run under an explicit loader, so it proves nothing.
if grep -qaE '__(asan|tsan|msan)_init|__ubsan_handle_' "${satord}"; then
  Skip "satord is a sanitizer build; the image test runs on the Release build"
fi
mkdir -p "${out}"

Has() {  # Has <file> <extended regex> <what>
  grep -Eq -- "$2" "$1" || Fail "$(basename "$1"): $3"
}
for file in "${docker}/Dockerfile" "${docker}/Dockerfile.local"; do
  Has "${file}" '^USER 65532:65532$' "USER 65532"
  Has "${file}" '^EXPOSE 50051 9464$' "EXPOSE 50051 9464"
  Has "${file}" '^STOPSIGNAL SIGTERM$' "STOPSIGNAL SIGTERM"
  Has "${file}" 'org.opencontainers.image.title=' "OCI title label"
  Has "${file}" 'org.opencontainers.image.version=' "OCI version label"
  Has "${file}" '/var/lib/sator' "data under /var/lib/sator"
  Has "${file}" '"--grpc_address=0.0.0.0:50051", "--metrics_address=0.0.0.0:9464"' \
    "binds 0.0.0.0"
  Has "${file}" '^ENTRYPOINT \["/usr/bin/satord"\]$' "ENTRYPOINT satord"
done
Has "${docker}/Dockerfile" '^FROM debian:bookworm AS build$' "builds on bookworm"
Has "${docker}/Dockerfile" '^FROM debian:bookworm-slim$' "runs on bookworm-slim"
Has "${docker}/Dockerfile" 'COPY scripts/bootstrap ' "uses scripts/bootstrap"
Has "${docker}/Dockerfile" 'org.opencontainers.image.source=' "OCI source label"
Has "${docker}/Dockerfile.local" '^FROM scratch$' "FROM scratch"
echo "Dockerfiles: ok"

# 2. Runtime packages of Dockerfile against what satord links.
if command -v dpkg >/dev/null; then
  mapfile -t listed < <(sed -n '/RUNTIME-PACKAGES-BEGIN/,/RUNTIME-PACKAGES-END/p' \
    "${docker}/Dockerfile" | grep -Eo '^ +lib[a-z0-9.+-]+|^ +zlib1g' | tr -d ' ')
  [[ ${#listed[@]} -gt 0 ]] || Fail "no runtime package list in Dockerfile"
  # In debian:bookworm-slim already (Essential: yes).
  base=(libc6 libgcc-s1)
  missing=()
  for lib in $(ldd "${satord}" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'); do
    package=$(dpkg -S "$(readlink -f "${lib}")" 2>/dev/null | head -1 | cut -d: -f1 ||
              true)
    [[ -n "${package}" ]] || package=$(dpkg -S "${lib}" 2>/dev/null | head -1 |
                                        cut -d: -f1 || true)
    [[ -n "${package}" ]] || { echo "note: no package owns ${lib}"; continue; }
    [[ " ${listed[*]} ${base[*]} " == *" ${package} "* ]] ||
      missing+=("${package} (${lib})")
  done
  [[ ${#missing[@]} -eq 0 ]] ||
    Fail "Dockerfile runtime packages lack: ${missing[*]}"
  echo "runtime packages: ok (${#listed[@]} listed)"
else
  echo "note: dpkg not found, runtime package list not checked"
fi

# 3. The local image's root filesystem, run through its own loader.
context="${out}/context"
"${docker}/make_local_context.sh" "${satord}" "${context}" ||
  Fail "make_local_context.sh"
rootfs="${context}/rootfs"
loader=$(find "${rootfs}/lib64" "${rootfs}/lib" -maxdepth 1 -name 'ld-linux*.so*' \
  2>/dev/null | head -1)
[[ -n "${loader}" ]] || Fail "no dynamic loader in the context"
libpath="${rootfs}/lib/x86_64-linux-gnu:${rootfs}/usr/lib/x86_64-linux-gnu:${rootfs}/lib:${rootfs}/usr/lib"
# Every library must resolve inside the root filesystem, never on the host.
listing=$(env -i "${loader}" --inhibit-cache --library-path "${libpath}" --list \
  "${rootfs}/usr/bin/satord") || Fail "loader --list"
outside=$(echo "${listing}" | awk '$2 == "=>" {print $3}' | grep -v "^${rootfs}/" || true)
[[ -z "${outside}" ]] || Fail "libraries resolved outside the image: ${outside}"
grep -q '^nonroot:x:65532:65532:' "${rootfs}/etc/passwd" || Fail "/etc/passwd user 65532"

for overlay in "${kOverlays[@]}"; do
  flags="${repo}/deploy/k8s/overlays/${overlay}/satord.flags"
  [[ -f "${flags}" ]] || flags="${repo}/deploy/k8s/base/satord.flags"
  drain=$(sed -n 's/^--drain_deadline=\([0-9]*\)s$/\1/p' "${flags}")
  [[ -n "${drain}" ]] || Fail "${flags}: --drain_deadline=<N>s expected"
  port_file="${out}/port-${overlay}.json"
  log="${out}/satord-${overlay}.log"
  rm -f "${port_file}"
  env -i "${loader}" --inhibit-cache --library-path "${libpath}" \
    "${rootfs}/usr/bin/satord" --grpc_address=127.0.0.1:0 \
    --metrics_address=127.0.0.1:0 --port_file="${port_file}" \
    --flagfile="${flags}" 2>"${log}" &
  pid=$!
  for _ in $(seq 100); do
    [[ -s "${port_file}" ]] && break
    kill -0 "${pid}" 2>/dev/null || break
    sleep 0.1
  done
  if [[ ! -s "${port_file}" ]]; then
    kill -KILL "${pid}" 2>/dev/null || true
    cat "${log}" >&2
    Fail "${overlay}: satord did not start within 10 s"
  fi
  kill -TERM "${pid}"
  status=0
  for _ in $(seq 150); do
    kill -0 "${pid}" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "${pid}" 2>/dev/null; then
    kill -KILL "${pid}"
    Fail "${overlay}: satord still running 15 s after SIGTERM"
  fi
  wait "${pid}" || status=$?
  [[ ${status} -eq 0 ]] || { cat "${log}" >&2; Fail "${overlay}: exit ${status}"; }
  grep -q "\"drain_deadline_ms\":$((drain * 1000))" "${log}" ||
    { cat "${log}" >&2; Fail "${overlay}: flags file not applied (drain ${drain}s)"; }
  grep -q '"event":"stopped","drained":true' "${log}" ||
    { cat "${log}" >&2; Fail "${overlay}: no clean drain"; }
  echo "${overlay}: satord from the image root filesystem served and drained"
done
echo "ok"
