#include "proto/convert/field_path.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

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

// name := [a-z_][a-z0-9_]*
bool ConsumeName(absl::string_view& text) {
  if (text.empty() || !(absl::ascii_islower(text[0]) || text[0] == '_')) {
    return false;
  }
  std::size_t length = 1;
  while (length < text.size() &&
         (absl::ascii_islower(text[length]) ||
          absl::ascii_isdigit(text[length]) || text[length] == '_')) {
    ++length;
  }
  text.remove_prefix(length);
  return true;
}

bool ConsumeDigits(absl::string_view& text) {
  std::size_t length = 0;
  while (length < text.size() && absl::ascii_isdigit(text[length])) ++length;
  text.remove_prefix(length);
  return length > 0;
}

// path := segment ('.' segment)*; segment := name index*;
// index := '[' digits ('..' digits)? ']' (a range names packed elements).
bool IsFieldPath(absl::string_view path) {
  while (true) {
    if (!ConsumeName(path)) return false;
    while (absl::ConsumePrefix(&path, "[")) {
      if (!ConsumeDigits(path)) return false;
      if (absl::ConsumePrefix(&path, "..") && !ConsumeDigits(path)) {
        return false;
      }
      if (!absl::ConsumePrefix(&path, "]")) return false;
    }
    if (path.empty()) return true;
    if (!absl::ConsumePrefix(&path, ".")) return false;
  }
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

std::optional<FieldViolation> FieldViolationOf(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument &&
      status.code() != absl::StatusCode::kOutOfRange) {
    return std::nullopt;
  }
  const absl::string_view message = status.message();
  const std::size_t colon = message.find(": ");
  if (colon == absl::string_view::npos) return std::nullopt;
  const absl::string_view path = message.substr(0, colon);
  if (!IsFieldPath(path)) return std::nullopt;
  return FieldViolation{std::string(path),
                        std::string(message.substr(colon + 2))};
}

}  // namespace sator::convert
