// Fuzz target for the write-ahead-log reader: any bytes as a log segment.
//
// Beyond not crashing (under ASan and UBSan), it checks the reader's
// contract: valid records and damaged regions tile the input exactly, in
// order, with no two damaged regions adjacent (resynchronisation stops at
// the first valid record); every record reported re-encodes to exactly the
// bytes it was read from (nothing accepted that did not pass its checks);
// and only the last region may be marked as the tail.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "server/durability/record_format.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using sator::server::durability::AppendRecord;
  using sator::server::durability::CheckFileHeader;
  using sator::server::durability::DamagedRegion;
  using sator::server::durability::FileKind;
  using sator::server::durability::kFileHeaderBytes;
  using sator::server::durability::ParseRecords;
  using sator::server::durability::Record;

  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  const bool header_ok = CheckFileHeader(bytes, FileKind::kWalSegment).ok();
  Check(!header_ok || size >= kFileHeaderBytes);
  const absl::string_view records =
      bytes.substr(std::min(size, kFileHeaderBytes));

  std::size_t covered = 0;
  bool previous_was_damage = false;
  std::size_t record_count = 0;
  const auto stats = ParseRecords(
      records,
      [&](const Record& record) {
        Check(record.offset == covered);
        std::string encoded;
        AppendRecord(&encoded, record.type, record.lsn, record.payload);
        Check(records.substr(record.offset, encoded.size()) == encoded);
        covered += encoded.size();
        previous_was_damage = false;
        ++record_count;
      },
      [&](const DamagedRegion& damage) {
        Check(damage.offset == covered);
        Check(damage.bytes > 0);
        Check(!previous_was_damage);
        covered += damage.bytes;
        Check(damage.at_tail == (covered == records.size()));
        previous_was_damage = true;
      });
  Check(covered == records.size());
  Check(stats.records == record_count);
  return 0;
}
