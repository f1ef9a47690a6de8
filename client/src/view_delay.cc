// ViewDelayToRewind (types.h): the core's conversion, with its inputs
// checked first.
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "sator/client/types.h"
#include "sator/core/field_status.h"
#include "sator/core/scene/scene_types.h"
#include "sator/core/scene/shot_validation.h"

namespace sator {

absl::StatusOr<Rewind> ViewDelayToRewind(std::int64_t current_tick,
                                         double tick_rate, double delay_ms) {
  if (current_tick < 0) {
    return FieldError("current_tick",
                      absl::StrCat("must be >= 0, got ", current_tick));
  }
  if (!(tick_rate > 0.0) || tick_rate > kMaxTickRate) {
    return FieldError("tick_rate", absl::StrCat("must be in (0, ", kMaxTickRate,
                                                "], got ", tick_rate));
  }
  if (!std::isfinite(delay_ms)) {
    return FieldError("delay_ms", "not finite");
  }
  // The view time in ticks, in double as the core computes it: a tick
  // before 0 is outside every history.
  const double ticks =
      static_cast<double>(current_tick) - delay_ms * tick_rate / 1000.0;
  // The server's bound on ticks (kMaxTick, 2^62), which keeps the split
  // below exact in int64.
  constexpr double kMaxTicks = 4611686018427387904.0;
  if (ticks > kMaxTicks) {
    return FieldError(absl::StatusCode::kOutOfRange, "delay_ms",
                      absl::StrCat(delay_ms, " ms names a tick beyond 2^62"));
  }
  if (ticks < 0.0) {
    return FieldError(absl::StatusCode::kOutOfRange, "delay_ms",
                      absl::StrCat(delay_ms, " ms at ", tick_rate,
                                   " ticks per second is before tick 0"));
  }
  const scene::Rewind rewind =
      scene::ViewDelayToRewind(current_tick, tick_rate, delay_ms);
  return Rewind{.tick = rewind.tick, .fraction = rewind.fraction};
}

}  // namespace sator
