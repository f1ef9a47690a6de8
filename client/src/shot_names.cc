// The names of verdicts' outcomes and reasons: the core's, through the wire
// numbering (sator.v1's values are the core's plus one, 0 being
// unspecified).
#include "sator/client/types.h"
#include "sator/core/scene/shot_validation.h"

namespace sator {

std::string_view ShotOutcomeName(ShotOutcome outcome) {
  const int value = static_cast<int>(outcome);
  if (value < 1 || value > 3) return "unspecified";
  return scene::ShotOutcomeName(static_cast<scene::ShotOutcome>(value - 1));
}

std::string_view ShotReasonName(ShotReason reason) {
  const int value = static_cast<int>(reason);
  if (value < 1 || value > scene::kShotReasonCount) return "unspecified";
  return scene::ShotReasonName(static_cast<scene::ShotReason>(value - 1));
}

}  // namespace sator
