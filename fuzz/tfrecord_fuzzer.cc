// TFRecord reading: the input's first byte picks the compression ("",
// GZIP, ZLIB) and a small or the default buffer; the rest is the file. Every
// record is read until the end or the first error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/tfrecord.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dflow;
  if (size < 1) return 0;
  TfRecordOptions options;
  static const char* const kCompression[] = {"", "GZIP", "ZLIB"};
  options.compression_type = kCompression[data[0] % 3];
  if (data[0] & 0x80) options.buffer_bytes = 7 + (data[0] & 0x3f);
  if (fuzz::ScratchDir().empty()) return 0;
  const std::string path = fuzz::ScratchDir() + "/records.tfrecord";
  if (!fuzz::WriteFile(path, fuzz::AsBytes(data + 1, size - 1))) return 0;
  absl::StatusOr<std::unique_ptr<TfRecordReader>> reader =
      TfRecordReader::Open(path, options);
  if (!reader.ok()) return 0;
  std::string record;
  for (int i = 0; i < 100000; ++i) {
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    if (!more.ok() || !*more) break;
  }
  return 0;
}
