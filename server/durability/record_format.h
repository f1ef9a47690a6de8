// The on-disk framing shared by write-ahead-log segments and snapshot files.
//
// A file starts with a 16-byte header:
//   magic (8 bytes: "SATORWAL" or "SATORSNP") | version (u32) |
//   CRC-32C of the 12 bytes before (u32)
// then records, each a 21-byte header and a payload:
//   header_crc (u32) | length (u32) | type (u8) | lsn (u64) |
//   payload_crc (u32) | payload (length bytes)
// All integers little-endian, checksums CRC-32C. `header_crc` covers the 17
// header bytes after it and `payload_crc` the payload, so a record is valid
// only if its length, type, sequence number and payload all arrived intact.
// The separate header checksum lets the reader reject a candidate record
// start in constant time while resynchronising, so scanning a damaged region
// is linear in its size however large the lengths it seems to hold.
//
// Reading is resynchronising: a record that fails its check (a torn write at
// the tail after a crash, or bytes damaged in the middle) is reported as a
// damaged region, and parsing resumes at the next offset where a whole valid
// record starts (plausible type and length, fitting in the file, CRC
// matching). So damage never hides a valid record after it, and nothing is
// applied that did not pass its checksum. The chance that damaged bytes pass
// as a record is that of a 32-bit CRC collision on a plausible header.
#ifndef SATOR_SERVER_DURABILITY_RECORD_FORMAT_H_
#define SATOR_SERVER_DURABILITY_RECORD_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace sator::server::durability {

// What a record holds. Mutation records carry the serialized, validated
// sator.v1 request, logged before it is applied; a kRefused record marks one
// the core then refused (so replay expects the same refusal). Snapshot
// records carry the snapshot's
// framing and one sator.v1.SceneSnapshot per scene. Values are on disk:
// never renumber.
enum class RecordType : std::uint8_t {
  kCreateScene = 1,      // sator.v1.CreateSceneRequest, scene_id filled in.
  kDeleteScene = 2,      // sator.v1.DeleteSceneRequest.
  kImportScene = 3,      // sator.v1.ImportSceneRequest.
  kUpsertBodies = 4,     // sator.v1.UpsertBodiesRequest.
  kRemoveBodies = 5,     // sator.v1.RemoveBodiesRequest.
  kUpdatePoses = 6,      // sator.v1.UpdatePosesRequest (not written; reserved).
  kRefused = 7,          // u64 LSN of a logged mutation the scene refused.
  kAddZone = 8,          // sator.v1.AddZoneRequest.
  kAddObserver = 9,      // sator.v1.AddObserverRequest.
  kRemoveZone = 10,      // sator.v1.RemoveZoneRequest.
  kRemoveObserver = 11,  // sator.v1.RemoveObserverRequest.
  kSnapshotBegin = 16,   // u64 scene count.
  kSnapshotScene = 17,   // sator.v1.SceneSnapshot.
  kSnapshotEnd = 18,     // u64 scene count, again.
};

bool IsKnownRecordType(std::uint8_t type);
const char* RecordTypeName(RecordType type);

enum class FileKind { kWalSegment, kSnapshot };

inline constexpr std::size_t kFileHeaderBytes = 16;
inline constexpr std::size_t kRecordHeaderBytes = 21;
inline constexpr std::uint32_t kFormatVersion = 1;
// The largest payload a reader accepts (a snapshot of one very large scene).
inline constexpr std::uint32_t kMaxRecordPayloadBytes = 1u << 30;

std::string EncodeFileHeader(FileKind kind);
// DATA_LOSS when `bytes` does not start with a valid header of `kind`
// (wrong magic, unknown version, bad checksum, too short).
absl::Status CheckFileHeader(absl::string_view bytes, FileKind kind);

// Appends one framed record to `out`. `payload` must be at most
// kMaxRecordPayloadBytes.
void AppendRecord(std::string* out, RecordType type, std::uint64_t lsn,
                  absl::string_view payload);

struct Record {
  RecordType type;
  std::uint64_t lsn;
  absl::string_view payload;  // Points into the parsed bytes.
  std::size_t offset;         // Of the record header in the parsed bytes.
};

// A stretch of bytes that held no valid record.
struct DamagedRegion {
  std::size_t offset;
  std::size_t bytes;
  // True when the damage runs to the end of the input (typical of a write
  // torn by a crash), false when a valid record follows it.
  bool at_tail;
};

struct ParseStats {
  std::size_t records = 0;
  std::size_t damaged_regions = 0;
  std::size_t damaged_bytes = 0;
};

// Parses the records in `bytes` (the part of a file after its header),
// calling `on_record` for each valid record and `on_damage` for each damaged
// region, in file order. Never reads outside `bytes`.
ParseStats ParseRecords(
    absl::string_view bytes,
    const std::function<void(const Record&)>& on_record,
    const std::function<void(const DamagedRegion&)>& on_damage);

}  // namespace sator::server::durability

#endif  // SATOR_SERVER_DURABILITY_RECORD_FORMAT_H_
