#!/usr/bin/env bash
# Runs the shell blocks of the docs marked `sh snippet`
# (tests/docs/extract_snippets.py) against a real satord on a free port:
# each block runs under `set -euo pipefail` in a scratch directory where
# build/bin/satorctl is satorctl aimed at that satord, so every command must
# succeed as written. Usage: doc_shell_snippets_test.sh SATORD SATORCTL DOC...
set -euo pipefail
satord=$(realpath "$1")
satorctl=$(realpath "$2")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
# shellcheck source=satord_lib.sh
source "$(dirname "$0")/satord_lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

/usr/bin/python3 "${here}/../docs/extract_snippets.py" sh "${work}/snippets" "$@" >/dev/null ||
  fail "no snippet extracted from $*"
start_satord "${satord}" "${work}"

mkdir -p "${work}/run/build/bin"
cat >"${work}/run/build/bin/satorctl" <<WRAPPER
#!/usr/bin/env bash
exec "${satorctl}" --target=127.0.0.1:${port} --deadline=10s "\$@"
WRAPPER
chmod +x "${work}/run/build/bin/satorctl"

count=0
for snippet in "${work}"/snippets/*.sh; do
  count=$((count + 1))
  status=0
  (cd "${work}/run" && timeout 60 bash -euo pipefail "${snippet}") \
    >"${work}/out" 2>&1 || status=$?
  if [[ ${status} -ne 0 ]]; then
    echo "exit ${status}"; cat "${work}/out"
    fail "$(head -1 "${snippet}" | sed 's/^# //') did not run as written"
  fi
done
[[ ${count} -gt 0 ]] || fail "no snippet"
echo "ok: ${count} shell snippets ran"
