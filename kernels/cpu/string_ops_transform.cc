// CPU kernels of the string-to-string ops (graph/ops/string_ops_transform.cc)
// as TensorFlow 2.21 computes them: lower/upper case (ASCII, or with ICU
// for encoding "utf-8") and whitespace strip, Substr in bytes or UTF-8
// characters with pos/len broadcast against the strings, ReduceJoin, and regex replacement with RE2 (TensorFlow's
// engine, so patterns and \N rewrites mean the same).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "re2/re2.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "unicode/locid.h"
#include "unicode/unistr.h"

namespace dflow {
namespace {

// StringLower, StringUpper, StringStrip: a per-string function.
class StringMapOp : public OpKernel {
 public:
  using Fn = void (*)(std::string*);
  StringMapOp(OpKernelConstruction* ctx, Fn fn) : OpKernel(ctx), fn_(fn) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      o[i] = in[i];
      fn_(&o[i]);
    }
  }

 private:
  Fn fn_;
};

// The case ops' `encoding`: "" maps ASCII letters only; "utf-8" every
// cased letter with ICU, as TensorFlow does (ICU's root-locale mapping:
// TensorFlow's takes ICU's default locale, which is the root one unless
// the process sets another).
bool Utf8Case(OpKernelConstruction* ctx) {
  std::string encoding;
  absl::Status s = ctx->GetAttr("encoding", &encoding);
  if (!s.ok()) {
    ctx->SetStatus(s);
    return false;
  }
  if (!encoding.empty() && encoding != "utf-8") {
    ctx->SetStatus(absl::InvalidArgumentError(
        absl::StrCat("only utf-8 or '' (no encoding) is supported, received ",
                     encoding)));
  }
  return encoding == "utf-8";
}

// TensorFlow converts the string's c_str() with ICU's "UTF-8" converter:
// the text ends at the first NUL byte, and so does the result; malformed
// bytes become U+FFFD.
void IcuLower(std::string* s) {
  icu::UnicodeString text(s->c_str(), "UTF-8");
  text.toLower(icu::Locale::getRoot());
  s->clear();
  text.toUTF8String(*s);
}
void IcuUpper(std::string* s) {
  icu::UnicodeString text(s->c_str(), "UTF-8");
  text.toUpper(icu::Locale::getRoot());
  s->clear();
  text.toUTF8String(*s);
}
void AsciiLower(std::string* s) { absl::AsciiStrToLower(s); }
void AsciiUpper(std::string* s) { absl::AsciiStrToUpper(s); }

class StringLowerOp : public StringMapOp {
 public:
  explicit StringLowerOp(OpKernelConstruction* ctx)
      : StringMapOp(ctx, Utf8Case(ctx) ? IcuLower : AsciiLower) {}
};
class StringUpperOp : public StringMapOp {
 public:
  explicit StringUpperOp(OpKernelConstruction* ctx)
      : StringMapOp(ctx, Utf8Case(ctx) ? IcuUpper : AsciiUpper) {}
};
class StringStripOp : public StringMapOp {
 public:
  explicit StringStripOp(OpKernelConstruction* ctx)
      : StringMapOp(ctx,
                    [](std::string* s) { absl::StripAsciiWhitespace(s); }) {}
};

int64_t IntAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

// Row-major strides of `shape` broadcast to rank `rank` (0 where the
// dimension is 1 and broadcast).
std::vector<int64_t> BroadcastStrides(const TensorShape& shape,
                                      const TensorShape& out) {
  std::vector<int64_t> strides(out.rank(), 0);
  int64_t stride = 1;
  for (int d = shape.rank() - 1, o = out.rank() - 1; d >= 0; --d, --o) {
    strides[o] = shape.dim(d) == 1 ? 0 : stride;
    stride *= shape.dim(d);
  }
  return strides;
}

// The byte offset of UTF-8 character `chars` of `s` (s.size() past the
// end), counting lead bytes as TensorFlow does.
int64_t Utf8Offset(const std::string& s, int64_t chars) {
  int64_t at = 0;
  for (; at < static_cast<int64_t>(s.size()); ++at) {
    if ((static_cast<unsigned char>(s[at]) & 0xC0) != 0x80) {
      if (chars == 0) return at;
      --chars;
    }
  }
  return at;
}

int64_t Utf8Length(const std::string& s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("unit", &unit));
    OP_REQUIRES(ctx, unit == "BYTE" || unit == "UTF8_CHAR",
                absl::InvalidArgumentError(absl::StrCat(
                    "unit is '", unit, "'; it must be BYTE or UTF8_CHAR")));
    utf8_ = unit == "UTF8_CHAR";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& pos = ctx->input(1);
    const Tensor& len = ctx->input(2);
    OP_REQUIRES(ctx, pos.shape() == len.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "pos and len should have the same shape, got: ",
                    pos.shape().ToString(), " vs. ", len.shape().ToString())));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, Broadcast(input.shape(), pos.shape(), &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const std::vector<int64_t> in_strides =
        BroadcastStrides(input.shape(), out_shape);
    const std::vector<int64_t> pos_strides =
        BroadcastStrides(pos.shape(), out_shape);
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    std::vector<int64_t> index(out_shape.rank(), 0);
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      int64_t at_in = 0, at_pos = 0;
      for (int d = 0; d < out_shape.rank(); ++d) {
        at_in += index[d] * in_strides[d];
        at_pos += index[d] * pos_strides[d];
      }
      const std::string& s = in[at_in];
      const int64_t size =
          utf8_ ? Utf8Length(s) : static_cast<int64_t>(s.size());
      int64_t p = IntAt(pos, at_pos);
      const int64_t n = IntAt(len, at_pos);
      OP_REQUIRES(
          ctx, p >= -size && p <= size,
          absl::InvalidArgumentError(absl::StrCat(
              "pos ", p, " out of range for string b'", s, "' at index ", i,
              ": it must be in [", -size, ", ", size, "]")));
      if (p < 0) p += size;
      const int64_t take = n < 0 ? 0 : std::min(n, size - p);
      if (utf8_) {
        const int64_t from = Utf8Offset(s, p);
        o[i] = s.substr(from, Utf8Offset(s, p + take) - from);
      } else {
        o[i] = s.substr(p, take);
      }
      for (int d = out_shape.rank() - 1; d >= 0; --d) {
        if (++index[d] < out_shape.dim(d)) break;
        index[d] = 0;
      }
    }
  }

 private:
  static absl::Status Broadcast(const TensorShape& a, const TensorShape& b,
                                TensorShape* out) {
    const int rank = std::max(a.rank(), b.rank());
    *out = TensorShape({});
    for (int i = 0; i < rank; ++i) {
      const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
      const int64_t da = ia < 0 ? 1 : a.dim(ia), db = ib < 0 ? 1 : b.dim(ib);
      if (da != db && da != 1 && db != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Incompatible shapes: input ", a.ToString(),
                         " and pos/len ", b.ToString(), " do not broadcast"));
      }
      out->AddDim(da == 1 ? db : da);
    }
    return absl::OkStatus();
  }
  bool utf8_ = false;
};

class ReduceJoinOp : public OpKernel {
 public:
  explicit ReduceJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    std::vector<bool> reduced(rank, false);
    std::vector<int> given;  // the reduced dimensions in the order given
    for (int64_t i = 0; i < axes.NumElements(); ++i) {
      const int64_t axis = IntAt(axes, i);
      OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                  absl::InvalidArgumentError(
                      absl::StrCat("Invalid reduction dimension ", axis,
                                   " for input with ", rank, " dimensions")));
      const int64_t d = axis < 0 ? axis + rank : axis;
      OP_REQUIRES(ctx, !reduced[d],
                  absl::InvalidArgumentError(
                      absl::StrCat("Duplicate reduction dimension ", axis)));
      reduced[d] = true;
      given.push_back(static_cast<int>(d));
    }
    TensorShape out_shape({});
    int64_t joined = 1;  // strings joined into each output
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        out_shape.AddDim(shape.dim(d));
      } else {
        joined *= shape.dim(d);
        if (keep_dims_) out_shape.AddDim(1);
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    // Row-major strides of the input; each output element walks its
    // reduced coordinates in row-major order.
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * shape.dim(d + 1);
    }
    // TensorFlow reduces the dimensions one after the other, in the order
    // given: the first given varies fastest in the joined text.
    std::vector<int> kept_dims;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) kept_dims.push_back(d);
    }
    const std::vector<int> reduced_dims(given.rbegin(), given.rend());
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    std::vector<int64_t> kept(kept_dims.size(), 0);
    std::vector<int64_t> red(reduced_dims.size(), 0);
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      int64_t base = 0;
      for (size_t k = 0; k < kept_dims.size(); ++k) {
        base += kept[k] * strides[kept_dims[k]];
      }
      std::string text;
      std::fill(red.begin(), red.end(), 0);
      for (int64_t j = 0; j < joined; ++j) {
        int64_t at = base;
        for (size_t r = 0; r < reduced_dims.size(); ++r) {
          at += red[r] * strides[reduced_dims[r]];
        }
        if (j > 0) text += separator_;
        text += in[at];
        for (int r = static_cast<int>(red.size()) - 1; r >= 0; --r) {
          if (++red[r] < shape.dim(reduced_dims[r])) break;
          red[r] = 0;
        }
      }
      o[i] = std::move(text);
      for (int k = static_cast<int>(kept.size()) - 1; k >= 0; --k) {
        if (++kept[k] < shape.dim(kept_dims[k])) break;
        kept[k] = 0;
      }
    }
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

// A compiled pattern and a checked rewrite, or the error saying why not.
absl::Status CompileRegex(const std::string& pattern,
                          const std::string& rewrite,
                          std::unique_ptr<RE2>* re) {
  *re = std::make_unique<RE2>(pattern, RE2::Quiet);
  if (!(*re)->ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid pattern: ", pattern, ", error: ", (*re)->error()));
  }
  std::string why;
  if (!(*re)->CheckRewriteString(rewrite, &why)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid rewrite pattern: ", rewrite, ", error: ", why));
  }
  return absl::OkStatus();
}

void ReplaceAll(OpKernelContext* ctx, const RE2& re, const std::string& rewrite,
                bool global) {
  const Tensor& input = ctx->input(0);
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  const std::string* in = input.data<std::string>();
  std::string* o = out->data<std::string>();
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    o[i] = in[i];
    if (global) {
      RE2::GlobalReplace(&o[i], re, rewrite);
    } else {
      RE2::Replace(&o[i], re, rewrite);
    }
  }
}

class StaticRegexReplaceOp : public OpKernel {
 public:
  explicit StaticRegexReplaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("rewrite", &rewrite_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("replace_global", &global_));
    OP_REQUIRES_OK(ctx, CompileRegex(pattern, rewrite_, &re_));
  }

  void Compute(OpKernelContext* ctx) override {
    ReplaceAll(ctx, *re_, rewrite_, global_);
  }

 private:
  std::unique_ptr<RE2> re_;
  std::string rewrite_;
  bool global_ = true;
};

class RegexReplaceOp : public OpKernel {
 public:
  explicit RegexReplaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("replace_global", &global_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& pattern = ctx->input(1);
    const Tensor& rewrite = ctx->input(2);
    OP_REQUIRES(ctx, pattern.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Pattern must be scalar, but received ",
                                 pattern.shape().ToString())));
    OP_REQUIRES(ctx, rewrite.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Replacement rewrite must be scalar, but "
                                 "received ",
                                 rewrite.shape().ToString())));
    const std::string& rewrite_text = *rewrite.data<std::string>();
    std::shared_ptr<const RE2> re;
    OP_REQUIRES_OK(ctx,
                   Compiled(*pattern.data<std::string>(), rewrite_text, &re));
    ReplaceAll(ctx, *re, rewrite_text, global_);
  }

 private:
  // The pattern is nearly always the same from step to step (a Const):
  // the last one compiled is kept, as TensorFlow does.
  absl::Status Compiled(const std::string& pattern, const std::string& rewrite,
                        std::shared_ptr<const RE2>* re) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (last_ != nullptr && last_->pattern() == pattern &&
          last_rewrite_ == rewrite) {
        *re = last_;
        return absl::OkStatus();
      }
    }
    std::unique_ptr<RE2> made;
    if (absl::Status s = CompileRegex(pattern, rewrite, &made); !s.ok()) {
      return s;
    }
    *re = std::shared_ptr<const RE2>(std::move(made));
    std::lock_guard<std::mutex> lock(mu_);
    last_ = *re;
    last_rewrite_ = rewrite;
    return absl::OkStatus();
  }

  bool global_ = true;
  std::mutex mu_;
  std::shared_ptr<const RE2> last_;  // mu_
  std::string last_rewrite_;         // mu_
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringLower").Device(kDeviceCpu),
                      StringLowerOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringUpper").Device(kDeviceCpu),
                      StringUpperOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringStrip").Device(kDeviceCpu),
                      StringStripOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Substr").Device(kDeviceCpu), SubstrOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReduceJoin")
                          .Device(kDeviceCpu)
                          .HostMemory("reduction_indices"),
                      ReduceJoinOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StaticRegexReplace").Device(kDeviceCpu),
                      StaticRegexReplaceOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RegexReplace").Device(kDeviceCpu),
                      RegexReplaceOp);

}  // namespace
}  // namespace dflow
