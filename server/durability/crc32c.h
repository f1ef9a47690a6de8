// CRC-32C (Castagnoli), the checksum of every write-ahead-log record and
// snapshot record.
//
// Polynomial 0x1EDC6F41 (reflected 0x82F63B78), initial value and final XOR
// 0xFFFFFFFF, as specified by RFC 3720 (iSCSI), section 12.1 and appendix B.4,
// which also gives the test vectors used in tests/server/wal_test.cc.
//
// Written by hand: Debian 12's Abseil (20220623) predates absl/crc, Google's
// crc32c library is not packaged for bookworm, and zlib's crc32 uses the IEEE
// polynomial, whose error detection on short messages is weaker
// (Castagnoli 1993). A table-driven byte-at-a-time loop checksums about
// 400 MB/s, far above what the log's fsync allows.
#ifndef SATOR_SERVER_DURABILITY_CRC32C_H_
#define SATOR_SERVER_DURABILITY_CRC32C_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace sator::server::durability {

// Extends `crc` (the value returned for the bytes before) over `data`.
// Crc32c(Crc32c(0, a), b) == Crc32c(0, a + b).
std::uint32_t ExtendCrc32c(std::uint32_t crc, const void* data,
                           std::size_t size);

inline std::uint32_t Crc32c(absl::string_view data) {
  return ExtendCrc32c(0, data.data(), data.size());
}

}  // namespace sator::server::durability

#endif  // SATOR_SERVER_DURABILITY_CRC32C_H_
