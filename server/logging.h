// Structured logs: one JSON object per line on stderr, with a timestamp, a
// level and an event name, then the event's fields.
//
//   {"ts":"2026-11-23T03:40:00.123Z","level":"info","event":"listening",
//    "grpc_address":"127.0.0.1:50051"}
//
// Nothing is logged per query at info level; per-query detail is debug only.
#ifndef SATOR_SERVER_LOGGING_H_
#define SATOR_SERVER_LOGGING_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sator::server {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Parses "debug", "info", "warning" (or "warn") and "error".
absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text);
absl::string_view LogLevelName(LogLevel level);

void SetMinLogLevel(LogLevel level);
bool LogEnabled(LogLevel level);

using LogValue = std::variant<absl::string_view, std::int64_t, double, bool>;
using LogField = std::pair<absl::string_view, LogValue>;

// Formats one log line (without the trailing newline). `timestamp` is
// RFC 3339 in UTC. Exposed for tests.
std::string FormatLogLine(absl::string_view timestamp, LogLevel level,
                          absl::string_view event,
                          std::initializer_list<LogField> fields);

// Writes one line to stderr if `level` is enabled. Thread-safe: the line is
// written with a single write(2).
void Log(LogLevel level, absl::string_view event,
         std::initializer_list<LogField> fields = {});

}  // namespace sator::server

#endif  // SATOR_SERVER_LOGGING_H_
