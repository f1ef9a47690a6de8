#!/usr/bin/env bash
# satorctl against the real satord: ping, health, generic JSON calls, pair
# queries remote and --local (which must agree), shots validate, proximity
# zones and their watch, and clear errors.
set -euo pipefail
satord=$1
satorctl=$2
work=$(mktemp -d)
# shellcheck source=satord_lib.sh
source "$(dirname "$0")/satord_lib.sh"
start_satord "${satord}" "${work}"
ctl() { "${satorctl}" --target="127.0.0.1:${port}" --deadline=10s "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

# --help: every command on a line of its own, then satorctl's flags.
help=$("${satorctl}" --help 2>&1) || true
for command in ping health call pair scene bodies query shots proximity help; do
  [[ $(grep -cE "^  ${command} +[a-z]" <<<"${help}") == 1 ]] || fail "--help: no line for ${command}: ${help}"
done
[[ ${help} != *'No flags matched'* ]] || fail "--help lists no flags: ${help}"
[[ ${help} == *'--target'* && ${help} == *'--scene'* ]] || fail "--help misses flags: ${help}"
[[ $("${satorctl}" help scene) == *'scene create'* ]] || fail "help scene"
if out=$("${satorctl}" help nosuch 2>&1); then fail "help nosuch accepted"; fi
[[ ${out} == *"unknown command 'nosuch'"* ]] || fail "help nosuch: ${out}"

[[ $(ctl ping --payload=hi) == *'"payload":"hi"'* ]] || fail ping
[[ $(ctl health --service=sator.v1.QueryService) == '{"status":"SERVING"}' ]] || fail health

# A unit square against a circle of radius 0.5 centred 0.8 away: the circle
# reaches 0.3, the square's edge is at 0.5, so the depth is 0.2 along +x.
request='{"shape_a":{"box2d":{"half_extents":{"x":0.5,"y":0.5}}},
          "shape_b":{"circle":{"radius":0.5}},
          "pose_b":{"position":{"x":0.8}},"contact":{}}'
remote=$(ctl call sator.v1.QueryService/PairQuery --json="${request}")
[[ ${remote} == *'"overlapping":true'* && ${remote} == *'"normal":{"x":1}'* ]] || fail "call: ${remote}"
[[ ${remote} =~ \"depth\":0\.(2|19999) ]] || fail "depth: ${remote}"
echo "${request}" > "${work}/pair.json"
[[ $(ctl pair --file="${work}/pair.json") == "${remote}" ]] || fail "pair --file differs from call"
[[ $("${satorctl}" pair --local --file=- < "${work}/pair.json") == "${remote}" ]] || fail "pair --local differs from the server"

# Shots: a shooter (group 1) at the origin and a head (group 2, part 2,
# radius 0.25) moved to (0, 0, 5) at tick 1; a shot up the z axis hits the
# head 4.75 away.
ctl call sator.v1.SceneService/CreateScene \
  --json='{"scene_id":"sh","settings":{"dimension":"DIMENSION_3D"}}' >/dev/null
ctl call sator.v1.BodyService/UpsertBodies --json='{"scene_id":"sh","bodies":[
  {"body_id":1,"group_id":1,"part":1,"motion_type":"MOTION_TYPE_DYNAMIC","shape":{"sphere":{"radius":0.5}}},
  {"body_id":2,"group_id":2,"part":2,"motion_type":"MOTION_TYPE_DYNAMIC","shape":{"sphere":{"radius":0.25}}}]}' >/dev/null
ctl call sator.v1.BodyService/UpdatePoses --json='{"scene_id":"sh","tick":1,"poses":
  {"group_ids":[2],"group_positions":[0,0,5],"group_rotations":[0,0,0,1]}}' >/dev/null
cat > "${work}/shots.json" <<'JSON'
{"shots": [{"shot_id": "7", "shooter_group_id": "1", "direction": {"z": 1},
            "range": 10, "target": {"group_id": "2"}},
           {"shot_id": "8", "shooter_group_id": "1", "direction": {"x": 1},
            "range": 10}]}
JSON
verdicts=$(ctl shots validate sh -f "${work}/shots.json")
[[ ${verdicts} == *'"current_tick":"1"'* ]] || fail "shots: tick: ${verdicts}"
[[ ${verdicts} =~ \{\"shot_id\":\"7\",\"outcome\":\"SHOT_OUTCOME_HIT\",\"reason\":\"SHOT_REASON_HIT\",\"hit\":\{\"body_id\":\"2\" ]] || fail "shots: hit verdict: ${verdicts}"
[[ ${verdicts} == *'"group_id":"2","part":2'* ]] || fail "shots: hit part: ${verdicts}"
[[ ${verdicts} == *'"shot_id":"8","outcome":"SHOT_OUTCOME_MISS","reason":"SHOT_REASON_NOTHING_HIT"'* ]] || fail "shots: miss verdict: ${verdicts}"
[[ $(ctl shots validate --scene=sh --json='{"shots":[{"shooter_group_id":"1","direction":{"x":1},"range":10}]}') == *SHOT_REASON_NOTHING_HIT* ]] \
  || fail "shots --scene --json"
if out=$(ctl shots validate sh --json='{"shots":[{"shooter_group_id":"1","range":10}]}' 2>&1); then
  fail "zero shot direction accepted: ${out}"; fi
[[ ${out} == *'INVALID_ARGUMENT: shots[0].direction: zero length'* ]] || fail "shots error: ${out}"
if out=$(ctl shots validate nosuch --json='{"shots":[{"direction":{"z":1},"range":1}]}' 2>&1); then fail "unknown scene"; fi
[[ ${out} == *'NOT_FOUND: scene_id: '* ]] || fail "shots unknown scene: ${out}"
# The audit trail of the three verdicts above: 7 (hit), 8 (miss), 0 (miss).
listed=$(ctl shots list sh --json='{"filter":{"outcome":"SHOT_OUTCOME_MISS"}}')
[[ ${listed} == *'"sequence":"2"'*'"shot_id":"8"'*'"sequence":"3"'* ]] || fail "shots list: ${listed}"
[[ ${listed} != *'"sequence":"1"'* ]] || fail "shots list: the hit passed the filter: ${listed}"
if out=$(ctl shots list sh --json='{"page_token":"x"}' 2>&1); then fail "shots list: bad token accepted"; fi
[[ ${out} == *'INVALID_ARGUMENT: page_token: '* ]] || fail "shots list bad token: ${out}"
watched=$(ctl shots watch sh --from_sequence=1 --count=3)
[[ $(wc -l <<<"${watched}") == 3 ]] || fail "shots watch: not 3 lines: ${watched}"
[[ $(head -n 1 <<<"${watched}") == '{"sequence": 1, "scene_id": "sh", "shot_id": 7, "shooter_group_id": 1, "outcome": "SHOT_OUTCOME_HIT"'* ]] \
  || fail "shots watch: first line: ${watched}"
[[ $(tail -n 1 <<<"${watched}") == '{"sequence": 3, '*'"reason": "SHOT_REASON_NOTHING_HIT"'* ]] || fail "shots watch: last line: ${watched}"
set +e; ctl shots judge sh --json='{}' >/dev/null 2>&1; code=$?; set -e
[[ ${code} == 2 ]] || fail "shots judge: exit ${code}, not a usage error"

# A 2D zone (the box of half extents 2 at the origin) that a circle enters
# at tick 2 and leaves at tick 3; the watch from tick 1 prints both.
ctl scene create pz --dimension=2 >/dev/null
ctl bodies upsert pz --json='{"bodies":[{"body_id":"1","shape":{"circle":{"radius":0.5}},"pose":{"position":{"x":-10}},"motion_type":"MOTION_TYPE_DYNAMIC"}]}' >/dev/null
[[ $(ctl proximity add-zone pz --json='{"zone":{"id":"7","shape":{"box2d":{"half_extents":{"x":2,"y":2}}}}}') == '{}' ]] \
  || fail "proximity add-zone"
for step in "1 -10" "2 0" "3 5"; do
  read -r tick x <<<"${step}"
  ctl bodies poses pz --tick="${tick}" --json="{\"body_ids\":[\"1\"],\"positions\":[${x},0],\"rotations\":[0]}" >/dev/null
done
zones=$(ctl proximity watch pz --from_tick=1 --count=2)
[[ $(head -n 1 <<<"${zones}") == '{"sequence": 1, "tick": 2, "events": [{"kind": "ENTER", "zone_id": 7, "object": {"body_id": 1, "group_id": 0}}]}' ]] \
  || fail "proximity watch: first line: ${zones}"
[[ $(tail -n 1 <<<"${zones}") == '{"sequence": 2, "tick": 3, "events": [{"kind": "EXIT", "zone_id": 7, '* ]] \
  || fail "proximity watch: last line: ${zones}"
[[ $(ctl proximity get pz) == *'"zones":[{"id":"7"'*'"tick":"3"'* ]] || fail "proximity get: $(ctl proximity get pz)"
if out=$(ctl proximity add-zone pz --json='{"zone":{"id":"7","shape":{"circle":{"radius":1}}}}' 2>&1); then
  fail "a zone id used twice"; fi
[[ ${out} == *'ALREADY_EXISTS: zone.id: '* ]] || fail "proximity add-zone twice: ${out}"

# Errors: exit 1 with the code and the field path.
if out=$(ctl pair --json='{"shape_a":{"circle":{"radius":"NaN"}},"shape_b":{"circle":{"radius":1}},"overlap":{}}' 2>&1); then
  fail "NaN radius accepted: ${out}"; fi
[[ ${out} == *'INVALID_ARGUMENT: shape_a.circle.radius: not finite'* ]] || fail "NaN message: ${out}"
if out=$(ctl call sator.v1.NoSuchService/Nope --json='{}' 2>&1); then fail "unknown method"; fi
[[ ${out} == *NOT_FOUND* ]] || fail "unknown method message: ${out}"
if out=$(ctl call sator.v1.QueryService/PairQuery --json='{"shape_a": 7}' 2>&1); then fail "bad JSON"; fi
[[ ${out} == *'INVALID_ARGUMENT: request is not a valid sator.v1.PairQueryRequest'* ]] || fail "bad JSON message: ${out}"
if out=$(ctl call sator.v1.QueryService/Session --json='{}' 2>&1); then fail "streaming"; fi
[[ ${out} == *UNIMPLEMENTED* ]] || fail "streaming message: ${out}"
echo "satorctl: all checks passed"
