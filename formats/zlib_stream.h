// Streaming deflate and inflate over zlib, in the gzip (RFC 1952) or zlib
// (RFC 1950) wrapper: the codec of TensorFlow's compressed files. TFRecord's
// "GZIP" and "ZLIB" compress the whole framed stream as one deflate stream,
// so these work on a stream fed in pieces, not on whole messages. They do no
// I/O: the file formats own their files and buffers.
//
//   auto z = ZlibCompressor::Create(ZlibWrapper::kGzip, -1);
//   std::string out;
//   (*z)->Compress(bytes, &out);  ...  (*z)->Finish(&out);
#ifndef DFLOW_FORMATS_ZLIB_STREAM_H_
#define DFLOW_FORMATS_ZLIB_STREAM_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

// zlib's stream state, declared here so that users of this header do not
// see zlib.h and its macros.
struct z_stream_s;

namespace dflow {

enum class ZlibWrapper { kGzip, kZlib };

// "GZIP" or "ZLIB", TensorFlow's names.
absl::string_view ZlibWrapperName(ZlibWrapper wrapper);

// Deflates one stream.
class ZlibCompressor {
 public:
  // `level`: 0 (store) to 9 (smallest), or -1 for zlib's default (6), which
  // TensorFlow uses too.
  static absl::StatusOr<std::unique_ptr<ZlibCompressor>> Create(
      ZlibWrapper wrapper, int level);
  ~ZlibCompressor();
  ZlibCompressor(const ZlibCompressor&) = delete;
  ZlibCompressor& operator=(const ZlibCompressor&) = delete;

  // Compresses `input`, appending what zlib emits to `*out` (zlib may hold
  // back output until later calls).
  absl::Status Compress(absl::string_view input, std::string* out);
  // Emits everything compressed so far, ending on a byte boundary (a zlib
  // sync flush), so a reader of the bytes out so far can decode all of it.
  absl::Status Flush(std::string* out);
  // Ends the stream (the wrapper's trailer: CRC-32 or Adler-32 and size).
  // Compress, Flush and Finish fail after it.
  absl::Status Finish(std::string* out);

 private:
  explicit ZlibCompressor(std::unique_ptr<z_stream_s> stream);
  absl::Status Deflate(absl::string_view input, int flush, std::string* out);

  std::unique_ptr<z_stream_s> stream_;
  bool finished_ = false;
};

// Inflates a stream, and streams concatenated after it (a gzip file may hold
// several members; `cat a.gz b.gz` is a valid gzip file).
class ZlibDecompressor {
 public:
  static absl::StatusOr<std::unique_ptr<ZlibDecompressor>> Create(
      ZlibWrapper wrapper);
  ~ZlibDecompressor();
  ZlibDecompressor(const ZlibDecompressor&) = delete;
  ZlibDecompressor& operator=(const ZlibDecompressor&) = delete;

  // Inflates from the front of `*input`, advancing it past what it used,
  // into out[0, capacity); returns the bytes written. It stops when `out` is
  // full or `*input` is used up, so 0 means it needs more input. DataLoss
  // (with zlib's reason) when the bytes are not a valid stream.
  absl::StatusOr<size_t> Decompress(absl::string_view* input, char* out,
                                    size_t capacity);
  // True between a stream's first byte and its trailer: input that ends
  // here is truncated. False before any input, which a caller may take for
  // an empty file.
  bool in_stream() const { return in_stream_; }

 private:
  explicit ZlibDecompressor(std::unique_ptr<z_stream_s> stream);

  std::unique_ptr<z_stream_s> stream_;
  bool in_stream_ = false;
  // The last stream ended; the next input byte starts another one.
  bool stream_ended_ = false;
};

}  // namespace dflow

#endif  // DFLOW_FORMATS_ZLIB_STREAM_H_
