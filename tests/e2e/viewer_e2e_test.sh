#!/usr/bin/env bash
# The scene viewer in a real browser: satord --debug_pages hosts a 2D and a
# 3D scene with one body of every shape (made through satorctl); headless
# Chromium (Debian package chromium) loads /debug/scenes, the 2D scene and
# the 3D scene projected onto xz, and the test asserts on the DOM Chromium
# built: one <g class="body"> per body with its id and shape, the plane, the
# list's ticks and counts, the queries made through satorctl drawn over the
# scene, and a scene id from the URL shown escaped, never as markup. The
# slow-query log (threshold 1 ns) has a line per query. A past tick is drawn
# as a rewound query sees it, and a verdict's page draws the shot at the
# time it was judged at, the target's hitboxes there and, ghosted, where they
# are now. Screenshots are kept in the out dir as test artefacts. Without
# --debug_pages the pages do not exist. Exits 77 (skipped) only if Chromium
# is missing or cannot run here.
# Usage: viewer_e2e_test.sh <satord> <satorctl> <out dir>
set -euo pipefail
satord=$1
satorctl=$2
work=$3
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n "${browser}" ]] ||
  { echo "SKIP: chromium not installed (Debian package chromium)"; exit 77; }
rm -rf "${work}"
mkdir -p "${work}/profile"
# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
chrome() {
  timeout 90 "${browser}" --headless --no-sandbox --disable-gpu \
    --disable-dev-shm-usage --no-first-run --hide-scrollbars \
    --user-data-dir="${work}/profile" "$@" 2>>"${work}/chromium.log"
}
chrome --dump-dom about:blank >/dev/null ||
  { echo "SKIP: chromium cannot run here:"; tail -5 "${work}/chromium.log"; exit 77; }

pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
  done
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Starts satord with "$@"; sets grpc_port and metrics_port.
start_satord() {
  local ports="${work}/ports-${#pids[@]}.json"
  "${satord}" --grpc_address=127.0.0.1:0 --metrics_address=127.0.0.1:0 \
    --port_file="${ports}" "$@" 2>>"${work}/satord.log" &
  pids+=($!)
  for _ in $(seq 1 400); do
    [[ -s "${ports}" ]] && break
    kill -0 "${pids[-1]}" 2>/dev/null || fail "satord exited"
    sleep 0.05
  done
  [[ -s "${ports}" ]] || fail "satord wrote no port file"
  grpc_port=$(sed -E 's/.*"grpc_port":([0-9]+).*/\1/' "${ports}")
  metrics_port=$(sed -E 's/.*"metrics_port":([0-9]+).*/\1/' "${ports}")
}

# Off by default.
start_satord
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${metrics_port}/debug/scenes")
[[ ${status} == 404 ]] || fail "/debug/scenes without --debug_pages: HTTP ${status}"

start_satord --debug_pages --slow_query_threshold=1ns
ctl() { "${satorctl}" --target="127.0.0.1:${grpc_port}" --deadline=10s "$@" >/dev/null; }
ctl scene create flat --dimension=2 || fail "create flat"
ctl bodies upsert flat --json='{"bodies": [
  {"body_id": 1, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"box2d": {"half_extents": {"x": 10, "y": 0.5}}}},
  {"body_id": 2, "motion_type": "MOTION_TYPE_DYNAMIC", "shape": {"circle": {"radius": 1}},
   "pose": {"position": {"x": -6, "y": 2}}},
  {"body_id": 3, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"polygon": {"vertices": [{"x": 0, "y": 0}, {"x": 2, "y": 0}, {"x": 1, "y": 2}]}},
   "pose": {"position": {"x": -3, "y": 1}, "angle": 0.3}},
  {"body_id": 4, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"capsule2d": {"a": {"x": -1}, "b": {"x": 1}, "radius": 0.5}},
   "pose": {"position": {"x": 1, "y": 3}, "angle": 0.5}},
  {"body_id": 5, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"segment2d": {"a": {"x": 4, "y": 1}, "b": {"x": 8, "y": 4}}}},
  {"body_id": 6, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"box2d": {"half_extents": {"x": 1, "y": 1}}},
   "pose": {"position": {"x": 6, "y": 6}, "angle": 0.785}}]}' || fail "upsert flat"
ctl bodies poses flat --tick=7 \
  --json='{"body_ids":[2],"positions":[-6,3],"rotations":[0]}' || fail "poses"
ctl scene create deep --dimension=3 || fail "create deep"
ctl bodies upsert deep --json='{"bodies": [
  {"body_id": 10, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"box3d": {"half_extents": {"x": 10, "y": 10, "z": 0.5}}},
   "pose": {"orientation": {"w": 1}}},
  {"body_id": 11, "motion_type": "MOTION_TYPE_DYNAMIC", "shape": {"sphere": {"radius": 1}},
   "pose": {"position": {"x": -5, "z": 3}, "orientation": {"w": 1}}},
  {"body_id": 12, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"capsule3d": {"a": {"z": -1}, "b": {"z": 1}, "radius": 0.5}},
   "pose": {"position": {"x": -1, "z": 3}, "orientation": {"w": 1}}},
  {"body_id": 13, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"triangle": {"a": {"x": 2}, "b": {"x": 4}, "c": {"x": 3, "z": 3}}},
   "pose": {"orientation": {"w": 1}}},
  {"body_id": 14, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"hull": {"points": [{"x": 0, "y": 0, "z": 0}, {"x": 2, "y": 0, "z": 0},
                                 {"x": 0, "y": 2, "z": 0}, {"x": 0, "y": 0, "z": 2}]}},
   "pose": {"position": {"x": 5, "z": 2}, "orientation": {"w": 1}}},
  {"body_id": 15, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"mesh": {"vertices": [{"x": -9, "y": -9, "z": 6}, {"x": 9, "y": -9, "z": 6},
                                   {"x": 9, "y": 9, "z": 6}, {"x": -9, "y": 9, "z": 7}],
                      "indices": [0, 1, 2, 0, 2, 3]}},
   "pose": {"orientation": {"w": 1}}}]}' || fail "upsert deep"

# Two queries on flat: a ray that hits the circle (body 2 at (-6, 3)) and a
# sweep; both are drawn, and with a 1 ns threshold both are logged as slow.
ctl query raycast --scene=flat --json='{"query": {"origin": {"x": -9, "y": 3},
  "direction": {"x": 1}, "max_distance": 20}}' || fail "raycast"
ctl query sweep --scene=flat --json='{"query": {"shape": {"circle": {"radius": 0.25}},
  "pose": {"position": {"x": -9, "y": 7}}, "displacement": {"x": 16}}}' || fail "sweep"

# Seeing the past: a shooter (group 1) at the origin and a target (group 2)
# that moves from (10, 0) at tick 1 to (10, 6) at tick 2; a shot judged at
# tick 1 + 0.5, as the shooter saw it, when the target was at (10, 3).
ctl scene create range --dimension=2 || fail "create range"
ctl bodies upsert range --json='{"bodies": [
  {"body_id": 20, "group_id": 1, "part": 1, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"circle": {"radius": 0.5}}},
  {"body_id": 21, "group_id": 2, "part": 1, "motion_type": "MOTION_TYPE_DYNAMIC",
   "shape": {"circle": {"radius": 0.5}}}]}' || fail "upsert range"
ctl bodies poses range --tick=1 \
  --json='{"group_ids":[1,2],"group_positions":[0,0,10,0],"group_rotations":[0,0]}' ||
  fail "poses range 1"
ctl bodies poses range --tick=2 \
  --json='{"group_ids":[2],"group_positions":[10,6],"group_rotations":[0]}' ||
  fail "poses range 2"
ctl shots validate range --json='{"shots":[{"shot_id":"5","shooter_group_id":"1",
  "direction":{"x":10,"y":3},"range":20,"target":{"group_id":"2"},
  "view_tick":{"tick":"1","fraction":0.5}}]}' || fail "validate"

base="http://127.0.0.1:${metrics_port}"
chrome --dump-dom "${base}/debug/scenes/range" >"${work}/range.html"
chrome --dump-dom "${base}/debug/scenes/range?tick=1&fraction=0.5" >"${work}/range-past.html"
chrome --dump-dom "${base}/debug/scenes/range/verdicts/1" >"${work}/verdict.html"
chrome --window-size=1000,1000 --screenshot="${work}/verdict.png" \
  "${base}/debug/scenes/range/verdicts/1"
chrome --dump-dom "${base}/debug/scenes" >"${work}/list.html"
chrome --dump-dom "${base}/debug/scenes/flat" >"${work}/flat.html"
chrome --dump-dom "${base}/debug/scenes/deep?plane=xz" >"${work}/deep-xz.html"
chrome --dump-dom "${base}/debug/scenes/%3Cscript%3Ealert(1)%3C%2Fscript%3E" \
  >"${work}/escaped.html"
chrome --window-size=1000,1000 --screenshot="${work}/flat.png" "${base}/debug/scenes/flat"
chrome --window-size=1000,1000 --screenshot="${work}/deep-xz.png" \
  "${base}/debug/scenes/deep?plane=xz"

count() { grep -o "$1" "$2" | wc -l; }
# The list: both scenes, their dimension, tick and body counts.
grep -q '<tr class="scene" data-id="flat"><td><a href="/debug/scenes/flat">flat</a></td><td>2D</td><td>7</td><td>2</td><td>4</td></tr>' \
  "${work}/list.html" || fail "list row of flat: $(grep -o '<tr class="scene".*' "${work}/list.html")"
grep -q '<tr class="scene" data-id="deep">.*<td>3D</td><td>0</td><td>3</td><td>3</td>' \
  "${work}/list.html" || fail "list row of deep"

# The 2D scene: one group per body, with its id, shape and AABB.
[[ $(count '<g class="body ' "${work}/flat.html") == 6 ]] || fail "flat: body groups"
[[ $(count '<rect class="aabb"' "${work}/flat.html") == 6 ]] || fail "flat: AABBs"
for id in 1 2 3 4 5 6; do
  grep -q "id=\"body-${id}\"" "${work}/flat.html" || fail "flat: no body-${id}"
done
for shape in '1" data-shape="box' '2" data-shape="circle' '3" data-shape="polygon' \
    '4" data-shape="capsule' '5" data-shape="segment'; do
  grep -q "data-id=\"${shape}\"" "${work}/flat.html" || fail "flat: ${shape}"
done
grep -q 'class="body static" id="body-1"' "${work}/flat.html" || fail "flat: static body"
grep -q 'data-scene-id="flat" data-plane="xy" data-tick="7"' "${work}/flat.html" ||
  fail "flat: svg attributes"
# The recent queries over the scene: the ray with its hit and normal, the
# sweep's path.
[[ $(count '<g class="query raycast"' "${work}/flat.html") == 1 ]] || fail "flat: ray"
[[ $(count '<g class="query sweep"' "${work}/flat.html") == 1 ]] || fail "flat: sweep"
[[ $(count '<circle class="hit"' "${work}/flat.html") -ge 1 ]] || fail "flat: ray hit"
[[ $(count '<line class="path"' "${work}/flat.html") == 2 ]] || fail "flat: query paths"
# The slow-query log: one warning line per query, with kind, scene and tick.
for kind in raycast sweep; do
  grep -q "\"level\":\"warning\",\"event\":\"slow_query\",\"kind\":\"${kind}\",.*\"scene\":\"flat\",\"tick\":7," \
    "${work}/satord.log" || fail "no slow_query line for ${kind}: $(cat "${work}/satord.log")"
done

# The 3D scene on the xz plane.
[[ $(count '<g class="body ' "${work}/deep-xz.html") == 6 ]] || fail "deep: body groups"
grep -q 'data-scene-id="deep" data-plane="xz"' "${work}/deep-xz.html" || fail "deep: plane"
for shape in '10" data-shape="box' '11" data-shape="sphere' '12" data-shape="capsule' \
    '13" data-shape="triangle' '14" data-shape="hull' '15" data-shape="mesh'; do
  grep -q "data-id=\"${shape}\"" "${work}/deep-xz.html" || fail "deep: ${shape}"
done
# The mesh: its two triangles as one path.
grep -Eq '<path class="shape mesh" d="M[^"]*Z M?[^"]*Z"' "${work}/deep-xz.html" ||
  grep -Eq '<path class="shape mesh" d="(M[^MZ"]*Z){2}"' "${work}/deep-xz.html" ||
  fail "deep: mesh triangles"

# A scene id from the URL is text, never markup.
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "${work}/escaped.html" || fail "escaped text"
[[ $(count '<script' "${work}/escaped.html") == 0 ]] || fail "a script element was injected"

# Bad parameters are refused.
status=$(curl -s -o /dev/null -w '%{http_code}' "${base}/debug/scenes/deep?plane=up")
[[ ${status} == 400 ]] || fail "plane=up: HTTP ${status}"

# The past tick: the target halfway, at (10, 3); now it is at (10, 6).
grep -q 'id="body-21" data-id="21" data-shape="circle" data-x="10.00" data-y="3.00"' \
  "${work}/range-past.html" || fail "range at tick 1 + 0.5: $(grep -o '<g class="body[^>]*>' "${work}/range-past.html")"
grep -q 'data-scene-id="range" data-plane="xy" data-tick="1" data-fraction="0.5"' \
  "${work}/range-past.html" || fail "range at tick 1 + 0.5: svg attributes"
grep -q 'id="body-21" data-id="21" data-shape="circle" data-x="10.00" data-y="6.00"' \
  "${work}/range.html" || fail "range now"
# The scene page links its verdicts; the verdict page draws the shot and its
# hit at tick 1 + 0.5 over the target's hitbox there, the target now ghosted.
grep -q '<a href="/debug/scenes/range/verdicts/1">1</a>' "${work}/range.html" ||
  fail "range: no verdict link"
grep -q '<td id="outcome">hit</td>' "${work}/verdict.html" || fail "verdict: outcome"
grep -q '<td id="reason">hit</td>' "${work}/verdict.html" || fail "verdict: reason"
grep -q 'class="body dynamic target" id="body-21" data-id="21" data-shape="circle" data-x="10.00" data-y="3.00"' \
  "${work}/verdict.html" || fail "verdict: target at the shot's time"
grep -q 'class="body dynamic shooter" id="body-20"' "${work}/verdict.html" ||
  fail "verdict: shooter"
grep -q 'class="body dynamic ghost target" id="ghost-21" data-id="21" data-shape="circle" data-x="10.00" data-y="6.00"' \
  "${work}/verdict.html" || fail "verdict: target now, ghosted"
[[ $(count '<g id="shot" class="shot">' "${work}/verdict.html") == 1 ]] || fail "verdict: shot"
[[ $(count '<circle class="hit"' "${work}/verdict.html") == 1 ]] || fail "verdict: hit point"
status=$(curl -s -o /dev/null -w '%{http_code}' "${base}/debug/scenes/range/verdicts/9")
[[ ${status} == 404 ]] || fail "verdict 9: HTTP ${status}"
status=$(curl -s -o /dev/null -w '%{http_code}' "${base}/debug/scenes/range?tick=7")
[[ ${status} == 400 ]] || fail "tick 7 (the future): HTTP ${status}"

for png in flat deep-xz verdict; do
  [[ $(head -c 8 "${work}/${png}.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
    fail "${png}.png is not a PNG"
done
echo "ok: viewer DOM checked; screenshots in ${work}"
