// Record framing and the resynchronising parser (see record_format.h).
#include "server/durability/record_format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "server/durability/crc32c.h"

namespace sator::server::durability {
namespace {

constexpr char kWalMagic[] = "SATORWAL";
constexpr char kSnapshotMagic[] = "SATORSNP";
constexpr std::size_t kMagicBytes = 8;

void PutU32(std::string* out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
  }
}

void PutU64(std::string* out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
  }
}

std::uint32_t GetU32(const char* p) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(p[i]);
  }
  return value;
}

std::uint64_t GetU64(const char* p) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(p[i]);
  }
  return value;
}

const char* Magic(FileKind kind) {
  return kind == FileKind::kWalSegment ? kWalMagic : kSnapshotMagic;
}

// The record starting at `offset`, if a whole valid one does.
bool ValidRecordAt(absl::string_view bytes, std::size_t offset,
                   Record* record) {
  if (bytes.size() - offset < kRecordHeaderBytes) return false;
  const char* header = bytes.data() + offset;
  const std::uint32_t length = GetU32(header + 4);
  const auto type = static_cast<std::uint8_t>(header[8]);
  if (!IsKnownRecordType(type) || length > kMaxRecordPayloadBytes) {
    return false;
  }
  if (ExtendCrc32c(0, header + 4, kRecordHeaderBytes - 4) != GetU32(header)) {
    return false;
  }
  if (bytes.size() - offset - kRecordHeaderBytes < length) return false;
  if (ExtendCrc32c(0, header + kRecordHeaderBytes, length) !=
      GetU32(header + 17)) {
    return false;
  }
  record->type = static_cast<RecordType>(type);
  record->lsn = GetU64(header + 9);
  record->payload = bytes.substr(offset + kRecordHeaderBytes, length);
  record->offset = offset;
  return true;
}

}  // namespace

bool IsKnownRecordType(std::uint8_t type) {
  return (type >= 1 && type <= 11) || (type >= 16 && type <= 18);
}

const char* RecordTypeName(RecordType type) {
  switch (type) {
    case RecordType::kCreateScene:
      return "create_scene";
    case RecordType::kDeleteScene:
      return "delete_scene";
    case RecordType::kImportScene:
      return "import_scene";
    case RecordType::kUpsertBodies:
      return "upsert_bodies";
    case RecordType::kRemoveBodies:
      return "remove_bodies";
    case RecordType::kUpdatePoses:
      return "update_poses";
    case RecordType::kRefused:
      return "refused";
    case RecordType::kAddZone:
      return "add_zone";
    case RecordType::kAddObserver:
      return "add_observer";
    case RecordType::kRemoveZone:
      return "remove_zone";
    case RecordType::kRemoveObserver:
      return "remove_observer";
    case RecordType::kSnapshotBegin:
      return "snapshot_begin";
    case RecordType::kSnapshotScene:
      return "snapshot_scene";
    case RecordType::kSnapshotEnd:
      return "snapshot_end";
  }
  return "unknown";
}

std::string EncodeFileHeader(FileKind kind) {
  std::string header(Magic(kind), kMagicBytes);
  PutU32(&header, kFormatVersion);
  PutU32(&header, Crc32c(header));
  return header;
}

absl::Status CheckFileHeader(absl::string_view bytes, FileKind kind) {
  if (bytes.size() < kFileHeaderBytes) {
    return absl::DataLossError(absl::StrCat(
        "file header: ", bytes.size(), " bytes, expected ", kFileHeaderBytes));
  }
  if (std::memcmp(bytes.data(), Magic(kind), kMagicBytes) != 0) {
    return absl::DataLossError(
        absl::StrCat("file header: magic is not ", Magic(kind)));
  }
  if (Crc32c(bytes.substr(0, 12)) != GetU32(bytes.data() + 12)) {
    return absl::DataLossError("file header: checksum mismatch");
  }
  const std::uint32_t version = GetU32(bytes.data() + kMagicBytes);
  if (version != kFormatVersion) {
    return absl::DataLossError(absl::StrCat("file header: version ", version,
                                            " is not ", kFormatVersion));
  }
  return absl::OkStatus();
}

void AppendRecord(std::string* out, RecordType type, std::uint64_t lsn,
                  absl::string_view payload) {
  std::string header;
  PutU32(&header, static_cast<std::uint32_t>(payload.size()));
  header.push_back(static_cast<char>(type));
  PutU64(&header, lsn);
  PutU32(&header, Crc32c(payload));
  PutU32(out, Crc32c(header));
  out->append(header);
  out->append(payload.data(), payload.size());
}

ParseStats ParseRecords(
    absl::string_view bytes,
    const std::function<void(const Record&)>& on_record,
    const std::function<void(const DamagedRegion&)>& on_damage) {
  ParseStats stats;
  std::size_t offset = 0;
  Record record{};
  while (offset < bytes.size()) {
    if (ValidRecordAt(bytes, offset, &record)) {
      ++stats.records;
      on_record(record);
      offset += kRecordHeaderBytes + record.payload.size();
      continue;
    }
    // Resynchronise: the next offset where a whole valid record starts.
    std::size_t next = offset + 1;
    while (next < bytes.size() && !ValidRecordAt(bytes, next, &record)) {
      ++next;
    }
    const DamagedRegion damage{offset, next - offset, next >= bytes.size()};
    ++stats.damaged_regions;
    stats.damaged_bytes += damage.bytes;
    on_damage(damage);
    offset = next;
  }
  return stats;
}

}  // namespace sator::server::durability
