#!/usr/bin/env bash
# satorctl against the real satord: ping, health, generic JSON calls, pair
# queries remote and --local (which must agree), shots validate, and clear
# errors.
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
for command in ping health call pair scene bodies query shots help; do
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
set +e; ctl shots judge sh --json='{}' >/dev/null 2>&1; code=$?; set -e
[[ ${code} == 2 ]] || fail "shots judge: exit ${code}, not a usage error"

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
