#include "formats/fixed_length_record.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "formats/file_util.h"
#include "formats/zlib_stream.h"

namespace dflow {
namespace {

// Bytes read from the file (or inflated) per call.
constexpr size_t kChunkBytes = 256 * 1024;

}  // namespace

absl::Status ValidateFixedLengthRecordOptions(
    const FixedLengthRecordOptions& o) {
  if (o.record_bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "record_bytes must be positive, got ", o.record_bytes,
        " (CIFAR-10's binary files have records of 1 + 32*32*3 = 3073)"));
  }
  if (o.header_bytes < 0 || o.footer_bytes < 0 || o.hop_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "header_bytes (", o.header_bytes, "), footer_bytes (", o.footer_bytes,
        ") and hop_bytes (", o.hop_bytes, ") must not be negative"));
  }
  if (!o.encoding.empty() && o.encoding != "GZIP" && o.encoding != "ZLIB") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown encoding '", o.encoding,
                     "'; use \"\" (none), \"GZIP\" or \"ZLIB\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FixedLengthRecordReader>>
FixedLengthRecordReader::Open(const std::string& path,
                              const FixedLengthRecordOptions& options) {
  if (absl::Status s = ValidateFixedLengthRecordOptions(options); !s.ok()) {
    return s;
  }
  std::unique_ptr<ZlibDecompressor> decompressor;
  if (!options.encoding.empty()) {
    absl::StatusOr<std::unique_ptr<ZlibDecompressor>> made =
        ZlibDecompressor::Create(options.encoding == "GZIP"
                                     ? ZlibWrapper::kGzip
                                     : ZlibWrapper::kZlib);
    if (!made.ok()) return made.status();
    decompressor = std::move(*made);
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat("fixed-length record file '", path, "' does not exist"));
    }
    return file_util::ErrnoError("cannot open fixed-length record file", path);
  }
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<FixedLengthRecordReader>(
      new FixedLengthRecordReader(fd, path, options, std::move(decompressor)));
}

FixedLengthRecordReader::FixedLengthRecordReader(
    int fd, std::string path, FixedLengthRecordOptions options,
    std::unique_ptr<ZlibDecompressor> decompressor)
    : fd_(fd),
      path_(std::move(path)),
      options_(std::move(options)),
      decompressor_(std::move(decompressor)),
      skip_(options_.header_bytes) {}

FixedLengthRecordReader::~FixedLengthRecordReader() { close(fd_); }

absl::StatusOr<size_t> FixedLengthRecordReader::ReadFile(char* dst, size_t n) {
  while (true) {
    const ssize_t got = read(fd_, dst, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) {
      return file_util::ErrnoError("cannot read fixed-length record file",
                                   path_);
    }
  }
}

absl::StatusOr<size_t> FixedLengthRecordReader::ReadStream(char* dst,
                                                           size_t n) {
  if (decompressor_ == nullptr) return ReadFile(dst, n);
  while (true) {
    if (in_begin_ == in_end_) {
      if (!file_done_) {
        in_.resize(kChunkBytes);
        absl::StatusOr<size_t> got = ReadFile(in_.data(), in_.size());
        if (!got.ok()) return got.status();
        in_begin_ = 0;
        in_end_ = *got;
        file_done_ = *got == 0;
      }
      if (file_done_) {
        if (decompressor_->in_stream()) {
          return absl::DataLossError(absl::StrCat(
              "fixed-length record file '", path_, "': the ", options_.encoding,
              " stream ends without its trailer (the file was cut short)"));
        }
        return 0;
      }
    }
    absl::string_view input(in_.data() + in_begin_, in_end_ - in_begin_);
    absl::StatusOr<size_t> made = decompressor_->Decompress(&input, dst, n);
    if (!made.ok()) {
      return absl::Status(
          made.status().code(),
          absl::StrCat("fixed-length record file '", path_, "': corrupt ",
                       options_.encoding, " stream: ", made.status().message(),
                       " (was it written with encoding \"", options_.encoding,
                       "\"?)"));
    }
    in_begin_ = in_end_ - input.size();
    if (*made > 0) return *made;
  }
}

absl::Status FixedLengthRecordReader::Fill(int64_t n) {
  // Drop what was passed, so the window stays about a chunk long.
  if (pos_ > kChunkBytes) {
    window_.erase(0, pos_);
    pos_ = 0;
  }
  while (!stream_done_ &&
         (skip_ > 0 || static_cast<int64_t>(window_.size() - pos_) < n)) {
    const size_t old = window_.size();
    window_.resize(old + kChunkBytes);
    absl::StatusOr<size_t> got = ReadStream(window_.data() + old, kChunkBytes);
    if (!got.ok()) {
      window_.resize(old);
      return got.status();
    }
    window_.resize(old + *got);
    stream_done_ = *got == 0;
    const int64_t dropped =
        std::min<int64_t>(skip_, static_cast<int64_t>(window_.size() - pos_));
    pos_ += dropped;
    skip_ -= dropped;
    if (pos_ > kChunkBytes) {
      window_.erase(0, pos_);
      pos_ = 0;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> FixedLengthRecordReader::Next(std::string* record) {
  if (!status_.ok()) return status_;
  const int64_t need = options_.record_bytes + options_.footer_bytes;
  if (absl::Status s = Fill(need); !s.ok()) {
    status_ = s;
    return s;
  }
  if (skip_ > 0 || static_cast<int64_t>(window_.size() - pos_) < need) {
    return false;
  }
  record->assign(window_, pos_, options_.record_bytes);
  const int64_t hop =
      options_.hop_bytes > 0 ? options_.hop_bytes : options_.record_bytes;
  const int64_t held = static_cast<int64_t>(window_.size() - pos_);
  const int64_t passed = std::min(hop, held);
  pos_ += passed;
  skip_ += hop - passed;
  return true;
}

}  // namespace dflow
