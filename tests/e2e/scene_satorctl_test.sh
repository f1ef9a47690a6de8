#!/usr/bin/env bash
# satorctl's scene and bodies commands against the real satord: create a
# scene, upsert bodies from a file, move one, export, import the export under
# a new id and get the same scene back; errors exit 1 with code and field.
set -euo pipefail
satord=$1
satorctl=$2
work=$(mktemp -d)
# shellcheck source=satord_lib.sh
source "$(dirname "$0")/satord_lib.sh"
start_satord "${satord}" "${work}"
ctl() { "${satorctl}" --target="127.0.0.1:${port}" --deadline=10s "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

out=$(ctl scene create arena --dimension=2 --history_ticks=16)
[[ ${out} == *'"scene_id":"arena"'* && ${out} == *'"dimension":"DIMENSION_2D"'* &&
   ${out} == *'"history_ticks":16'* ]] || fail "create: ${out}"

cat > "${work}/bodies.json" <<'JSON'
{"bodies": [
  {"body_id": 1, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"box2d": {"half_extents": {"x": 10, "y": 1}}}},
  {"body_id": 2, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"circle": {"radius": 0.5}}, "pose": {"position": {"x": 1, "y": 3}},
   "user_data": 42}
]}
JSON
out=$(ctl bodies upsert arena -f "${work}/bodies.json")
[[ ${out} == '{"created":2}' ]] || fail "upsert: ${out}"

out=$(ctl bodies poses arena --tick=3 \
  --json='{"body_ids":[2],"positions":[4,5],"rotations":[0]}')
[[ ${out} == '{"current_tick":"3"}' ]] || fail "poses: ${out}"

out=$(ctl scene get arena)
[[ ${out} == *'"body_count":"2"'* && ${out} == *'"static_body_count":"1"'* &&
   ${out} == *'"current_tick":"3"'* ]] || fail "get: ${out}"

ctl scene export arena > "${work}/arena.json"
exported=$(cat "${work}/arena.json")
[[ ${exported} == *'"current_tick":"3"'* && ${exported} == *'"position":{"x":4,"y":5}'* &&
   ${exported} == *'"user_data":"42"'* ]] || fail "export: ${exported}"

out=$(ctl scene import copy --file="${work}/arena.json")
[[ ${out} == *'"scene_id":"copy"'* && ${out} == *'"body_count":"2"'* ]] || fail "import: ${out}"
copy=$(ctl scene export copy)
[[ ${copy} == "${exported/\"scene_id\":\"arena\"/\"scene_id\":\"copy\"}" ]] ||
  fail "the imported scene differs: ${copy} vs ${exported}"

out=$(ctl scene list --page_size=1)
[[ ${out} == *'"scene_id":"arena"'* && ${out} == *'"next_page_token"'* ]] || fail "list: ${out}"

out=$(ctl bodies remove arena 2)
[[ ${out} == '{"removed":1}' ]] || fail "remove: ${out}"
out=$(ctl scene delete copy)
[[ ${out} == '{}' ]] || fail "delete: ${out}"

# Errors: exit 1 with the code and the field path.
if out=$(ctl bodies upsert arena \
    --json='{"bodies":[{"body_id":7,"motion_type":"MOTION_TYPE_STATIC","shape":{"circle":{"radius":"NaN"}}}]}' 2>&1); then
  fail "NaN radius accepted: ${out}"; fi
[[ ${out} == *'INVALID_ARGUMENT: bodies[0].shape.circle.radius: not finite'* ]] || fail "NaN: ${out}"
if out=$(ctl scene get ghost 2>&1); then fail "unknown scene: ${out}"; fi
[[ ${out} == *"NOT_FOUND: scene_id: no scene 'ghost'"* ]] || fail "ghost: ${out}"
if out=$(ctl bodies poses arena --tick=1 --json='{}' 2>&1); then fail "stale tick: ${out}"; fi
[[ ${out} == *'FAILED_PRECONDITION: tick: 1 is older than the current tick 3'* ]] || fail "stale: ${out}"
if out=$(ctl scene frobnicate 2>&1); then fail "bad subcommand: ${out}"; fi
echo "satorctl scene: all checks passed"
