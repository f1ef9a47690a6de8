#!/usr/bin/env bash
# Writes the seed corpus of request_convert_fuzzer (seeds/request_convert/*.bin)
# from the text protos in seeds/request_convert_text/: the file name's prefix
# picks the message and the selector byte the fuzzer reads first
# (upsert_ 0 UpsertBodiesRequest, poses_ 1 UpdatePosesRequest, snapshot_ 2
# SceneSnapshot, query_ 3 QueryBatchRequest, raybatch_ 4 RaycastBatchRequest,
# shots_ 5 ValidateShotsRequest).
# Needs protoc. Run once and commit the output; rerunning rewrites the same
# bytes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
proto_dir="${here}/../../proto"
out="${here}/seeds/request_convert"
mkdir -p "${out}"
for text in "${here}"/seeds/request_convert_text/*.textproto; do
  stem=$(basename "${text}" .textproto)
  case "${stem}" in
    upsert_*) selector='\x00' message=sator.v1.UpsertBodiesRequest file=sator/v1/body_service.proto ;;
    poses_*) selector='\x01' message=sator.v1.UpdatePosesRequest file=sator/v1/body_service.proto ;;
    snapshot_*) selector='\x02' message=sator.v1.SceneSnapshot file=sator/v1/scene_service.proto ;;
    query_*) selector='\x03' message=sator.v1.QueryBatchRequest file=sator/v1/query_service.proto ;;
    raybatch_*) selector='\x04' message=sator.v1.RaycastBatchRequest file=sator/v1/query_service.proto ;;
    shots_*) selector='\x05' message=sator.v1.ValidateShotsRequest file=sator/v1/shot.proto ;;
    *) echo "make_convert_seeds: unknown prefix: ${stem}" >&2; exit 1 ;;
  esac
  { printf "${selector}"; protoc --encode="${message}" -I "${proto_dir}" "${file}" < "${text}"; } \
    > "${out}/${stem}.bin"
done
