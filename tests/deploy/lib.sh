# Shared by the tests/deploy scripts. Exit code 77 is ctest's "skipped".
set -euo pipefail

Skip() {
  echo "skipped: $*"
  exit 77
}

Fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The overlays every test renders.
kOverlays=(dev prod)
