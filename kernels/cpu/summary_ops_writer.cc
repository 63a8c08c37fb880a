// TF2's summary-writer kernels on the CPU (TensorFlow's summary_kernels.cc
// and core/summary/summary_file_writer.cc): what tf.summary.* writes in a
// graph with a default writer (tf.summary.create_file_writer(logdir),
// writer.as_default()).
//
// The writer is a resource of the session, like a queue: SummaryWriter
// finds or makes it under its shared_name (tf.summary names it after the
// create_file_writer scope), so it outlives a Run. CreateSummaryFileWriter
// (writer.init()) opens its event file, events.out.tfevents.<seconds>.
// <host><filename_suffix> in logdir (formats/event_file_writer.h), once:
// running it again is a no-op, as in TensorFlow. Each Write* op appends an
// event at its step; the events reach the disk when max_queue of them wait,
// when flush_millis have passed since the last flush (checked at each
// write), at FlushSummaryWriter, at CloseSummaryWriter and when the session
// ends. CloseSummaryWriter closes the file: a later write is an error until
// CreateSummaryFileWriter opens a new one (TensorFlow deletes the resource,
// which its next CreateSummaryFileWriter makes again).
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "formats/event_file_writer.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "kernels/cpu/summary_ops_util.h"
#include "proto/event.pb.h"
#include "proto/graph.pb.h"
#include "proto/summary.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

class SummaryWriterResource : public ResourceBase {
 public:
  explicit SummaryWriterResource(std::string name) : name_(std::move(name)) {}

  std::string DebugString() const override {
    return absl::StrCat("SummaryWriter '", name_, "'");
  }

  // Opens the event file unless one is open.
  absl::Status Open(const std::string& logdir, int32_t max_queue,
                    int32_t flush_millis, const std::string& suffix) {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_ != nullptr) return absl::OkStatus();
    absl::StatusOr<std::unique_ptr<EventFileWriter>> file =
        EventFileWriter::Open(logdir, suffix);
    if (!file.ok()) {
      return absl::Status(file.status().code(),
                          absl::StrCat(DebugString(), ": ",
                                       file.status().message()));
    }
    file_ = *std::move(file);
    max_queue_ = max_queue;
    flush_millis_ = flush_millis;
    pending_ = 0;
    last_flush_ = Clock::now();
    return absl::OkStatus();
  }

  // Appends `event` (its wall time now when it has none).
  absl::Status Write(Event event, const std::string& who) {
    std::lock_guard<std::mutex> lock(mu_);
    if (absl::Status s = CheckOpen(who); !s.ok()) return s;
    if (absl::Status s = file_->WriteEvent(std::move(event)); !s.ok()) {
      return s;
    }
    ++pending_;
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        Clock::now() - last_flush_);
    if (pending_ >= max_queue_ || waited.count() >= flush_millis_) {
      return FlushLocked();
    }
    return absl::OkStatus();
  }

  absl::Status Flush(const std::string& who) {
    std::lock_guard<std::mutex> lock(mu_);
    if (absl::Status s = CheckOpen(who); !s.ok()) return s;
    return FlushLocked();
  }

  absl::Status Close(const std::string& who) {
    std::lock_guard<std::mutex> lock(mu_);
    if (absl::Status s = CheckOpen(who); !s.ok()) return s;
    absl::Status s = file_->Close();
    file_.reset();
    closed_ = true;
    return s;
  }

 private:
  using Clock = std::chrono::steady_clock;

  absl::Status CheckOpen(const std::string& who) const {
    if (file_ != nullptr) return absl::OkStatus();
    return absl::NotFoundError(absl::StrCat(
        who, ": ", DebugString(),
        closed_ ? " was closed (CloseSummaryWriter / writer.close()); run its "
                  "CreateSummaryFileWriter (writer.init()) again to open a "
                  "new event file"
                : " has no event file yet: run its CreateSummaryFileWriter "
                  "(writer.init()) first"));
  }

  absl::Status FlushLocked() {
    pending_ = 0;
    last_flush_ = Clock::now();
    return file_->Flush();
  }

  const std::string name_;
  std::mutex mu_;
  std::unique_ptr<EventFileWriter> file_;
  bool closed_ = false;
  int32_t max_queue_ = 10, flush_millis_ = 120000;
  int32_t pending_ = 0;
  Clock::time_point last_flush_;
};

class SummaryWriterOp : public OpKernel {
 public:
  explicit SummaryWriterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), key_(ResourceKey(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<SummaryWriterResource>(
        ctx, key_, "summary writer",
        [this] { return std::make_unique<SummaryWriterResource>(key_); });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  const std::string key_;
};

// The writer behind input 0, or an error naming the node.
absl::StatusOr<SummaryWriterResource*> WriterOf(OpKernelContext* ctx,
                                                const std::string& who) {
  SummaryWriterResource* w = ResourceOfInput<SummaryWriterResource>(ctx, 0);
  if (w == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        who, ": input 0 is not the handle of a summary writer (connect it to "
             "a SummaryWriter op)"));
  }
  return w;
}

// "node 'name' (Op)", for errors.
std::string Who(const OpKernel& k) {
  return absl::StrCat("node '", k.name(), "' (", k.type_string(), ")");
}

absl::Status ScalarInput(OpKernelContext* ctx, int i, const char* what,
                         DataType dtype) {
  const Tensor& t = ctx->input(i);
  if (t.shape().rank() != 0 || t.dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a ", DataTypeName(dtype), " scalar, got ",
        DataTypeName(t.dtype()), " ", t.shape().ToString()));
  }
  return absl::OkStatus();
}

class CreateSummaryFileWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<SummaryWriterResource*> w = WriterOf(ctx, Who(*this));
    OP_REQUIRES_OK(ctx, w.status());
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "logdir", DT_STRING));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 2, "max_queue", DT_INT32));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 3, "flush_millis", DT_INT32));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 4, "filename_suffix", DT_STRING));
    const std::string& logdir = *ctx->input(1).data<std::string>();
    OP_REQUIRES(ctx, !logdir.empty(),
                absl::InvalidArgumentError(absl::StrCat(
                    Who(*this), ": logdir is empty; give the directory for "
                                "the event file")));
    OP_REQUIRES_OK(ctx, (*w)->Open(logdir, ctx->input(2).data<int32_t>()[0],
                                   ctx->input(3).data<int32_t>()[0],
                                   *ctx->input(4).data<std::string>()));
  }
};

class FlushOrCloseSummaryWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<SummaryWriterResource*> w = WriterOf(ctx, Who(*this));
    OP_REQUIRES_OK(ctx, w.status());
    OP_REQUIRES_OK(ctx, type_string() == "CloseSummaryWriter"
                            ? (*w)->Close(Who(*this))
                            : (*w)->Flush(Who(*this)));
  }
};

// The Write* ops: input 0 the writer, 1 the step; MakeEvent fills the
// event from the rest.
class WriteOpBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<SummaryWriterResource*> w = WriterOf(ctx, Who(*this));
    OP_REQUIRES_OK(ctx, w.status());
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "step", DT_INT64));
    const int64_t step = ctx->input(1).data<int64_t>()[0];
    std::vector<Event> events;
    OP_REQUIRES_OK(ctx, MakeEvents(ctx, &events));
    for (Event& e : events) {
      e.set_step(step);
      OP_REQUIRES_OK(ctx, (*w)->Write(std::move(e), Who(*this)));
    }
  }

 protected:
  virtual absl::Status MakeEvents(OpKernelContext* ctx,
                                  std::vector<Event>* events) = 0;

  // The scalar string input i (a tag).
  static absl::StatusOr<std::string> Tag(OpKernelContext* ctx, int i) {
    if (absl::Status s = ScalarInput(ctx, i, "tag", DT_STRING); !s.ok()) {
      return s;
    }
    return *ctx->input(i).data<std::string>();
  }
};

class WriteSummaryOp : public WriteOpBase {
 public:
  using WriteOpBase::WriteOpBase;

 protected:
  absl::Status MakeEvents(OpKernelContext* ctx,
                          std::vector<Event>* events) override {
    absl::StatusOr<std::string> tag = Tag(ctx, 3);
    if (!tag.ok()) return tag.status();
    if (absl::Status s = ScalarInput(ctx, 4, "summary_metadata", DT_STRING);
        !s.ok()) {
      return s;
    }
    Event& e = events->emplace_back();
    Summary::Value* v = e.mutable_summary()->add_value();
    summary_util::TensorToSummaryProto(ctx->input(2), v->mutable_tensor());
    v->set_tag(*tag);
    const std::string& metadata = *ctx->input(4).data<std::string>();
    if (!metadata.empty() && !v->mutable_metadata()->ParseFromString(metadata)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "summary_metadata of tag '", *tag,
          "' is not a serialized SummaryMetadata proto"));
    }
    return absl::OkStatus();
  }
};

class WriteScalarSummaryOp : public WriteOpBase {
 public:
  using WriteOpBase::WriteOpBase;

 protected:
  absl::Status MakeEvents(OpKernelContext* ctx,
                          std::vector<Event>* events) override {
    absl::StatusOr<std::string> tag = Tag(ctx, 2);
    if (!tag.ok()) return tag.status();
    const Tensor& value = ctx->input(3);
    if (value.NumElements() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the value of scalar summary '", *tag, "' is empty (shape ",
          value.shape().ToString(), ")"));
    }
    Summary::Value* v = events->emplace_back().mutable_summary()->add_value();
    v->set_tag(*tag);
    // Element 0, as TensorFlow's (a scalar in every graph tf.summary makes).
    v->set_simple_value(static_cast<float>(summary_util::ValueAt(value, 0)));
    return absl::OkStatus();
  }
};

class WriteHistogramSummaryOp : public WriteOpBase {
 public:
  using WriteOpBase::WriteOpBase;

 protected:
  absl::Status MakeEvents(OpKernelContext* ctx,
                          std::vector<Event>* events) override {
    absl::StatusOr<std::string> tag = Tag(ctx, 2);
    if (!tag.ok()) return tag.status();
    return summary_util::AddHistogram(ctx->input(3), *tag, *tag,
                                      events->emplace_back().mutable_summary());
  }
};

class WriteImageSummaryOp : public WriteOpBase {
 public:
  explicit WriteImageSummaryOp(OpKernelConstruction* ctx) : WriteOpBase(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_images", &max_images_));
    OP_REQUIRES(ctx, max_images_ >= 1 && max_images_ < (int64_t{1} << 31),
                absl::InvalidArgumentError(absl::StrCat(
                    "max_images must be in [1, 2^31), got ", max_images_)));
  }

 protected:
  absl::Status MakeEvents(OpKernelContext* ctx,
                          std::vector<Event>* events) override {
    absl::StatusOr<std::string> tag = Tag(ctx, 2);
    if (!tag.ok()) return tag.status();
    const Tensor& bad_color = ctx->input(4);
    if (bad_color.shape().rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad_color must be a vector, got shape ",
                       bad_color.shape().ToString()));
    }
    return summary_util::AddImages(ctx->input(3), *tag, max_images_,
                                   bad_color,
                                   events->emplace_back().mutable_summary());
  }

 private:
  int64_t max_images_ = 3;
};

class WriteAudioSummaryOp : public WriteOpBase {
 public:
  explicit WriteAudioSummaryOp(OpKernelConstruction* ctx) : WriteOpBase(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_outputs", &max_outputs_));
    OP_REQUIRES(ctx, max_outputs_ > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "max_outputs must be > 0, got ", max_outputs_)));
  }

 protected:
  absl::Status MakeEvents(OpKernelContext* ctx,
                          std::vector<Event>* events) override {
    absl::StatusOr<std::string> tag = Tag(ctx, 2);
    if (!tag.ok()) return tag.status();
    if (absl::Status s = ScalarInput(ctx, 4, "sample_rate", DT_FLOAT);
        !s.ok()) {
      return s;
    }
    return summary_util::AddAudio(ctx->input(3), *tag, max_outputs_,
                                  ctx->input(4).data<float>()[0],
                                  events->emplace_back().mutable_summary());
  }

 private:
  int64_t max_outputs_ = 3;
};

// One event per element: tf.summary.experimental.write_raw_pb.
class WriteRawProtoSummaryOp : public WriteOpBase {
 public:
  using WriteOpBase::WriteOpBase;

 protected:
  absl::Status MakeEvents(OpKernelContext* ctx,
                          std::vector<Event>* events) override {
    const Tensor& t = ctx->input(2);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      Event& e = events->emplace_back();
      if (!e.mutable_summary()->ParseFromString(t.data<std::string>()[i])) {
        return absl::DataLossError(absl::StrCat(
            "Bad tf.Summary binary proto tensor string (element ", i, ")"));
      }
    }
    return absl::OkStatus();
  }
};

class WriteGraphSummaryOp : public WriteOpBase {
 public:
  using WriteOpBase::WriteOpBase;

 protected:
  absl::Status MakeEvents(OpKernelContext* ctx,
                          std::vector<Event>* events) override {
    if (absl::Status s = ScalarInput(ctx, 2, "tensor", DT_STRING); !s.ok()) {
      return s;
    }
    const std::string& bytes = *ctx->input(2).data<std::string>();
    GraphDef graph;
    if (!graph.ParseFromString(bytes)) {
      return absl::DataLossError("Bad tf.GraphDef binary proto tensor string");
    }
    events->emplace_back().set_graph_def(bytes);
    return absl::OkStatus();
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SummaryWriter").Device(kDeviceCpu),
                      SummaryWriterOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("CreateSummaryFileWriter").Device(kDeviceCpu),
    CreateSummaryFileWriterOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FlushSummaryWriter").Device(kDeviceCpu),
    FlushOrCloseSummaryWriterOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("CloseSummaryWriter").Device(kDeviceCpu),
    FlushOrCloseSummaryWriterOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("WriteSummary").Device(kDeviceCpu),
                      WriteSummaryOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("WriteScalarSummary").Device(kDeviceCpu),
    WriteScalarSummaryOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("WriteHistogramSummary").Device(kDeviceCpu),
    WriteHistogramSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("WriteImageSummary").Device(kDeviceCpu),
                      WriteImageSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("WriteAudioSummary").Device(kDeviceCpu),
                      WriteAudioSummaryOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("WriteRawProtoSummary").Device(kDeviceCpu),
    WriteRawProtoSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("WriteGraphSummary").Device(kDeviceCpu),
                      WriteGraphSummaryOp);

}  // namespace
}  // namespace dflow
