// Helpers the data tests share: IDX bytes built by hand (so the tests need no
// downloaded files and can build broken ones), written plain or gzipped, in
// per-test temporary directories.
#ifndef DFLOW_TESTS_DATA_IDX_TEST_UTIL_H_
#define DFLOW_TESTS_DATA_IDX_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace dflow {
namespace idx_testing {

// A fresh directory under $TEST_TMPDIR named `name` (emptied if it exists).
std::string MakeTempDir(const std::string& name);

// The magic number, the big-endian sizes, then `payload` as is.
std::string IdxBytes(uint32_t magic, const std::vector<uint32_t>& dims,
                     const std::string& payload);
// A well-formed uint8 IDX file of `dims`, element i holding (i * 7 + 3) % 256.
std::string Uint8Idx(const std::vector<uint32_t>& dims);
// The payload Uint8Idx writes for `count` elements.
std::string Uint8Payload(uint64_t count);

// Writes `bytes` to `path`, through zlib's gzwrite when `gzip`. Fails the
// calling test (ADD_FAILURE) if it cannot.
void WriteFile(const std::string& path, const std::string& bytes,
               bool gzip = false);

}  // namespace idx_testing
}  // namespace dflow

#endif  // DFLOW_TESTS_DATA_IDX_TEST_UTIL_H_
