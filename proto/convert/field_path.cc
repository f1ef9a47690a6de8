#include "proto/convert/field_path.h"

#include "absl/strings/str_cat.h"

namespace sator::convert {
namespace {

absl::Status Join(absl::string_view prefix, const absl::Status& status) {
  if (status.ok()) return status;
  // A message that starts with a field path gets a '.', an index '[' none.
  const absl::string_view message = status.message();
  const bool is_index = !message.empty() && message.front() == '[';
  return absl::Status(status.code(),
                      absl::StrCat(prefix, is_index ? "" : ".", message));
}

}  // namespace

absl::Status PrefixField(absl::string_view field, const absl::Status& status) {
  return Join(field, status);
}

absl::Status PrefixIndex(absl::string_view field, int index,
                         const absl::Status& status) {
  if (status.ok()) return status;
  return Join(absl::StrCat(field, "[", index, "]"), status);
}

absl::Status FieldError(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

}  // namespace sator::convert
