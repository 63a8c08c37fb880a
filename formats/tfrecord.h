// TensorFlow's TFRecord files: a sequence of byte strings (usually
// serialized tf.Example protos), as tf.io.TFRecordWriter writes and
// tf.data.TFRecordDataset reads them. Each record is framed as
//   uint64 length              little endian
//   uint32 masked_crc32c(the 8 length bytes)
//   length bytes of data
//   uint32 masked_crc32c(data)
// with CRCs masked as in formats/crc32c.h. A compressed file ("GZIP" or
// "ZLIB", TensorFlow's compression_type) is that whole framed stream
// deflated as one stream, so offsets count bytes of the uncompressed stream.
//
//   auto writer = TfRecordWriter::Open("/data/train.tfrecord", {});
//   (*writer)->Write(example.SerializeAsString());
//   absl::Status s = (*writer)->Close();
//
//   auto reader = TfRecordReader::Open("/data/train.tfrecord", {});
//   std::string record;
//   while (true) {
//     absl::StatusOr<bool> more = (*reader)->Next(&record);
//     if (!more.ok()) return more.status();   // names file and offset
//     if (!*more) break;                       // clean end of file
//     ...
//   }
#ifndef DFLOW_FORMATS_TFRECORD_H_
#define DFLOW_FORMATS_TFRECORD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dflow {

class ZlibCompressor;
class ZlibDecompressor;

struct TfRecordOptions {
  // "" (none), "GZIP" or "ZLIB", as TensorFlow spells compression_type; a
  // reader must be given the type the file was written with.
  std::string compression_type;
  // zlib's level when writing a compressed file: 0-9, or -1 for zlib's
  // default, which TensorFlow uses too.
  int compression_level = -1;
  // Bytes read or written per system call, and the compressed-side buffer
  // of a compressed file. TensorFlow's TFRecordDataset reads 256 KiB.
  size_t buffer_bytes = 256 << 10;
};

// Writes a TFRecord file, replacing any file at the path. Records are
// buffered: they reach the file at Flush, at Close, or when the buffer
// fills. After an error every later call fails with the same status. One
// thread at a time.
class TfRecordWriter {
 public:
  static absl::StatusOr<std::unique_ptr<TfRecordWriter>> Open(
      const std::string& path, const TfRecordOptions& options);
  // Closes the file if Close was not called; its error is lost, so call
  // Close to see it.
  ~TfRecordWriter();
  TfRecordWriter(const TfRecordWriter&) = delete;
  TfRecordWriter& operator=(const TfRecordWriter&) = delete;

  absl::Status Write(absl::string_view record);
  // Hands everything written so far to the file (for a compressed file, a
  // zlib sync flush first), so a reader can read those records. No fsync.
  absl::Status Flush();
  // Flushes, ends a compressed stream and closes the file. Write and Flush
  // fail after it; a second Close returns the first one's status.
  absl::Status Close();

  const std::string& path() const { return path_; }

 private:
  TfRecordWriter(int fd, std::string path, size_t buffer_bytes,
                 std::unique_ptr<ZlibCompressor> compressor);
  // Moves `pending_` to the file, through the compressor if there is one.
  absl::Status Drain();
  absl::Status WriteToFile(absl::string_view bytes);
  absl::Status Fail(absl::Status status);

  int fd_;
  const std::string path_;
  const size_t buffer_bytes_;
  std::unique_ptr<ZlibCompressor> compressor_;  // null: uncompressed
  std::string pending_;     // framed records not yet drained
  std::string compressed_;  // compressor output not yet written
  absl::Status status_;
  bool closed_ = false;
};

// Reads a TFRecord file from the start, checking both CRCs of every record.
// Errors name the file and the offset of the bad record; after one, every
// later Next returns it again. One thread at a time.
class TfRecordReader {
 public:
  // NotFound if the file does not exist; InvalidArgument for an unknown
  // compression_type.
  static absl::StatusOr<std::unique_ptr<TfRecordReader>> Open(
      const std::string& path, const TfRecordOptions& options);
  ~TfRecordReader();
  TfRecordReader(const TfRecordReader&) = delete;
  TfRecordReader& operator=(const TfRecordReader&) = delete;

  // Reads the next record into `*record`: true if there was one, false at a
  // clean end of file. DataLoss for a bad CRC, a truncated record or a
  // corrupt compressed stream.
  absl::StatusOr<bool> Next(std::string* record);

  // The offset of the next record in the uncompressed stream (after an
  // error, of the bad record).
  int64_t offset() const { return offset_; }
  const std::string& path() const { return path_; }

 private:
  TfRecordReader(int fd, std::string path, size_t buffer_bytes,
                 std::unique_ptr<ZlibDecompressor> decompressor,
                 std::string compression_type);
  absl::StatusOr<bool> ReadRecord(std::string* record);
  // Makes `n` bytes available at buf_[begin_], unless the stream ends
  // first; returns how many are available (fewer than `n` only at its end).
  absl::StatusOr<size_t> Fill(size_t n);
  // Up to `n` bytes of the uncompressed stream into `dst`; 0 only at its end.
  absl::StatusOr<size_t> ReadStream(char* dst, size_t n);
  // Up to `n` bytes of the file; 0 only at its end.
  absl::StatusOr<size_t> ReadFile(char* dst, size_t n);
  absl::Status Corrupt(absl::string_view what) const;
  absl::Status Truncated(absl::string_view what) const;

  int fd_;
  const std::string path_;
  const std::string compression_type_;
  std::unique_ptr<ZlibDecompressor> decompressor_;  // null: uncompressed

  // Uncompressed bytes: buf_[begin_, end_) are read and not yet used.
  const size_t buf_size_;
  std::unique_ptr<char[]> buf_;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool stream_done_ = false;

  // Compressed bytes, for a compressed file: in_[in_begin_, in_end_).
  std::unique_ptr<char[]> in_;
  size_t in_begin_ = 0;
  size_t in_end_ = 0;
  bool file_done_ = false;

  int64_t offset_ = 0;
  absl::Status status_;
};

// Every record of the file, in order.
absl::StatusOr<std::vector<std::string>> ReadAllTfRecords(
    const std::string& path, const TfRecordOptions& options);

}  // namespace dflow

#endif  // DFLOW_FORMATS_TFRECORD_H_
