// Error messages that name the offending field by its path in the request,
// e.g. `bodies[3].shape.polygon.vertices[2].x: not finite`.
//
// Converters report errors relative to the message they convert ("x: not
// finite"); each caller prepends its own segment on the way out. Strings are
// built only when there is an error, never on the success path.
#ifndef SATOR_PROTO_CONVERT_FIELD_PATH_H_
#define SATOR_PROTO_CONVERT_FIELD_PATH_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace sator::convert {

// "field" + "." + message, keeping the status code. OK stays OK.
absl::Status PrefixField(absl::string_view field, const absl::Status& status);

// "field[index]" + "." + message, keeping the status code.
absl::Status PrefixIndex(absl::string_view field, int index,
                         const absl::Status& status);

// An INVALID_ARGUMENT status "field: problem".
absl::Status FieldError(absl::string_view field, absl::string_view problem);

// The field an INVALID_ARGUMENT or OUT_OF_RANGE status names, read back from
// the message these functions build: `path: problem`, where `path` is
// dot-separated proto field names, each optionally followed by `[index]`s.
// Empty for another code or a message that does not start with a path.
struct FieldViolation {
  std::string field;
  std::string description;
};
std::optional<FieldViolation> FieldViolationOf(const absl::Status& status);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_FIELD_PATH_H_
