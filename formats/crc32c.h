// CRC32C (Castagnoli polynomial 0x82F63B78), the checksum of TensorFlow's
// file formats: V2 checkpoints (tensor_bundle), TFRecord, and LevelDB tables.
//
// A thin wrapper over Google's crcutil (Debian libcrcutil-dev), which uses
// the SSE4.2 crc32 instruction where the CPU has it and tables otherwise.
// Mask/Unmask are TensorFlow's and LevelDB's: a CRC stored next to the data
// it covers is masked, because the CRC of a string that embeds CRCs is
// otherwise prone to collisions.
#ifndef DFLOW_FORMATS_CRC32C_H_
#define DFLOW_FORMATS_CRC32C_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace dflow {
namespace crc32c {

// The CRC32C of `data` extended by `more`: Extend(Crc32c(a), b) equals
// Crc32c(a + b). Extend(0, data) equals Crc32c(data).
uint32_t Extend(uint32_t crc, absl::string_view more);

// The CRC32C of `data` (the standard one: Crc32c("123456789") is 0xE3069283).
inline uint32_t Crc32c(absl::string_view data) { return Extend(0, data); }

constexpr uint32_t kMaskDelta = 0xa282ead8u;

// The masked form of a CRC, as stored in files.
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// The CRC whose masked form is `masked_crc`.
inline uint32_t Unmask(uint32_t masked_crc) {
  const uint32_t rot = masked_crc - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace dflow

#endif  // DFLOW_FORMATS_CRC32C_H_
