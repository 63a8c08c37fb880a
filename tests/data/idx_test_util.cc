#include "tests/data/idx_test_util.h"

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "gtest/gtest.h"

namespace dflow {
namespace idx_testing {

std::string MakeTempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(root != nullptr ? root : "/tmp") + "/" + name;
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  std::filesystem::create_directories(dir, error);
  EXPECT_FALSE(error) << dir << ": " << error.message();
  return dir;
}

namespace {
void AppendBigEndian(std::string* out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((value >> shift) & 0xFF));
  }
}
}  // namespace

std::string IdxBytes(uint32_t magic, const std::vector<uint32_t>& dims,
                     const std::string& payload) {
  std::string out;
  AppendBigEndian(&out, magic);
  for (uint32_t d : dims) AppendBigEndian(&out, d);
  out += payload;
  return out;
}

std::string Uint8Payload(uint64_t count) {
  std::string payload(count, '\0');
  for (uint64_t i = 0; i < count; ++i) {
    payload[i] = static_cast<char>((i * 7 + 3) % 256);
  }
  return payload;
}

std::string Uint8Idx(const std::vector<uint32_t>& dims) {
  uint64_t count = 1;
  for (uint32_t d : dims) count *= d;
  return IdxBytes(0x00000800u | static_cast<uint32_t>(dims.size()), dims,
                  Uint8Payload(count));
}

void WriteFile(const std::string& path, const std::string& bytes, bool gzip) {
  if (gzip) {
    gzFile file = gzopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr) << path;
    if (!bytes.empty()) {
      EXPECT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
                static_cast<int>(bytes.size()))
          << path;
    }
    EXPECT_EQ(gzclose(file), Z_OK) << path;
    return;
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  EXPECT_EQ(std::fclose(file), 0);
}

}  // namespace idx_testing
}  // namespace dflow
