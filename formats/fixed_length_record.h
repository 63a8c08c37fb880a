// Files of fixed-length records, as TensorFlow's FixedLengthRecordReader
// reads them (CIFAR-10's binary batches: records of 1 label byte and 3,072
// pixel bytes, no header or footer). After `header_bytes`, record k is the
// `record_bytes` starting at header_bytes + k * hop, hop = hop_bytes or, when
// 0, record_bytes; a record exists while it and `footer_bytes` after it fit
// in the file, so a short tail (or the footer) is never a record. With
// encoding "GZIP" or "ZLIB" these offsets are in the inflated stream.
//
//   FixedLengthRecordOptions o;
//   o.record_bytes = 3073;
//   auto r = FixedLengthRecordReader::Open("data_batch_1.bin", o);
//   std::string record;
//   while (*(*r)->Next(&record)) ...
#ifndef DFLOW_FORMATS_FIXED_LENGTH_RECORD_H_
#define DFLOW_FORMATS_FIXED_LENGTH_RECORD_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dflow {

class ZlibDecompressor;

struct FixedLengthRecordOptions {
  int64_t header_bytes = 0;
  int64_t record_bytes = 0;  // > 0
  int64_t footer_bytes = 0;
  int64_t hop_bytes = 0;  // 0: records follow each other
  std::string encoding;   // "", "GZIP" or "ZLIB"
};

// InvalidArgument naming the bad option (record_bytes <= 0, a negative
// size, an unknown encoding).
absl::Status ValidateFixedLengthRecordOptions(
    const FixedLengthRecordOptions& options);

// Reads one file front to back, holding only about a record and a read
// buffer in memory. One thread at a time.
class FixedLengthRecordReader {
 public:
  // NotFound if the file does not exist.
  static absl::StatusOr<std::unique_ptr<FixedLengthRecordReader>> Open(
      const std::string& path, const FixedLengthRecordOptions& options);
  ~FixedLengthRecordReader();
  FixedLengthRecordReader(const FixedLengthRecordReader&) = delete;
  FixedLengthRecordReader& operator=(const FixedLengthRecordReader&) = delete;

  // The next record into `*record`: true if there was one, false at the
  // end. DataLoss for a corrupt or truncated compressed stream.
  absl::StatusOr<bool> Next(std::string* record);

  const std::string& path() const { return path_; }

 private:
  FixedLengthRecordReader(int fd, std::string path,
                          FixedLengthRecordOptions options,
                          std::unique_ptr<ZlibDecompressor> decompressor);
  // Makes window_ hold at least `n` bytes past pos_ unless the stream ends
  // first (skipping skip_ bytes of the stream first).
  absl::Status Fill(int64_t n);
  // Up to `n` bytes of the (inflated) stream into `dst`; 0 only at its end.
  absl::StatusOr<size_t> ReadStream(char* dst, size_t n);
  absl::StatusOr<size_t> ReadFile(char* dst, size_t n);

  int fd_;
  const std::string path_;
  const FixedLengthRecordOptions options_;
  std::unique_ptr<ZlibDecompressor> decompressor_;  // null: plain file

  // Stream bytes read and not yet passed: window_[pos_, end).
  std::string window_;
  size_t pos_ = 0;
  // Stream bytes to drop before the next record (the header, or the part
  // of a hop beyond what window_ holds).
  int64_t skip_ = 0;
  bool stream_done_ = false;

  // Compressed bytes of a compressed file: in_[in_begin_, in_end_).
  std::string in_;
  size_t in_begin_ = 0;
  size_t in_end_ = 0;
  bool file_done_ = false;
  absl::Status status_;
};

}  // namespace dflow

#endif  // DFLOW_FORMATS_FIXED_LENGTH_RECORD_H_
