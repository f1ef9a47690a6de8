// The five kinds of scene query: one enum for the core's callers, the wire
// (v1::Query's oneof) and the metrics' `kind` label.
#ifndef SATOR_CORE_SCENE_QUERY_KIND_H_
#define SATOR_CORE_SCENE_QUERY_KIND_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace sator::scene {

enum class QueryKind : std::uint8_t {
  kOverlap = 0,
  kContacts,
  kSweep,
  kRaycast,
  kPoint,
};
inline constexpr int kQueryKinds = 5;

// "overlap", "contacts", "sweep", "raycast", "point": the names of
// v1::Query's oneof fields, and the metrics' labels.
inline absl::string_view QueryKindName(QueryKind kind) {
  static constexpr std::array<absl::string_view, kQueryKinds> kNames = {
      "overlap", "contacts", "sweep", "raycast", "point"};
  const auto index = static_cast<std::size_t>(kind);
  return index < kNames.size() ? kNames[index] : "unknown";
}

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_QUERY_KIND_H_
