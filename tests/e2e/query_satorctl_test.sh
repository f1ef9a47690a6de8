#!/usr/bin/env bash
# satorctl query against the real satord: every kind and a batch answer with
# the bodies worked out by hand; a bad query exits 1 with its code and field
# path; an unknown kind or a missing scene is a usage error (exit 2).
set -euo pipefail
satord=$1
satorctl=$2
work=$(mktemp -d)
# shellcheck source=satord_lib.sh
source "$(dirname "$0")/satord_lib.sh"
start_satord "${satord}" "${work}"
ctl() { "${satorctl}" --target="127.0.0.1:${port}" --deadline=10s "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

# A static box of half extents 1 at (5, 0) (x in [4, 6]) and a dynamic
# circle of radius 1 at (10, 0).
ctl scene create arena --dimension=2 > /dev/null
cat > "${work}/bodies.json" <<'JSON'
{"bodies": [
  {"body_id": 1, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"box2d": {"half_extents": {"x": 1, "y": 1}}}, "pose": {"position": {"x": 5}}},
  {"body_id": 2, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"circle": {"radius": 1}}, "pose": {"position": {"x": 10}}}
]}
JSON
ctl bodies upsert arena -f "${work}/bodies.json" > /dev/null

# Along +x from the origin: the box at distance 4, then the circle at 9.
out=$(ctl query raycast --scene=arena --json='{"query": {"direction": {"x": 1},
  "max_distance": 100}, "options": {"mode": "RESULT_MODE_ALL"}}')
[[ ${out} == *'"hits":[{"body_id":"1"'*'"distance":4'*'{"body_id":"2"'*'"distance":9'* ]] ||
  fail "raycast: ${out}"

placed='{"query": {"shape": {"circle": {"radius": 1}}, "pose": {"position": {"x": 3.5}}}}'
out=$(ctl query overlap arena --json="${placed}")
[[ ${out} == *'"hits":[{"body_id":"1"'* && ${out} != *'"body_id":"2"'* ]] || fail "overlap: ${out}"
out=$(ctl query contacts --scene=arena --json="${placed}")
[[ ${out} == *'"body_id":"1"'*'"normal":{"x":-1'*'"distance":0.5'* &&
   ${out} == *'"depenetration":{"x":-0.5}'* ]] || fail "contacts: ${out}"
# The contact is 0.5 deep: a tolerance of 0.001 keeps it, one of 0.6 does not.
out=$(ctl query contacts --scene=arena --json='{"query": {"shape": {"circle": {"radius": 1}},
  "pose": {"position": {"x": 3.5}}, "min_depth": 0.001}, "options": {"mode": "RESULT_MODE_ALL"}}')
[[ ${out} == *'"body_id":"1"'*'"distance":0.5'* ]] || fail "contacts min_depth 0.001: ${out}"
out=$(ctl query contacts --scene=arena --json='{"query": {"shape": {"circle": {"radius": 1}},
  "pose": {"position": {"x": 3.5}}, "min_depth": 0.6}}')
[[ ${out} != *'"hits"'* && ${out} != *'"depenetration":{"x"'* ]] || fail "contacts min_depth 0.6: ${out}"
if out=$(ctl query contacts --scene=arena --json='{"query": {"shape": {"circle": {"radius": 1}},
  "min_depth": -1}}' 2>&1); then fail "negative min_depth accepted: ${out}"; fi
[[ ${out} == *'INVALID_ARGUMENT: query.min_depth: must be >= 0, got -1'* ]] || fail "min_depth message: ${out}"
out=$(ctl query sweep --scene=arena --json='{"query": {"shape": {"circle":
  {"radius": 0.5}}, "pose": {"position": {"x": 20}}, "displacement": {"x": -20}}}')
[[ ${out} == *'"body_id":"2"'*'"distance":0.42'* ]] || fail "sweep: ${out}"
out=$(ctl query point --scene=arena --json='{"query": {"point": {"x": 10.5}}}')
[[ ${out} == *'"body_id":"2"'* && ${out} != *'"body_id":"1"'* ]] || fail "point: ${out}"

cat > "${work}/batch.json" <<'JSON'
{"queries": [
  {"point": {"point": {"x": 5}}},
  {"raycast": {"max_distance": 1}}
]}
JSON
out=$(ctl query batch --scene=arena -f "${work}/batch.json")
[[ ${out} == *'"entries":[{"result":{"hits":[{"body_id":"1"'* &&
   ${out} == *'{"status":{"code":3,"message":"queries[1].raycast.direction: zero length","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","field_violations":[{"field":"queries[1].raycast.direction","description":"zero length"}]}]}}'* ]] ||
  fail "batch: ${out}"

# Packed rays: along +x from the origin (the box at 4, then the circle at 9),
# and along +x at y = 5 (nothing).
out=$(ctl query raybatch --scene=arena --json='{"dimension": "DIMENSION_2D",
  "origins": [0, 0, 0, 5], "directions": [1, 0, 1, 0], "max_distances": [100],
  "options": {"mode": "RESULT_MODE_ALL"}}')
[[ ${out} == *'"hit_counts":[2,0],"body_ids":["1","2"]'*'"distances":[4,9]'* ]] ||
  fail "raybatch: ${out}"

set +e
err=$(ctl query raybatch --scene=arena --json='{"dimension": "DIMENSION_2D",
  "origins": [0, 0], "directions": [0, 0], "max_distances": [1]}' 2>&1 >/dev/null)
code=$?
[[ ${code} == 1 && ${err} == *'INVALID_ARGUMENT: directions[0..1]: zero length'* ]] ||
  fail "bad raybatch: ${code} ${err}"
err=$(ctl query raycast --scene=arena --json='{"query": {"max_distance": 1}}' 2>&1 >/dev/null)
code=$?
[[ ${code} == 1 && ${err} == *'INVALID_ARGUMENT: query.direction: zero length'* ]] ||
  fail "bad query: ${code} ${err}"
err=$(ctl query raycast --scene=nowhere --json='{"query": {"direction": {"x": 1}, "max_distance": 1}}' 2>&1 >/dev/null)
code=$?
[[ ${code} == 1 && ${err} == *'NOT_FOUND: scene_id'* ]] || fail "unknown scene: ${code} ${err}"
ctl query fly --scene=arena > /dev/null 2>&1
[[ $? == 2 ]] || fail "unknown kind"
ctl query raycast > /dev/null 2>&1
[[ $? == 2 ]] || fail "missing scene"
set -e
echo "satorctl query: OK"
