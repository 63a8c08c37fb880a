#include "formats/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace dflow {
namespace {

TEST(Crc32cTest, StandardCheckValues) {
  // The check value of CRC-32C (RFC 3720, B.4) and iSCSI test vectors.
  EXPECT_EQ(crc32c::Crc32c("123456789"), 0xe3069283u);
  EXPECT_EQ(crc32c::Crc32c(std::string(32, '\0')), 0x8a9136aau);
  EXPECT_EQ(crc32c::Crc32c(std::string(32, '\xff')), 0x62a8ab43u);
  EXPECT_EQ(crc32c::Crc32c(""), 0u);
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data.push_back(static_cast<char>(i * 7));
  const uint32_t whole = crc32c::Crc32c(data);
  for (size_t cut : {0, 1, 7, 512, 4097, 99999, 100000}) {
    EXPECT_EQ(crc32c::Extend(crc32c::Crc32c(data.substr(0, cut)),
                             data.substr(cut)),
              whole)
        << cut;
  }
}

TEST(Crc32cTest, MaskRoundTripsAndDiffers) {
  for (uint32_t crc : {0u, 1u, 0xe3069283u, 0xffffffffu}) {
    EXPECT_NE(crc32c::Mask(crc), crc);
    EXPECT_EQ(crc32c::Unmask(crc32c::Mask(crc)), crc);
  }
  EXPECT_NE(crc32c::Mask(crc32c::Mask(0xe3069283u)), crc32c::Mask(0xe3069283u));
}

}  // namespace
}  // namespace dflow
