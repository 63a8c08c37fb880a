#include "formats/zlib_stream.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dflow {
namespace {

// zlib's windowBits: 15 (a 32 KiB window, the largest); +16 selects the
// gzip wrapper, as TensorFlow's ZlibCompressionOptions::GZIP() does.
int WindowBits(ZlibWrapper wrapper) {
  return wrapper == ZlibWrapper::kGzip ? MAX_WBITS + 16 : MAX_WBITS;
}

// TensorFlow's memLevel: the most memory for the deflate state, for speed.
constexpr int kMemLevel = 9;

// Output space added per deflate call; large enough that a call over a
// writer's 256 KiB buffer loops only a few times.
constexpr size_t kDeflateChunk = 64 << 10;

// zlib counts in uInt; feed it at most this much at a time.
constexpr size_t kMaxZlibBytes = std::numeric_limits<uInt>::max() / 2;

std::string ZlibMessage(const z_stream& stream, int code) {
  if (stream.msg != nullptr) return stream.msg;
  return absl::StrCat("zlib error ", code);
}

}  // namespace

absl::string_view ZlibWrapperName(ZlibWrapper wrapper) {
  return wrapper == ZlibWrapper::kGzip ? "GZIP" : "ZLIB";
}

// --- ZlibCompressor

ZlibCompressor::ZlibCompressor(std::unique_ptr<z_stream_s> stream)
    : stream_(std::move(stream)) {}

ZlibCompressor::~ZlibCompressor() { deflateEnd(stream_.get()); }

absl::StatusOr<std::unique_ptr<ZlibCompressor>> ZlibCompressor::Create(
    ZlibWrapper wrapper, int level) {
  if (level < -1 || level > 9) {
    return absl::InvalidArgumentError(absl::StrCat(
        "zlib compression level ", level,
        " is out of range; use 0 (none) to 9 (best), or -1 for the default"));
  }
  auto stream = std::make_unique<z_stream>();
  const int code =
      deflateInit2(stream.get(), level, Z_DEFLATED, WindowBits(wrapper),
                   kMemLevel, Z_DEFAULT_STRATEGY);
  if (code != Z_OK) {
    return absl::InternalError(
        absl::StrCat("cannot start ", ZlibWrapperName(wrapper),
                     " compression: ", ZlibMessage(*stream, code)));
  }
  return std::unique_ptr<ZlibCompressor>(new ZlibCompressor(std::move(stream)));
}

absl::Status ZlibCompressor::Deflate(absl::string_view input, int flush,
                                     std::string* out) {
  if (finished_) {
    return absl::FailedPreconditionError(
        "the compressed stream is already finished");
  }
  z_stream& z = *stream_;
  // deflate() asks to be called again with the same flush mode until it has
  // taken all input and, for a flush, left output space unused.
  while (true) {
    const size_t take = std::min(input.size(), kMaxZlibBytes);
    // The last slice of the input carries the flush; earlier ones do not.
    const int mode = take == input.size() ? flush : Z_NO_FLUSH;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    z.avail_in = static_cast<uInt>(take);
    const size_t old_size = out->size();
    out->resize(old_size + kDeflateChunk);
    z.next_out = reinterpret_cast<Bytef*>(&(*out)[old_size]);
    z.avail_out = static_cast<uInt>(kDeflateChunk);
    const int code = deflate(&z, mode);
    out->resize(out->size() - z.avail_out);
    input.remove_prefix(take - z.avail_in);
    if (code == Z_STREAM_END) {
      finished_ = true;
      return absl::OkStatus();
    }
    // Z_BUF_ERROR only says that no progress was possible, which the loop
    // condition below sees as done.
    if (code != Z_OK && code != Z_BUF_ERROR) {
      finished_ = true;
      return absl::InternalError(
          absl::StrCat("deflate failed: ", ZlibMessage(z, code)));
    }
    if (input.empty() && z.avail_out != 0) return absl::OkStatus();
  }
}

absl::Status ZlibCompressor::Compress(absl::string_view input,
                                      std::string* out) {
  return Deflate(input, Z_NO_FLUSH, out);
}

absl::Status ZlibCompressor::Flush(std::string* out) {
  return Deflate(absl::string_view(), Z_SYNC_FLUSH, out);
}

absl::Status ZlibCompressor::Finish(std::string* out) {
  absl::Status status = Deflate(absl::string_view(), Z_FINISH, out);
  finished_ = true;
  return status;
}

// --- ZlibDecompressor

ZlibDecompressor::ZlibDecompressor(std::unique_ptr<z_stream_s> stream)
    : stream_(std::move(stream)) {}

ZlibDecompressor::~ZlibDecompressor() { inflateEnd(stream_.get()); }

absl::StatusOr<std::unique_ptr<ZlibDecompressor>> ZlibDecompressor::Create(
    ZlibWrapper wrapper) {
  auto stream = std::make_unique<z_stream>();
  const int code = inflateInit2(stream.get(), WindowBits(wrapper));
  if (code != Z_OK) {
    return absl::InternalError(
        absl::StrCat("cannot start ", ZlibWrapperName(wrapper),
                     " decompression: ", ZlibMessage(*stream, code)));
  }
  return std::unique_ptr<ZlibDecompressor>(
      new ZlibDecompressor(std::move(stream)));
}

absl::StatusOr<size_t> ZlibDecompressor::Decompress(absl::string_view* input,
                                                    char* out,
                                                    size_t capacity) {
  z_stream& z = *stream_;
  size_t produced = 0;
  while (!input->empty() && produced < capacity) {
    if (stream_ended_) {
      // Bytes after a stream's trailer begin the next concatenated stream;
      // anything else fails its header check below.
      if (inflateReset(&z) != Z_OK) {
        return absl::InternalError("cannot restart zlib decompression");
      }
      stream_ended_ = false;
    }
    in_stream_ = true;
    const size_t take = std::min(input->size(), kMaxZlibBytes);
    const size_t room = std::min(capacity - produced, kMaxZlibBytes);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input->data()));
    z.avail_in = static_cast<uInt>(take);
    z.next_out = reinterpret_cast<Bytef*>(out + produced);
    z.avail_out = static_cast<uInt>(room);
    const int code = inflate(&z, Z_NO_FLUSH);
    const size_t used = take - z.avail_in;
    const size_t made = room - z.avail_out;
    input->remove_prefix(used);
    produced += made;
    switch (code) {
      case Z_OK:
        break;
      case Z_STREAM_END:
        stream_ended_ = true;
        in_stream_ = false;
        break;
      case Z_NEED_DICT:
        return absl::DataLossError(
            "the stream asks for a preset dictionary, which TensorFlow's "
            "files never use");
      case Z_BUF_ERROR:
        // No progress was possible although input and output space were
        // offered: stop rather than spin.
        if (used == 0 && made == 0) {
          return absl::DataLossError("zlib made no progress on the stream");
        }
        break;
      case Z_MEM_ERROR:
        return absl::ResourceExhaustedError(
            "out of memory while decompressing");
      default:
        return absl::DataLossError(ZlibMessage(z, code));
    }
  }
  return produced;
}

}  // namespace dflow
