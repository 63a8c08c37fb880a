// CPU kernels of the readers TFRecordReaderV2, TextLineReaderV2 and
// FixedLengthRecordReaderV2 and of ReaderReadV2 and ReaderReadUpToV2 (graph/ops/io_ops_readers.cc): a
// reader resource reads files of its format (formats/tfrecord.h,
// formats/fixed_length_record.h) whose names it takes one at a time from a
// queue, the string_input_producer's, and returns records keyed
// "<file>:<record number>" as TensorFlow does.
//
// Reads are asynchronous like the queue ops: a read that needs the next
// file name waits for the queue's callback, not on a thread. Several reads
// of one reader (shuffle_batch's num_threads) share its open file: the
// reader's lock serializes record reads, and a file name that arrives
// while another file is still open waits in the reader's list.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/file_util.h"
#include "formats/fixed_length_record.h"
#include "formats/tfrecord.h"
#include "kernels/cpu/data_flow_ops_queue.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

// One open file of a reader, in its format.
class RecordFile {
 public:
  virtual ~RecordFile() = default;
  // The next record: true if there was one, false at the end of the file.
  virtual absl::StatusOr<bool> Next(std::string* record) = 0;
  // The number in the key of the file's record `record` (0-based): the
  // record's own number, or for text lines TensorFlow's 1-based line number,
  // counting skipped header lines.
  virtual int64_t KeyNumber(int64_t record) const { return record; }
};

// The lines of a text file (TextLineReaderV2), read whole when opened:
// without their "\n" (and a "\r" before it); a last line without "\n"
// counts, an empty tail after the last "\n" does not.
class TextLineFile : public RecordFile {
 public:
  static absl::StatusOr<std::unique_ptr<RecordFile>> Open(
      const std::string& path, int64_t skip_header_lines) {
    absl::StatusOr<std::string> text = file_util::ReadFile(path, "text file");
    if (!text.ok()) return text.status();
    auto file = std::unique_ptr<TextLineFile>(new TextLineFile);
    file->text_ = *std::move(text);
    file->skipped_ = 0;
    std::string header;
    while (file->skipped_ < skip_header_lines) {
      absl::StatusOr<bool> more = file->Next(&header);
      if (!more.ok()) return more.status();
      if (!*more) break;
      ++file->skipped_;
    }
    return std::unique_ptr<RecordFile>(std::move(file));
  }
  absl::StatusOr<bool> Next(std::string* line) override {
    if (at_ >= text_.size()) return false;
    size_t end = text_.find('\n', at_);
    const size_t next = end == std::string::npos ? text_.size() : end + 1;
    if (end == std::string::npos) end = text_.size();
    if (end > at_ && text_[end - 1] == '\r') --end;
    line->assign(text_, at_, end - at_);
    at_ = next;
    return true;
  }
  int64_t KeyNumber(int64_t record) const override {
    return skipped_ + record + 1;
  }

 private:
  std::string text_;
  size_t at_ = 0;
  int64_t skipped_ = 0;
};

// Adapts a format's reader class (TfRecordReader, FixedLengthRecordReader).
template <typename FormatReader>
class RecordFileOf : public RecordFile {
 public:
  explicit RecordFileOf(std::unique_ptr<FormatReader> reader)
      : reader_(std::move(reader)) {}
  absl::StatusOr<bool> Next(std::string* record) override {
    return reader_->Next(record);
  }

 private:
  std::unique_ptr<FormatReader> reader_;
};

// Opens the file at a path in the reader's format.
using FileOpener = std::function<absl::StatusOr<std::unique_ptr<RecordFile>>(
    const std::string& path)>;

class ReaderResource : public ResourceBase {
 public:
  ReaderResource(std::string kind, std::string name, FileOpener opener)
      : kind_(std::move(kind)),
        name_(std::move(name)),
        opener_(std::move(opener)) {}
  std::string DebugString() const override {
    return absl::StrCat(kind_, " '", name_, "'");
  }

  std::mutex mu;
  std::unique_ptr<RecordFile> file;       // mu; null between files
  std::string file_path;                  // mu; the open file's
  int64_t record_in_file = 0;             // mu
  std::deque<std::string> waiting_files;  // mu: names not yet opened

  // Opens the next waiting file. mu held.
  absl::Status OpenNext() {
    std::string path = std::move(waiting_files.front());
    waiting_files.pop_front();
    absl::StatusOr<std::unique_ptr<RecordFile>> opened = opener_(path);
    if (!opened.ok()) {
      return absl::Status(
          opened.status().code(),
          absl::StrCat(DebugString(), ": ", opened.status().message()));
    }
    file = *std::move(opened);
    file_path = std::move(path);
    record_in_file = 0;
    return absl::OkStatus();
  }

 private:
  const std::string kind_;
  const std::string name_;
  const FileOpener opener_;
};

class TfRecordReaderOp : public OpKernel {
 public:
  explicit TfRecordReaderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("compression_type", &compression_));
    key_ = ResourceKey(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<ReaderResource>(
        ctx, key_, "TFRecord reader", [this] {
          TfRecordOptions options;
          options.compression_type = compression_;
          return std::make_unique<ReaderResource>(
              "TFRecordReader", name(),
              [options](const std::string& path)
                  -> absl::StatusOr<std::unique_ptr<RecordFile>> {
                absl::StatusOr<std::unique_ptr<TfRecordReader>> r =
                    TfRecordReader::Open(path, options);
                if (!r.ok()) return r.status();
                return std::make_unique<RecordFileOf<TfRecordReader>>(
                    *std::move(r));
              });
        });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string compression_, key_;
};

class TextLineReaderOp : public OpKernel {
 public:
  explicit TextLineReaderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("skip_header_lines", &skip_));
    OP_REQUIRES(ctx, skip_ >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "skip_header_lines must be >= 0 not ", skip_)));
    key_ = ResourceKey(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<ReaderResource>(
        ctx, key_, "text line reader", [this] {
          return std::make_unique<ReaderResource>(
              "TextLineReader", name(),
              [skip = skip_](const std::string& path) {
                return TextLineFile::Open(path, skip);
              });
        });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t skip_ = 0;
  std::string key_;
};

class FixedLengthRecordReaderOp : public OpKernel {
 public:
  explicit FixedLengthRecordReaderOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("header_bytes", &options_.header_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("record_bytes", &options_.record_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("footer_bytes", &options_.footer_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("hop_bytes", &options_.hop_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("encoding", &options_.encoding));
    OP_REQUIRES_OK(ctx, ValidateFixedLengthRecordOptions(options_));
    key_ = ResourceKey(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<ReaderResource>(
        ctx, key_, "fixed-length record reader", [this] {
          return std::make_unique<ReaderResource>(
              "FixedLengthRecordReader", name(),
              [options = options_](const std::string& path)
                  -> absl::StatusOr<std::unique_ptr<RecordFile>> {
                absl::StatusOr<std::unique_ptr<FixedLengthRecordReader>> r =
                    FixedLengthRecordReader::Open(path, options);
                if (!r.ok()) return r.status();
                return std::make_unique<RecordFileOf<FixedLengthRecordReader>>(
                    *std::move(r));
              });
        });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  FixedLengthRecordOptions options_;
  std::string key_;
};

// One ReaderRead(UpTo) call in progress.
struct ReadRequest {
  OpKernelContext* ctx = nullptr;
  AsyncOpKernel::DoneCallback done;
  ReaderResource* reader = nullptr;
  Queue* queue = nullptr;
  int64_t want = 1;
  bool up_to = false;  // ReaderReadUpToV2: vectors, fewer at the end
  std::vector<std::string> keys, values;

  void Finish(const absl::Status& s) {
    if (!s.ok()) {
      ctx->SetStatus(s);
    } else if (!up_to) {
      ctx->set_output(0, Tensor::Scalar(std::move(keys[0])));
      ctx->set_output(1, Tensor::Scalar(std::move(values[0])));
    } else {
      ctx->set_output(0, Tensor::FromVector<std::string>(keys));
      ctx->set_output(1, Tensor::FromVector<std::string>(values));
    }
    done();
  }
};

// Reads until the request has what it wants, asking the queue for file
// names as files end. Runs again from the queue's callback.
void Continue(std::shared_ptr<ReadRequest> r) {
  std::unique_lock<std::mutex> lock(r->reader->mu);
  while (true) {
    if (r->reader->file == nullptr && !r->reader->waiting_files.empty()) {
      if (absl::Status s = r->reader->OpenNext(); !s.ok()) {
        lock.unlock();
        r->Finish(s);
        return;
      }
    }
    if (r->reader->file == nullptr) break;
    std::string record;
    absl::StatusOr<bool> more = r->reader->file->Next(&record);
    if (!more.ok()) {
      r->reader->file.reset();
      lock.unlock();
      r->Finish(more.status());
      return;
    }
    if (!*more) {
      r->reader->file.reset();
      continue;
    }
    r->keys.push_back(
        absl::StrCat(r->reader->file_path, ":",
                     r->reader->file->KeyNumber(r->reader->record_in_file++)));
    r->values.push_back(std::move(record));
    if (static_cast<int64_t>(r->keys.size()) == r->want) {
      lock.unlock();
      r->Finish(absl::OkStatus());
      return;
    }
  }
  lock.unlock();
  r->queue->Dequeue(1, /*many=*/false, /*up_to=*/false,
                    [r](const absl::Status& s, std::vector<Tensor> components) {
                      if (!s.ok()) {
                        // The file queue closed (the epochs are done): an UpTo
                        // read returns what it has.
                        if (r->up_to && !r->keys.empty()) {
                          r->Finish(absl::OkStatus());
                        } else {
                          r->Finish(s);
                        }
                        return;
                      }
                      if (components.size() != 1 ||
                          components[0].dtype() != DT_STRING ||
                          components[0].NumElements() != 1) {
                        r->Finish(absl::InvalidArgumentError(absl::StrCat(
                            r->reader->DebugString(),
                            ": the file name queue must hold scalar strings")));
                        return;
                      }
                      {
                        std::lock_guard<std::mutex> lock(r->reader->mu);
                        r->reader->waiting_files.push_back(
                            components[0].data<std::string>()[0]);
                      }
                      Continue(r);
                    });
}

class ReaderReadOp : public AsyncOpKernel {
 public:
  ReaderReadOp(OpKernelConstruction* ctx, bool up_to)
      : AsyncOpKernel(ctx), up_to_(up_to) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto r = std::make_shared<ReadRequest>();
    r->ctx = ctx;
    r->done = std::move(done);
    r->up_to = up_to_;
    r->reader = ResourceOfInput<ReaderResource>(ctx, 0);
    r->queue = ResourceOfInput<Queue>(ctx, 1);
    if (r->reader == nullptr || r->queue == nullptr) {
      r->Finish(absl::InvalidArgumentError(
          "ReaderRead needs a reader handle (TFRecordReaderV2, "
          "FixedLengthRecordReaderV2) and a queue handle of file names"));
      return;
    }
    if (up_to_) {
      const Tensor& n = ctx->input(2);
      if (n.NumElements() != 1 || n.data<int64_t>()[0] <= 0) {
        r->Finish(absl::InvalidArgumentError(absl::StrCat(
            "num_records must be a positive scalar, got ", n.DebugString())));
        return;
      }
      r->want = n.data<int64_t>()[0];
    }
    Continue(std::move(r));
  }
  bool IsExpensive() const override { return false; }

 private:
  const bool up_to_;
};

class ReaderReadOneOp : public ReaderReadOp {
 public:
  explicit ReaderReadOneOp(OpKernelConstruction* ctx)
      : ReaderReadOp(ctx, false) {}
};
class ReaderReadUpToOp : public ReaderReadOp {
 public:
  explicit ReaderReadUpToOp(OpKernelConstruction* ctx)
      : ReaderReadOp(ctx, true) {}
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("TFRecordReaderV2").Device(kDeviceCpu),
                      TfRecordReaderOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TextLineReaderV2").Device(kDeviceCpu),
                      TextLineReaderOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FixedLengthRecordReaderV2").Device(kDeviceCpu),
    FixedLengthRecordReaderOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReaderReadV2").Device(kDeviceCpu),
                      ReaderReadOneOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReaderReadUpToV2").Device(kDeviceCpu),
                      ReaderReadUpToOp);

}  // namespace
}  // namespace dflow
