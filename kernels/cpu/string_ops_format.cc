// StringFormat and PrintV2, what tf.print and tf.strings.format build, and
// TF1's Print (tf.compat.v1.Print: passes its input on and writes the
// message and each data tensor, Assert's summary style, the first first_n
// times):
// StringFormat puts each input, summarized as TensorFlow does
// (kernel_util_summarize.h), where the template has its placeholder;
// PrintV2 writes a string and `end` to stderr, stdout, the log (stderr
// here) or a file ("file://path", appended to).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_summarize.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class StringFormatOp : public OpKernel {
 public:
  explicit StringFormatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format;
    std::string placeholder;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("template", &format));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("placeholder", &placeholder));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
    OP_REQUIRES(ctx, !placeholder.empty(),
                absl::InvalidArgumentError(
                    "the placeholder attr is empty; give the text that marks "
                    "where each input goes (TensorFlow's default: {})"));
    std::vector<DataType> types;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &types));
    const int inputs = static_cast<int>(types.size());
    pieces_ = absl::StrSplit(format, placeholder);
    const int placeholders = static_cast<int>(pieces_.size()) - 1;
    OP_REQUIRES(ctx, placeholders == inputs,
                absl::InvalidArgumentError(absl::StrCat(
                    "the template has ", placeholders, " placeholders ('",
                    placeholder, "') but the op has ", inputs,
                    " inputs; give one placeholder per input")));
  }

  void Compute(OpKernelContext* ctx) override {
    std::string text = pieces_[0];
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&text, SummarizeTensorV2(ctx->input(i), summarize_),
                      pieces_[i + 1]);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<std::string>() = std::move(text);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<std::string> pieces_;
  int64_t summarize_ = 3;
};

class PrintV2Op : public OpKernel {
 public:
  explicit PrintV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_stream", &stream_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("end", &end_));
    const bool known = stream_ == "stderr" || stream_ == "stdout" ||
                       absl::StartsWith(stream_, "log(") ||
                       absl::StartsWith(stream_, "file://");
    OP_REQUIRES(ctx, known,
                absl::InvalidArgumentError(
                    absl::StrCat("output_stream '", stream_,
                                 "' is not one of stderr, stdout, log(info), "
                                 "log(warning), log(error) or file://<path>")));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dtype() == DT_STRING && input.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be a string scalar (StringFormat's output), "
                    "got ",
                    DataTypeName(input.dtype()), " of shape ",
                    input.shape().ToString())));
    const std::string line = absl::StrCat(*input.data<std::string>(), end_);
    // One print at a time: lines of parallel iterations stay whole.
    static std::mutex* mu = new std::mutex;
    std::lock_guard<std::mutex> lock(*mu);
    if (absl::StartsWith(stream_, "file://")) {
      const std::string path = stream_.substr(7);
      std::FILE* f = std::fopen(path.c_str(), "a");
      OP_REQUIRES(ctx, f != nullptr,
                  absl::NotFoundError(absl::StrCat(
                      "cannot open '", path, "' to append tf.print's output")));
      std::fwrite(line.data(), 1, line.size(), f);
      std::fclose(f);
      return;
    }
    std::FILE* f = stream_ == "stdout" ? stdout : stderr;
    std::fwrite(line.data(), 1, line.size(), f);
    std::fflush(f);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string stream_;
  std::string end_;
};

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("first_n", &first_n_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    if (first_n_ >= 0 && printed_.fetch_add(1) >= first_n_) return;
    std::string line = message_;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&line, "[", SummarizeTensor(ctx->input(i), summarize_),
                      "]");
    }
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  std::atomic<int64_t> printed_{0};
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Print").Device(kDeviceCpu), PrintOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringFormat").Device(kDeviceCpu),
                      StringFormatOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PrintV2").Device(kDeviceCpu),
                      PrintV2Op);

}  // namespace
}  // namespace dflow
