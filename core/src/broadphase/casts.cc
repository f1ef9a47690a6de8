#include "sator/core/broadphase/casts.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace sator::broadphase {

template <int D>
absl::Status ValidateVector(const Vec<D>& v, const char* what) {
  for (int i = 0; i < D; ++i) {
    if (!std::isfinite(v[i])) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: component %d is not finite", what, i));
    }
    if (std::fabs(v[i]) > kMaxQueryCoordinate) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: component %d (%g) exceeds the broad phase's "
                          "limit of %g",
                          what, i, v[i], kMaxQueryCoordinate));
    }
  }
  return absl::OkStatus();
}

template <int D>
absl::Status ValidateBox(const Aabb<D>& box, const char* what) {
  if (absl::Status s = ValidateVector<D>(box.min, what); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateVector<D>(box.max, what); !s.ok()) {
    return s;
  }
  for (int i = 0; i < D; ++i) {
    if (box.min[i] > box.max[i]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: min[%d] (%g) is greater than max[%d] (%g)", what,
                          i, box.min[i], i, box.max[i]));
    }
  }
  return absl::OkStatus();
}

namespace {
absl::Status ValidateFraction(float max_fraction) {
  if (!(max_fraction >= 0.0f && max_fraction <= 1.0f)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("max_fraction (%g) must be in [0, 1]", max_fraction));
  }
  return absl::OkStatus();
}
}  // namespace

template <int D>
absl::Status ValidateRayCast(const RayCastInput<D>& input) {
  if (absl::Status s = ValidateVector<D>(input.origin, "ray origin"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateVector<D>(input.translation, "ray translation");
      !s.ok()) {
    return s;
  }
  return ValidateFraction(input.max_fraction);
}

template <int D>
absl::Status ValidateBoxCast(const BoxCastInput<D>& input) {
  if (absl::Status s = ValidateBox<D>(input.box, "cast box"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateVector<D>(input.translation, "cast translation");
      !s.ok()) {
    return s;
  }
  return ValidateFraction(input.max_fraction);
}

template absl::Status ValidateVector<2>(const Vec<2>&, const char*);
template absl::Status ValidateVector<3>(const Vec<3>&, const char*);
template absl::Status ValidateBox<2>(const Aabb<2>&, const char*);
template absl::Status ValidateBox<3>(const Aabb<3>&, const char*);
template absl::Status ValidateRayCast<2>(const RayCastInput<2>&);
template absl::Status ValidateRayCast<3>(const RayCastInput<3>&);
template absl::Status ValidateBoxCast<2>(const BoxCastInput<2>&);
template absl::Status ValidateBoxCast<3>(const BoxCastInput<3>&);

}  // namespace sator::broadphase
