// Fuzzes the PairQuery decoder end to end: bytes -> PairQueryRequest ->
// validation and conversion -> the core's four pair queries -> response.
// Whatever the bytes, nothing may crash, and an accepted request must get an
// answer of its own kind with finite numbers.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "proto/convert/pair_query.h"
#include "sator/v1/query_service.pb.h"

namespace {

bool Finite(const sator::v1::Vector& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  sator::v1::PairQueryRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  // Small limits keep each input fast; the limits themselves are exercised.
  sator::convert::ShapeLimits limits;
  limits.max_hull_points = 128;
  limits.max_mesh_triangles = 512;
  limits.max_mesh_vertices = 1024;
  sator::v1::PairQueryResponse response;
  const absl::Status status =
      sator::convert::RunPairQuery(request, limits, &response);
  if (!status.ok()) {
    Check(!status.message().empty());
    return 0;
  }
  switch (request.kind_case()) {
    case sator::v1::PairQueryRequest::kOverlap:
      Check(response.has_overlap());
      break;
    case sator::v1::PairQueryRequest::kContact:
      Check(response.has_contact());
      Check(Finite(response.contact().normal()));
      Check(std::isfinite(response.contact().depth()));
      break;
    case sator::v1::PairQueryRequest::kSweep:
      Check(response.has_sweep());
      Check(std::isfinite(response.sweep().fraction()));
      Check(response.sweep().fraction() >= 0.0f &&
            response.sweep().fraction() <= 1.0f);
      break;
    case sator::v1::PairQueryRequest::kRaycast:
      Check(response.has_raycast());
      Check(std::isfinite(response.raycast().distance()));
      break;
    case sator::v1::PairQueryRequest::KIND_NOT_SET:
      Check(false);  // Refused by validation.
  }
  return 0;
}
