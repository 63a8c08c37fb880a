// What the fuzz targets (fuzz/*_fuzzer.cc) share: a scratch directory of
// their own for the formats read from files (checkpoints, TFRecords,
// SavedModels), and the budgets a fuzzed session runs under.
#ifndef DFLOW_FUZZ_FUZZ_UTIL_H_
#define DFLOW_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace dflow {
namespace fuzz {

// A directory made for this process under $TMPDIR (or /tmp), created on
// first use. Fuzz targets write their input there to read it back. Empty
// when it could not be made (said once on stderr): the target skips.
const std::string& ScratchDir();

// Overwrites `path` with `bytes`; false if it cannot.
bool WriteFile(const std::string& path, absl::string_view bytes);

inline absl::string_view AsBytes(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

// Splits `input` at a 2-byte little-endian length prefix: the first part
// has that many bytes (or all there is), the second the rest. Lets one input
// carry two files (a checkpoint's index and data).
void SplitTwo(absl::string_view input, absl::string_view* first,
              absl::string_view* second);

// Ops a fuzzed graph may not run: they read or write files named by
// their inputs (a checkpoint could land anywhere, a reader could open
// /dev/zero), which is the file formats' fuzz targets' business.
bool TouchesFiles(absl::string_view op);

// A fuzzed session's budgets: bytes each device may hold, and how long a
// step may take (a dequeue from an empty queue would wait forever).
inline constexpr int64_t kMemoryLimitBytes = 64 << 20;
inline constexpr int64_t kStepTimeoutMs = 200;
// Graphs larger than this are skipped by the session target: the fuzzer
// should spend its time on many small graphs.
inline constexpr int kMaxSessionNodes = 64;

}  // namespace fuzz
}  // namespace dflow

#endif  // DFLOW_FUZZ_FUZZ_UTIL_H_
