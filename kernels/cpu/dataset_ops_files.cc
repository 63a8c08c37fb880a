// The datasets of files: TFRecordDataset (V1 and V2, whose byte_offsets say
// where in each file reading starts), TextLineDataset and
// FixedLengthRecordDataset (V1, and V2 with compression). Each reads its
// files in order, one open file at a time; an element is a string scalar
// (a record, a line). Compression "" (none), "GZIP" or "ZLIB" as
// TensorFlow spells it (formats/zlib_stream.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/fixed_length_record.h"
#include "formats/tfrecord.h"
#include "formats/zlib_stream.h"
#include "kernels/cpu/dataset_ops.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

// The files a dataset op's `filenames` input names.
absl::StatusOr<std::vector<std::string>> FilenamesInput(OpKernelContext* ctx) {
  const Tensor& t = ctx->input(0);
  if (t.dtype() != DT_STRING || t.shape().rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "`filenames` must be a scalar or a vector of strings, "
        "got a ",
        DataTypeName(t.dtype()), " tensor of shape ", t.shape().ToString()));
  }
  const absl::Span<const std::string> names = t.flat<std::string>();
  return std::vector<std::string>(names.begin(), names.end());
}

absl::Status CheckCompression(const std::string& type) {
  if (type.empty() || type == "GZIP" || type == "ZLIB") return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "compression_type '", type, "' is not \"\", \"GZIP\" or \"ZLIB\""));
}

Tensor StringScalar(std::string value, Allocator* allocator) {
  Tensor t(allocator, DT_STRING, TensorShape({}));
  *t.data<std::string>() = std::move(value);
  return t;
}

// What every file dataset shares: its files, read in turn by a reader
// `Open` makes for each.
template <typename Reader>
class FileDataset : public Dataset {
 public:
  FileDataset(Info info, std::vector<std::string> files)
      : Dataset(std::move(info)), files_(std::move(files)) {}

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<FileDataset>());
  }

 protected:
  // A reader of file `index`, at its first element.
  virtual absl::StatusOr<std::unique_ptr<Reader>> Open(size_t index) const = 0;

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const FileDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      std::string value;
      while (true) {
        if (reader_ == nullptr) {
          if (next_file_ == d_->files_.size()) break;
          absl::StatusOr<std::unique_ptr<Reader>> opened =
              d_->Open(next_file_++);
          if (!opened.ok()) return DatasetError(*d_, opened.status());
          reader_ = *std::move(opened);
        }
        absl::StatusOr<bool> more = reader_->Next(&value);
        if (!more.ok()) return DatasetError(*d_, more.status());
        if (*more) {
          *out = {StringScalar(std::move(value), ctx.allocator())};
          *end = false;
          return absl::OkStatus();
        }
        reader_.reset();
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const FileDataset> d_;
    size_t next_file_ = 0;
    std::unique_ptr<Reader> reader_;
  };

 protected:
  const std::vector<std::string> files_;
};

// ---- TFRecordDataset.

class TfRecordDatasetImpl : public FileDataset<TfRecordReader> {
 public:
  TfRecordDatasetImpl(Info info, std::vector<std::string> files,
                      std::string compression, std::vector<int64_t> offsets)
      : FileDataset(std::move(info), std::move(files)),
        compression_(std::move(compression)),
        offsets_(std::move(offsets)) {}

 protected:
  absl::StatusOr<std::unique_ptr<TfRecordReader>> Open(
      size_t index) const override {
    TfRecordOptions options;
    options.compression_type = compression_;
    absl::StatusOr<std::unique_ptr<TfRecordReader>> reader =
        TfRecordReader::Open(files_[index], options);
    if (!reader.ok() || offsets_.empty()) return reader;
    // Reading from a byte offset: skip the records before it, which must
    // end exactly there (an offset inside a record is refused, where
    // TensorFlow would find a bad record there).
    const int64_t offset = offsets_[index];
    std::string skipped;
    while ((*reader)->offset() < offset) {
      absl::StatusOr<bool> more = (*reader)->Next(&skipped);
      if (!more.ok()) return more.status();
      if (!*more) break;
    }
    if ((*reader)->offset() != offset) {
      return absl::InvalidArgumentError(absl::StrCat(
          "byte offset ", offset, " of '", files_[index],
          "' is not where a record starts (records start at 0, ...",
          (*reader)->offset(), ")"));
    }
    return reader;
  }

 private:
  const std::string compression_;
  const std::vector<int64_t> offsets_;
};

class TfRecordDatasetOp : public DatasetOpKernel {
 public:
  explicit TfRecordDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    set_element({DT_STRING}, {TensorShape({})});
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<std::vector<std::string>> files = FilenamesInput(ctx);
    if (!files.ok()) return files.status();
    absl::StatusOr<std::string> compression =
        StringInput(ctx, 1, "compression_type");
    if (!compression.ok()) return compression.status();
    if (absl::Status s = CheckCompression(*compression); !s.ok()) return s;
    absl::StatusOr<int64_t> buffer = Int64Input(ctx, 2, "buffer_size");
    if (!buffer.ok()) return buffer.status();
    if (*buffer < -1) {
      return absl::InvalidArgumentError(
          "`buffer_size` must be >= 0 (0 == no buffering) or -1 (the "
          "default)");
    }
    std::vector<int64_t> offsets;
    if (ctx->num_inputs() > 3) {  // TFRecordDatasetV2's byte_offsets
      const Tensor& t = ctx->input(3);
      if (t.dtype() != DT_INT64 || t.shape().rank() > 1) {
        return absl::InvalidArgumentError(
            "`byte_offsets` must be a scalar or a vector of int64");
      }
      offsets.assign(t.flat<int64_t>().begin(), t.flat<int64_t>().end());
      if (!offsets.empty() && offsets.size() != files->size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("`byte_offsets` has ", offsets.size(),
                         " entries but there are ", files->size(), " files"));
      }
      for (int64_t o : offsets) {
        if (o < 0) {
          return absl::InvalidArgumentError("`byte_offsets` must be >= 0");
        }
      }
    }
    return std::make_shared<TfRecordDatasetImpl>(
        info(), *std::move(files), *std::move(compression), std::move(offsets));
  }
};

// ---- TextLineDataset.

// The lines of one file, inflated as it is read when compressed.
class LineReader {
 public:
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(
      const std::string& path, const std::string& compression) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      std::string why = absl::StrCat("'", path, "': ", std::strerror(err));
      return err == ENOENT ? absl::NotFoundError(why)
                           : absl::UnavailableError(why);
    }
    std::unique_ptr<LineReader> reader(new LineReader(fd, path));
    if (!compression.empty()) {
      absl::StatusOr<std::unique_ptr<ZlibDecompressor>> z =
          ZlibDecompressor::Create(compression == "GZIP" ? ZlibWrapper::kGzip
                                                         : ZlibWrapper::kZlib);
      if (!z.ok()) return z.status();
      reader->inflater_ = *std::move(z);
    }
    return reader;
  }
  ~LineReader() { ::close(fd_); }

  // The next line without its "\n" (and a "\r" before it); a last line
  // without "\n" counts, an empty tail after the last "\n" does not.
  absl::StatusOr<bool> Next(std::string* line) {
    while (true) {
      const size_t newline = text_.find('\n', begin_);
      if (newline != std::string::npos) {
        size_t stop = newline;
        if (stop > begin_ && text_[stop - 1] == '\r') --stop;
        line->assign(text_, begin_, stop - begin_);
        begin_ = newline + 1;
        return true;
      }
      text_.erase(0, begin_);
      begin_ = 0;
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return more.status();
      if (!*more) {
        if (text_.empty()) return false;
        line->swap(text_);
        if (!line->empty() && line->back() == '\r') line->pop_back();
        text_.clear();
        return true;
      }
    }
  }

 private:
  LineReader(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  // Appends more of the (inflated) file to text_; false at its end.
  absl::StatusOr<bool> Fill() {
    constexpr size_t kChunk = 64 << 10;
    buf_.resize(kChunk);
    char* const buf = buf_.data();
    while (true) {
      if (inflater_ != nullptr && !pending_.empty()) {
        absl::string_view in(pending_);
        inflated_.resize(kChunk);
        char* const out = inflated_.data();
        absl::StatusOr<size_t> n = inflater_->Decompress(&in, out, kChunk);
        if (!n.ok()) {
          return absl::DataLossError(
              absl::StrCat("'", path_, "': ", n.status().message()));
        }
        pending_.erase(0, pending_.size() - in.size());
        if (*n > 0) {
          text_.append(out, *n);
          return true;
        }
      }
      const ssize_t got = ::read(fd_, buf, kChunk);
      if (got < 0) {
        if (errno == EINTR) continue;
        return absl::DataLossError(
            absl::StrCat("reading '", path_, "': ", std::strerror(errno)));
      }
      if (got == 0) {
        if (inflater_ != nullptr && inflater_->in_stream()) {
          return absl::DataLossError(
              absl::StrCat("'", path_, "' ends inside its compressed stream"));
        }
        return false;
      }
      if (inflater_ == nullptr) {
        text_.append(buf, static_cast<size_t>(got));
        return true;
      }
      pending_.append(buf, static_cast<size_t>(got));
    }
  }

  const int fd_;
  const std::string path_;
  std::unique_ptr<ZlibDecompressor> inflater_;
  std::vector<char> buf_, inflated_;  // read and inflate buffers
  std::string pending_;               // compressed bytes not yet inflated
  std::string text_;  // inflated bytes; lines before begin_ are read
  size_t begin_ = 0;
};

class TextLineDatasetImpl : public FileDataset<LineReader> {
 public:
  TextLineDatasetImpl(Info info, std::vector<std::string> files,
                      std::string compression)
      : FileDataset(std::move(info), std::move(files)),
        compression_(std::move(compression)) {}

 protected:
  absl::StatusOr<std::unique_ptr<LineReader>> Open(
      size_t index) const override {
    return LineReader::Open(files_[index], compression_);
  }

 private:
  const std::string compression_;
};

class TextLineDatasetOp : public DatasetOpKernel {
 public:
  explicit TextLineDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    set_element({DT_STRING}, {TensorShape({})});
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<std::vector<std::string>> files = FilenamesInput(ctx);
    if (!files.ok()) return files.status();
    absl::StatusOr<std::string> compression =
        StringInput(ctx, 1, "compression_type");
    if (!compression.ok()) return compression.status();
    if (absl::Status s = CheckCompression(*compression); !s.ok()) return s;
    absl::StatusOr<int64_t> buffer = Int64Input(ctx, 2, "buffer_size");
    if (!buffer.ok()) return buffer.status();
    if (*buffer < 0) {
      return absl::InvalidArgumentError(
          "`buffer_size` must be >= 0 (0 == default)");
    }
    return std::make_shared<TextLineDatasetImpl>(info(), *std::move(files),
                                                 *std::move(compression));
  }
};

// ---- FixedLengthRecordDataset.

class FixedLengthDatasetImpl : public FileDataset<FixedLengthRecordReader> {
 public:
  FixedLengthDatasetImpl(Info info, std::vector<std::string> files,
                         FixedLengthRecordOptions options)
      : FileDataset(std::move(info), std::move(files)),
        options_(std::move(options)) {}

 protected:
  absl::StatusOr<std::unique_ptr<FixedLengthRecordReader>> Open(
      size_t index) const override {
    const std::string& path = files_[index];
    if (options_.encoding.empty()) {
      // TensorFlow refuses a file whose body is not whole records.
      struct stat st;
      if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        std::string why = absl::StrCat("'", path, "': ", std::strerror(err));
        return err == ENOENT ? absl::NotFoundError(why)
                             : absl::UnavailableError(why);
      }
      const int64_t body = static_cast<int64_t>(st.st_size) -
                           (options_.header_bytes + options_.footer_bytes);
      if (body < 0 || body % options_.record_bytes != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Excluding the header (", options_.header_bytes,
            " bytes) and footer (", options_.footer_bytes,
            " bytes), input file \"", path, "\" has body length ", body,
            " bytes, which is not an exact multiple of the record length (",
            options_.record_bytes, " bytes)."));
      }
    }
    return FixedLengthRecordReader::Open(path, options_);
  }

 private:
  const FixedLengthRecordOptions options_;
};

class FixedLengthDatasetOp : public DatasetOpKernel {
 public:
  explicit FixedLengthDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    set_element({DT_STRING}, {TensorShape({})});
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<std::vector<std::string>> files = FilenamesInput(ctx);
    if (!files.ok()) return files.status();
    FixedLengthRecordOptions options;
    int64_t* fields[] = {&options.header_bytes, &options.record_bytes,
                         &options.footer_bytes};
    const char* names[] = {"header_bytes", "record_bytes", "footer_bytes"};
    for (int k = 0; k < 3; ++k) {
      absl::StatusOr<int64_t> v = Int64Input(ctx, 1 + k, names[k]);
      if (!v.ok()) return v.status();
      *fields[k] = *v;
    }
    if (options.header_bytes < 0 || options.footer_bytes < 0) {
      return absl::InvalidArgumentError(
          "`header_bytes` and `footer_bytes` must be >= 0");
    }
    if (options.record_bytes <= 0) {
      return absl::InvalidArgumentError("`record_bytes` must be > 0");
    }
    absl::StatusOr<int64_t> buffer = Int64Input(ctx, 4, "buffer_size");
    if (!buffer.ok()) return buffer.status();
    if (*buffer < 0) {
      return absl::InvalidArgumentError(
          "`buffer_size` must be >= 0 (0 == no buffering)");
    }
    if (ctx->num_inputs() > 5) {  // V2's compression_type
      absl::StatusOr<std::string> compression =
          StringInput(ctx, 5, "compression_type");
      if (!compression.ok()) return compression.status();
      if (absl::Status s = CheckCompression(*compression); !s.ok()) return s;
      options.encoding = *std::move(compression);
    }
    return std::make_shared<FixedLengthDatasetImpl>(info(), *std::move(files),
                                                    std::move(options));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("TFRecordDataset").Device(kDeviceCpu),
                      TfRecordDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TFRecordDatasetV2").Device(kDeviceCpu),
                      TfRecordDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TextLineDataset").Device(kDeviceCpu),
                      TextLineDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FixedLengthRecordDataset").Device(kDeviceCpu),
    FixedLengthDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FixedLengthRecordDatasetV2").Device(kDeviceCpu),
    FixedLengthDatasetOp);

}  // namespace
}  // namespace dflow
