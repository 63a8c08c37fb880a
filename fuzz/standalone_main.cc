// main() for the fuzz targets outside the fuzz config (a normal build has
// no libFuzzer): runs LLVMFuzzerTestOneInput once on every file named on the
// command line, and on every file of every directory named, so the targets
// build everywhere and a crash's input can be replayed under gdb or a
// sanitizer config:  bazel run //fuzz:npy_fuzzer -- crash-1234
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int RunFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                         bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int failures = 0;
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer's flags
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& entry :
           std::filesystem::recursive_directory_iterator(arg, ec)) {
        if (!entry.is_regular_file()) continue;
        failures += RunFile(entry.path().string());
        ++ran;
      }
    } else {
      failures += RunFile(arg);
      ++ran;
    }
  }
  std::printf("ran %d inputs\n", ran);
  return failures == 0 ? 0 : 1;
}
