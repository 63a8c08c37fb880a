#include "formats/tfrecord.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "formats/crc32c.h"
#include "formats/file_util.h"
#include "formats/zlib_stream.h"

namespace dflow {
namespace {

using file_util::ErrnoError;

// length (8) + masked CRC of the length (4), and the data's masked CRC (4).
constexpr size_t kHeaderBytes = 12;
constexpr size_t kFooterBytes = 4;

// A buffer must hold a header, and small buffers only cost system calls.
constexpr size_t kMinBufferBytes = 4096;

// A record whose data does not fit in the buffer is read straight into the
// caller's string, grown by at most this much at a time: a corrupt length
// whose CRC happens to match must not allocate exabytes before the file
// proves too short.
constexpr size_t kRecordGrowBytes = 16 << 20;

void EncodeFixed32(char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
}
void EncodeFixed64(char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
}
uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t MaskedCrc(absl::string_view bytes) {
  return crc32c::Mask(crc32c::Crc32c(bytes));
}

// The wrapper for a compression_type; nullopt for none.
absl::StatusOr<std::optional<ZlibWrapper>> ParseCompressionType(
    absl::string_view type) {
  if (type.empty()) return std::optional<ZlibWrapper>();
  if (type == "GZIP") return std::optional<ZlibWrapper>(ZlibWrapper::kGzip);
  if (type == "ZLIB") return std::optional<ZlibWrapper>(ZlibWrapper::kZlib);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown TFRecord compression_type '", type,
                   "'; use \"\" (none), \"GZIP\" or \"ZLIB\""));
}

size_t BufferBytes(const TfRecordOptions& options) {
  return std::max(options.buffer_bytes, kMinBufferBytes);
}

// A zlib error as an error about the file, keeping its code.
absl::Status InFile(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("TFRecord file '", path,
                                                  "': ", status.message()));
}

}  // namespace

// --- TfRecordWriter

TfRecordWriter::TfRecordWriter(int fd, std::string path, size_t buffer_bytes,
                               std::unique_ptr<ZlibCompressor> compressor)
    : fd_(fd),
      path_(std::move(path)),
      buffer_bytes_(buffer_bytes),
      compressor_(std::move(compressor)) {
  pending_.reserve(buffer_bytes_ + kHeaderBytes + kFooterBytes);
}

TfRecordWriter::~TfRecordWriter() { Close().IgnoreError(); }

absl::StatusOr<std::unique_ptr<TfRecordWriter>> TfRecordWriter::Open(
    const std::string& path, const TfRecordOptions& options) {
  absl::StatusOr<std::optional<ZlibWrapper>> wrapper =
      ParseCompressionType(options.compression_type);
  if (!wrapper.ok()) return wrapper.status();
  std::unique_ptr<ZlibCompressor> compressor;
  if (wrapper->has_value()) {
    absl::StatusOr<std::unique_ptr<ZlibCompressor>> made =
        ZlibCompressor::Create(**wrapper, options.compression_level);
    if (!made.ok()) return InFile(path, made.status());
    compressor = std::move(*made);
  }
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return ErrnoError("cannot create TFRecord file", path);
  return std::unique_ptr<TfRecordWriter>(new TfRecordWriter(
      fd, path, BufferBytes(options), std::move(compressor)));
}

absl::Status TfRecordWriter::Fail(absl::Status status) {
  status_ = status;
  return status;
}

absl::Status TfRecordWriter::WriteToFile(absl::string_view bytes) {
  if (bytes.empty()) return absl::OkStatus();
  absl::Status status = file_util::WriteAll(fd_, bytes, path_);
  if (!status.ok()) return Fail(status);
  return absl::OkStatus();
}

absl::Status TfRecordWriter::Drain() {
  if (compressor_ == nullptr) {
    absl::Status status = WriteToFile(pending_);
    pending_.clear();
    return status;
  }
  absl::Status status = compressor_->Compress(pending_, &compressed_);
  pending_.clear();
  if (!status.ok()) return Fail(InFile(path_, status));
  status = WriteToFile(compressed_);
  compressed_.clear();
  return status;
}

absl::Status TfRecordWriter::Write(absl::string_view record) {
  if (closed_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "TFRecord file '", path_, "' is closed; cannot write to it"));
  }
  if (!status_.ok()) return status_;
  char header[kHeaderBytes];
  EncodeFixed64(header, record.size());
  EncodeFixed32(header + 8, MaskedCrc(absl::string_view(header, 8)));
  pending_.append(header, kHeaderBytes);
  if (record.size() >= buffer_bytes_) {
    // A large record goes to the file (or compressor) from the caller's
    // memory instead of through the buffer.
    absl::Status status = Drain();
    if (!status.ok()) return status;
    if (compressor_ == nullptr) {
      status = WriteToFile(record);
    } else {
      status = compressor_->Compress(record, &compressed_);
      if (!status.ok()) return Fail(InFile(path_, status));
      status = WriteToFile(compressed_);
      compressed_.clear();
    }
    if (!status.ok()) return status;
  } else {
    pending_.append(record.data(), record.size());
  }
  char footer[kFooterBytes];
  EncodeFixed32(footer, MaskedCrc(record));
  pending_.append(footer, kFooterBytes);
  if (pending_.size() >= buffer_bytes_) return Drain();
  return absl::OkStatus();
}

absl::Status TfRecordWriter::Flush() {
  if (closed_) {
    return absl::FailedPreconditionError(
        absl::StrCat("TFRecord file '", path_, "' is closed; cannot flush it"));
  }
  if (!status_.ok()) return status_;
  absl::Status status = Drain();
  if (!status.ok() || compressor_ == nullptr) return status;
  status = compressor_->Flush(&compressed_);
  if (!status.ok()) return Fail(InFile(path_, status));
  status = WriteToFile(compressed_);
  compressed_.clear();
  return status;
}

absl::Status TfRecordWriter::Close() {
  if (closed_) return status_;
  closed_ = true;
  absl::Status status = status_;
  if (status.ok()) status = Drain();
  if (status.ok() && compressor_ != nullptr) {
    status = compressor_->Finish(&compressed_);
    if (!status.ok()) status = InFile(path_, status);
    if (status.ok()) status = WriteToFile(compressed_);
    compressed_.clear();
  }
  if (close(fd_) != 0 && status.ok()) {
    status = ErrnoError("cannot close TFRecord file", path_);
  }
  fd_ = -1;
  status_ = status;
  return status;
}

// --- TfRecordReader

TfRecordReader::TfRecordReader(int fd, std::string path, size_t buffer_bytes,
                               std::unique_ptr<ZlibDecompressor> decompressor,
                               std::string compression_type)
    : fd_(fd),
      path_(std::move(path)),
      compression_type_(std::move(compression_type)),
      decompressor_(std::move(decompressor)),
      buf_size_(buffer_bytes),
      buf_(new char[buffer_bytes]) {
  if (decompressor_ != nullptr) in_.reset(new char[buffer_bytes]);
}

TfRecordReader::~TfRecordReader() { close(fd_); }

absl::StatusOr<std::unique_ptr<TfRecordReader>> TfRecordReader::Open(
    const std::string& path, const TfRecordOptions& options) {
  absl::StatusOr<std::optional<ZlibWrapper>> wrapper =
      ParseCompressionType(options.compression_type);
  if (!wrapper.ok()) return wrapper.status();
  std::unique_ptr<ZlibDecompressor> decompressor;
  if (wrapper->has_value()) {
    absl::StatusOr<std::unique_ptr<ZlibDecompressor>> made =
        ZlibDecompressor::Create(**wrapper);
    if (!made.ok()) return InFile(path, made.status());
    decompressor = std::move(*made);
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat("TFRecord file '", path, "' does not exist"));
    }
    return ErrnoError("cannot open TFRecord file", path);
  }
  // Readahead sized for a front-to-back read; advice only, so its result
  // does not matter.
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<TfRecordReader>(
      new TfRecordReader(fd, path, BufferBytes(options),
                         std::move(decompressor), options.compression_type));
}

absl::Status TfRecordReader::Corrupt(absl::string_view what) const {
  return absl::DataLossError(absl::StrCat("TFRecord file '", path_,
                                          "': corrupt record at offset ",
                                          offset_, ": ", what));
}

absl::Status TfRecordReader::Truncated(absl::string_view what) const {
  return absl::DataLossError(absl::StrCat("TFRecord file '", path_,
                                          "': truncated record at offset ",
                                          offset_, ": ", what));
}

absl::StatusOr<size_t> TfRecordReader::ReadFile(char* dst, size_t n) {
  while (true) {
    const ssize_t got = read(fd_, dst, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) return ErrnoError("cannot read TFRecord file", path_);
  }
}

absl::StatusOr<size_t> TfRecordReader::ReadStream(char* dst, size_t n) {
  if (decompressor_ == nullptr) return ReadFile(dst, n);
  while (true) {
    if (in_begin_ == in_end_) {
      if (!file_done_) {
        absl::StatusOr<size_t> got = ReadFile(in_.get(), buf_size_);
        if (!got.ok()) return got.status();
        in_begin_ = 0;
        in_end_ = *got;
        file_done_ = *got == 0;
      }
      if (file_done_) {
        if (decompressor_->in_stream()) {
          return Truncated(absl::StrCat(
              "the ", compression_type_,
              " stream ends without its trailer (the file was cut short, or "
              "its writer was not closed)"));
        }
        return 0;
      }
    }
    absl::string_view input(in_.get() + in_begin_, in_end_ - in_begin_);
    absl::StatusOr<size_t> made = decompressor_->Decompress(&input, dst, n);
    if (!made.ok()) {
      return absl::Status(
          made.status().code(),
          absl::StrCat("TFRecord file '", path_, "': corrupt ",
                       compression_type_, " stream in the record at offset ",
                       offset_, ": ", made.status().message(),
                       " (was the file written with compression_type \"",
                       compression_type_, "\"?)"));
    }
    in_begin_ = in_end_ - input.size();
    if (*made > 0) return *made;
  }
}

absl::StatusOr<size_t> TfRecordReader::Fill(size_t n) {
  if (end_ - begin_ >= n) return end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  while (end_ < n && !stream_done_) {
    absl::StatusOr<size_t> got =
        ReadStream(buf_.get() + end_, buf_size_ - end_);
    if (!got.ok()) return got.status();
    end_ += *got;
    stream_done_ = *got == 0;
  }
  return end_;
}

absl::StatusOr<bool> TfRecordReader::Next(std::string* record) {
  if (!status_.ok()) return status_;
  absl::StatusOr<bool> more = ReadRecord(record);
  if (!more.ok()) status_ = more.status();
  return more;
}

absl::StatusOr<bool> TfRecordReader::ReadRecord(std::string* record) {
  absl::StatusOr<size_t> avail = Fill(kHeaderBytes);
  if (!avail.ok()) return avail.status();
  if (*avail == 0) return false;
  if (*avail < kHeaderBytes) {
    return Truncated(absl::StrCat("the file ends ", *avail,
                                  " bytes into its 12-byte header"));
  }
  const char* header = buf_.get() + begin_;
  const uint64_t length = DecodeFixed64(header);
  if (crc32c::Unmask(DecodeFixed32(header + 8)) !=
      crc32c::Crc32c(absl::string_view(header, 8))) {
    return Corrupt(
        "the CRC of its length does not match (a damaged file, a wrong "
        "compression_type, or not a TFRecord file)");
  }
  if (length >= record->max_size()) {
    return Corrupt(absl::StrCat("its length ", length, " is impossible"));
  }
  begin_ += kHeaderBytes;

  if (end_ - begin_ >= length) {
    record->assign(buf_.get() + begin_, length);
    begin_ += length;
  } else {
    record->assign(buf_.get() + begin_, end_ - begin_);
    begin_ = end_;
    while (record->size() < length) {
      const size_t missing = length - record->size();
      size_t got = 0;
      if (missing >= buf_size_ / 2) {
        // Straight into the record: no copy through the buffer.
        const size_t old_size = record->size();
        const size_t grow =
            std::min(missing, std::max(old_size, kRecordGrowBytes));
        record->resize(old_size + grow);
        while (got < grow) {
          absl::StatusOr<size_t> n =
              ReadStream(&(*record)[old_size + got], grow - got);
          if (!n.ok()) return n.status();
          if (*n == 0) break;
          got += *n;
        }
        record->resize(old_size + got);
        if (got < grow) stream_done_ = true;
      } else {
        absl::StatusOr<size_t> n = Fill(missing);
        if (!n.ok()) return n.status();
        got = std::min(*n, missing);
        record->append(buf_.get() + begin_, got);
        begin_ += got;
      }
      if (got < missing && stream_done_) {
        return Truncated(absl::StrCat("the file ends after ", record->size(),
                                      " of its ", length, " data bytes"));
      }
    }
  }

  avail = Fill(kFooterBytes);
  if (!avail.ok()) return avail.status();
  if (*avail < kFooterBytes) {
    return Truncated(absl::StrCat("the file ends ", *avail,
                                  " bytes into the CRC after its ", length,
                                  " data bytes"));
  }
  const uint32_t masked_crc = DecodeFixed32(buf_.get() + begin_);
  begin_ += kFooterBytes;
  if (crc32c::Unmask(masked_crc) != crc32c::Crc32c(*record)) {
    return Corrupt(
        absl::StrCat("the CRC of its ", length, " data bytes does not match"));
  }
  offset_ += kHeaderBytes + length + kFooterBytes;
  return true;
}

absl::StatusOr<std::vector<std::string>> ReadAllTfRecords(
    const std::string& path, const TfRecordOptions& options) {
  absl::StatusOr<std::unique_ptr<TfRecordReader>> reader =
      TfRecordReader::Open(path, options);
  if (!reader.ok()) return reader.status();
  std::vector<std::string> records;
  std::string record;
  while (true) {
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    if (!more.ok()) return more.status();
    if (!*more) return records;
    records.push_back(std::move(record));
  }
}

}  // namespace dflow
