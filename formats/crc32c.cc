#include "formats/crc32c.h"

// The library was built with the crc32 instruction in inline assembly; the
// header must agree (and so declare the same class layout) without
// -msse4.2 here.
#define CRCUTIL_FORCE_ASM_CRC32C 1
#include <crcutil/crc32c_sse4.h>
#include <crcutil/generic_crc.h>

#include <cstdint>

namespace dflow {
namespace crc32c {
namespace {

constexpr uint64_t kPolynomial = 0x82f63b78;
constexpr size_t kDegree = 32;

// crcutil's two implementations of the same CRC: the crc32 instruction
// (SSE4.2) and, on CPUs without it, a table-driven CRC over 64-bit words.
// Both are "canonical" (the start value and the result are inverted), so
// they compute the standard CRC32C. Built once, never destroyed.
using TableCrc = crcutil::GenericCrc<uint64_t, uint64_t, uint64_t, 4>;

class Implementation {
 public:
  Implementation() {
    if (crcutil::Crc32cSSE4::IsSSE42Available()) {
      sse4_ = new crcutil::Crc32cSSE4(/*canonical=*/true);
    } else {
      table_ = new TableCrc(kPolynomial, kDegree, /*canonical=*/true);
    }
  }
  uint32_t Extend(uint32_t crc, const void* data, size_t n) const {
    if (sse4_ != nullptr) {
      return static_cast<uint32_t>(sse4_->CrcDefault(data, n, crc));
    }
    return static_cast<uint32_t>(table_->CrcDefault(data, n, crc));
  }

 private:
  crcutil::Crc32cSSE4* sse4_ = nullptr;
  TableCrc* table_ = nullptr;
};

const Implementation& Get() {
  static const Implementation* impl = new Implementation();
  return *impl;
}

}  // namespace

uint32_t Extend(uint32_t crc, absl::string_view more) {
  if (more.empty()) return crc;
  return Get().Extend(crc, more.data(), more.size());
}

}  // namespace crc32c
}  // namespace dflow
