#!/usr/bin/env bash
# Makes the build context of Dockerfile.local: satord, the shared libraries
# `ldd` lists (copied to the same paths), the dynamic loader, and minimal
# /etc/passwd and /etc/group for user 65532 ("nonroot").
# Usage: make_local_context.sh <satord binary> <out dir>
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 <satord binary> <out dir>" >&2
  exit 2
fi
binary=$1
out=$2
[[ -x "${binary}" ]] || { echo "$0: ${binary} is not executable" >&2; exit 1; }

rm -rf "${out}"
mkdir -p "${out}/rootfs/usr/bin" "${out}/rootfs/etc" "${out}/data"
cp "${binary}" "${out}/rootfs/usr/bin/satord"

# ldd prints "name => /path (addr)" for libraries and "/path (addr)" for the
# loader; copy each resolved file under its own path (symlinks resolved).
ldd "${binary}" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' |
  sort -u | while read -r lib; do
    mkdir -p "${out}/rootfs$(dirname "${lib}")"
    cp -L "${lib}" "${out}/rootfs${lib}"
  done
if ldd "${binary}" | grep -q 'not found'; then
  echo "$0: ldd reports a missing library:" >&2
  ldd "${binary}" | grep 'not found' >&2
  exit 1
fi

printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/var/lib/sator:/sbin/nologin\n' \
  >"${out}/rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"${out}/rootfs/etc/group"
echo "context in ${out}: $(find "${out}/rootfs" -type f | wc -l) files"
