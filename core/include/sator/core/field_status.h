// Statuses that name the offending field of an input by its path, e.g.
// `bodies[3].shape.polygon.vertices[2].x`.
//
// The path travels with the status as a payload (kFieldPathPayloadUrl), and
// the message starts with it for people to read: `bodies[3].id: must not be
// 0`. Code that needs the field reads it with FieldViolationOf, never from
// the message. A function reports the path relative to what it was given
// ("radius: not finite"); each caller prepends its own segment on the way out
// with PrefixField or PrefixIndex. Strings are built only for an error, never
// on the success path.
#ifndef SATOR_CORE_FIELD_STATUS_H_
#define SATOR_CORE_FIELD_STATUS_H_

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace sator {

// The payload key under which a status keeps the path of its field.
inline constexpr absl::string_view kFieldPathPayloadUrl =
    "type.sator.dev/sator.FieldPath";

// A status `code` with the message "field: problem", naming `field`.
inline absl::Status FieldError(absl::StatusCode code, absl::string_view field,
                               absl::string_view problem) {
  absl::Status status(code, absl::StrCat(field, ": ", problem));
  status.SetPayload(kFieldPathPayloadUrl, absl::Cord(field));
  return status;
}

// An INVALID_ARGUMENT naming `field`.
inline absl::Status FieldError(absl::string_view field,
                               absl::string_view problem) {
  return FieldError(absl::StatusCode::kInvalidArgument, field, problem);
}

namespace field_status_internal {

// `status`'s code and the message `message`, naming `path`, with the other
// payloads `status` carries.
inline absl::Status Rebuilt(const absl::Status& status,
                            absl::string_view message, absl::string_view path) {
  absl::Status out(status.code(), message);
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& value) {
    out.SetPayload(url, value);
  });
  out.SetPayload(kFieldPathPayloadUrl, absl::Cord(path));
  return out;
}

}  // namespace field_status_internal

// `status` with `field` in front of the field it names, keeping its code: a
// status naming `radius` becomes one naming `shape.radius` (and one naming
// `[2].x` becomes `vertices[2].x`). A status naming no field (or an empty
// path) comes to name `field` itself, its message becoming the problem. OK
// stays OK.
inline absl::Status PrefixField(absl::string_view field,
                                const absl::Status& status) {
  if (status.ok()) return status;
  const auto inner =  // an absl::optional<absl::Cord>
      status.GetPayload(kFieldPathPayloadUrl);
  const std::string inner_path = inner.has_value() ? std::string(*inner) : "";
  if (inner_path.empty()) {
    return field_status_internal::Rebuilt(
        status, absl::StrCat(field, ": ", status.message()), field);
  }
  const absl::string_view separator = inner_path.front() == '[' ? "" : ".";
  const std::string path = absl::StrCat(field, separator, inner_path);
  absl::string_view rest = status.message();
  if (!absl::ConsumePrefix(&rest, inner_path)) {
    // A message that does not start with its path keeps it whole.
    return field_status_internal::Rebuilt(
        status, absl::StrCat(path, ": ", status.message()), path);
  }
  return field_status_internal::Rebuilt(status, absl::StrCat(path, rest), path);
}

// PrefixField with "field[index]".
inline absl::Status PrefixIndex(absl::string_view field, int index,
                                const absl::Status& status) {
  if (status.ok()) return status;
  return PrefixField(absl::StrCat(field, "[", index, "]"), status);
}

// The path of the field `status` names, whatever its code; none when it
// names no field.
inline std::optional<std::string> FieldPathOf(const absl::Status& status) {
  const auto path =  // an absl::optional<absl::Cord>
      status.GetPayload(kFieldPathPayloadUrl);
  if (!path.has_value()) return std::nullopt;
  return std::string(*path);
}

// `status` naming `path` instead of the field it names, its message's
// leading path replaced too (a message that does not start with the old
// path keeps it whole, after "path: "); as it is when it names no field.
inline absl::Status RenameField(const absl::Status& status,
                                absl::string_view path) {
  const std::optional<std::string> old_path = FieldPathOf(status);
  if (!old_path.has_value()) return status;
  absl::string_view message = status.message();
  if (!absl::ConsumePrefix(&message, *old_path)) {
    return field_status_internal::Rebuilt(
        status, absl::StrCat(path, ": ", status.message()), path);
  }
  return field_status_internal::Rebuilt(status, absl::StrCat(path, message),
                                        path);
}

// The field an INVALID_ARGUMENT or OUT_OF_RANGE status names, and what is
// wrong with it (the message after the path).
struct FieldViolation {
  // The path, e.g. `queries[2].raycast.direction`.
  std::string field;
  // What is wrong with it, e.g. `must not be zero`.
  std::string description;
};

// The field `status` names; none for OK, for another code, or for a status
// built without one of the functions above.
inline std::optional<FieldViolation> FieldViolationOf(
    const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument &&
      status.code() != absl::StatusCode::kOutOfRange) {
    return std::nullopt;
  }
  std::optional<std::string> path = FieldPathOf(status);
  if (!path.has_value()) return std::nullopt;
  FieldViolation violation{std::move(*path), std::string(status.message())};
  const std::string lead = absl::StrCat(violation.field, ": ");
  if (absl::StartsWith(violation.description, lead)) {
    violation.description.erase(0, lead.size());
  }
  return violation;
}

}  // namespace sator

#endif  // SATOR_CORE_FIELD_STATUS_H_
