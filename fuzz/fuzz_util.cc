#include "fuzz/fuzz_util.h"

#include <stdlib.h>

#include <cstdio>
#include <string>

#include "absl/strings/match.h"

namespace dflow {
namespace fuzz {

const std::string& ScratchDir() {
  static const std::string* const dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
        "/dflow_fuzz_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("dflow fuzz: mkdtemp (the file targets will skip)");
      return new std::string();
    }
    return new std::string(pattern);
  }();
  return *dir;
}

bool WriteFile(const std::string& path, absl::string_view bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

void SplitTwo(absl::string_view input, absl::string_view* first,
              absl::string_view* second) {
  size_t n = 0;
  if (input.size() >= 2) {
    n = static_cast<uint8_t>(input[0]) |
        (static_cast<size_t>(static_cast<uint8_t>(input[1])) << 8);
    input.remove_prefix(2);
  }
  if (n > input.size()) n = input.size();
  *first = input.substr(0, n);
  *second = input.substr(n);
}

bool TouchesFiles(absl::string_view op) {
  static constexpr absl::string_view kOps[] = {
      "SaveV2",     "RestoreV2",    "MergeV2Checkpoints", "Save",
      "SaveSlices", "Restore",      "RestoreSlice",       "ReadFile",
      "WriteFile",  "MatchingFiles"};
  for (absl::string_view name : kOps) {
    if (op == name) return true;
  }
  // Every reader op (TFRecordReaderV2, ReaderReadV2, ...) and summary
  // file writer.
  return absl::StrContains(op, "Reader") || absl::StrContains(op, "Writer");
}

}  // namespace fuzz
}  // namespace dflow
