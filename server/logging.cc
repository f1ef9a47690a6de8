#include "server/logging.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace sator::server {
namespace {

std::atomic<int> min_level{static_cast<int>(LogLevel::kInfo)};

void AppendJsonString(std::string& out, absl::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<int>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

struct ValueAppender {
  std::string& out;
  void operator()(absl::string_view text) const { AppendJsonString(out, text); }
  void operator()(std::int64_t number) const { absl::StrAppend(&out, number); }
  void operator()(double number) const {
    // JSON has no NaN or infinity.
    if (!std::isfinite(number)) {
      out += "null";
      return;
    }
    absl::StrAppendFormat(&out, "%.9g", number);
  }
  void operator()(bool flag) const { out += flag ? "true" : "false"; }
};

}  // namespace

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "debug") return LogLevel::kDebug;
  if (lower == "info") return LogLevel::kInfo;
  if (lower == "warning" || lower == "warn") return LogLevel::kWarning;
  if (lower == "error") return LogLevel::kError;
  return absl::InvalidArgumentError(absl::StrCat(
      "log level '", text, "' is not one of debug, info, warning, error"));
}

absl::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "unknown";
}

void SetMinLogLevel(LogLevel level) {
  min_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) >= min_level.load(std::memory_order_relaxed);
}

std::string FormatLogLine(absl::string_view timestamp, LogLevel level,
                          absl::string_view event,
                          std::initializer_list<LogField> fields) {
  std::string line = "{\"ts\":";
  AppendJsonString(line, timestamp);
  line += ",\"level\":";
  AppendJsonString(line, LogLevelName(level));
  line += ",\"event\":";
  AppendJsonString(line, event);
  for (const auto& [key, value] : fields) {
    line.push_back(',');
    AppendJsonString(line, key);
    line.push_back(':');
    std::visit(ValueAppender{line}, value);
  }
  line.push_back('}');
  return line;
}

void Log(LogLevel level, absl::string_view event,
         std::initializer_list<LogField> fields) {
  if (!LogEnabled(level)) return;
  const std::string timestamp = absl::FormatTime(
      "%Y-%m-%d%ET%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  std::string line = FormatLogLine(timestamp, level, event, fields);
  line.push_back('\n');
  // One write(2) per line keeps lines from different threads whole.
  const ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

}  // namespace sator::server
