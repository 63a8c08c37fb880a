// StaticRegexFullMatch: whether each string matches the `pattern` attr as a
// whole, with RE2 (TensorFlow's regex engine, so syntax and semantics are
// the same). The pattern is compiled once, when the kernel is built; a bad
// pattern fails there, naming the pattern and RE2's reason.
// RegexFullMatch: the same with the pattern a tensor, compiled when it
// changes. StringLength: each string's length in bytes or in UTF-8
// characters.
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "re2/re2.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    re_ = std::make_unique<RE2>(pattern, RE2::Quiet);
    OP_REQUIRES(ctx, re_->ok(),
                absl::InvalidArgumentError(absl::StrCat(
                    "Invalid pattern: ", pattern, ", error: ", re_->error())));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    bool* o = out->data<bool>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      o[i] = RE2::FullMatch(in[i], *re_);
    }
  }

 private:
  std::unique_ptr<RE2> re_;
};

class RegexFullMatchOp : public OpKernel {
 public:
  explicit RegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& pattern = ctx->input(1);
    OP_REQUIRES(ctx, pattern.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Pattern must be scalar, but received ",
                                 pattern.shape().ToString())));
    std::shared_ptr<const RE2> re;
    OP_REQUIRES_OK(ctx, Compiled(*pattern.data<std::string>(), &re));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    bool* o = out->data<bool>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      o[i] = RE2::FullMatch(in[i], *re);
    }
  }

 private:
  // The pattern is nearly always the same from step to step (a Const):
  // the last one compiled is kept.
  absl::Status Compiled(const std::string& pattern,
                        std::shared_ptr<const RE2>* re) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (last_ != nullptr && last_->pattern() == pattern) {
        *re = last_;
        return absl::OkStatus();
      }
    }
    auto made = std::make_shared<const RE2>(pattern, RE2::Quiet);
    if (!made->ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid pattern: ", pattern, ", error: ", made->error()));
    }
    *re = made;
    std::lock_guard<std::mutex> lock(mu_);
    last_ = std::move(made);
    return absl::OkStatus();
  }

  std::mutex mu_;
  std::shared_ptr<const RE2> last_;  // mu_
};

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("unit", &unit));
    OP_REQUIRES(ctx, unit == "BYTE" || unit == "UTF8_CHAR",
                absl::InvalidArgumentError(absl::StrCat(
                    "unit is '", unit, "'; it must be BYTE or UTF8_CHAR")));
    utf8_ = unit == "UTF8_CHAR";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    int32_t* o = out->data<int32_t>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      int64_t length = static_cast<int64_t>(in[i].size());
      if (utf8_) {
        // Every byte but UTF-8's continuation bytes (10xxxxxx) starts a
        // character.
        length = 0;
        for (unsigned char c : in[i]) length += (c & 0xC0) != 0x80;
      }
      o[i] = static_cast<int32_t>(length);
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  bool utf8_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringLength").Device(kDeviceCpu),
                      StringLengthOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RegexFullMatch").Device(kDeviceCpu),
                      RegexFullMatchOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StaticRegexFullMatch")
                          .Device(kDeviceCpu),
                      StaticRegexFullMatchOp);

}  // namespace
}  // namespace dflow
