#!/usr/bin/env bash
# yamllint on every YAML file under deploy/ (Debian package yamllint).
# Usage: yamllint_test.sh <repo>
source "$(dirname "$0")/lib.sh"
repo=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v yamllint >/dev/null ||
  Skip "yamllint not installed (Debian package yamllint)"
mapfile -t files < <(find "${repo}/deploy" -name '*.yaml' -o -name '*.yml' | sort)
[[ ${#files[@]} -gt 0 ]] || Fail "no YAML under deploy/"
timeout 120 yamllint --strict -c "${here}/yamllint.yaml" "${files[@]}" ||
  Fail "yamllint"
echo "ok: ${#files[@]} files"
