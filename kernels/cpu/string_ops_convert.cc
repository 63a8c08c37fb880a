// CPU kernels of the string conversions (graph/ops/string_ops_convert.cc)
// as TensorFlow 2.21 computes them: StringSplit / StringSplitV2 into a
// SparseTensor, StringToNumber (surrounding whitespace allowed, anything
// else unparsable an InvalidArgument naming the string), AsString through
// printf's conversions with TensorFlow's attrs, and web-safe base64.
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// StringSplit (v1): pieces between any byte of `delimiter`; an empty
// delimiter splits into single bytes. An empty string has no pieces, even
// with skip_empty false (TensorFlow's tf.compat.v1.string_split).
void SplitAnyOf(absl::string_view text, absl::string_view delimiter,
                bool skip_empty, std::vector<absl::string_view>* pieces) {
  if (text.empty()) return;
  if (delimiter.empty()) {
    for (size_t i = 0; i < text.size(); ++i)
      pieces->push_back(text.substr(i, 1));
    return;
  }
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() ||
        delimiter.find(text[i]) != absl::string_view::npos) {
      absl::string_view piece = text.substr(start, i - start);
      if (!skip_empty || !piece.empty()) pieces->push_back(piece);
      start = i + 1;
    }
  }
}

bool IsSpace(char c) {
  return absl::ascii_isspace(static_cast<unsigned char>(c));
}

// StringSplitV2: Python's str.split(sep, maxsplit). With sep empty, runs of
// whitespace separate and make no empty pieces; after maxsplit splits the
// rest of the string (past the whitespace, maybe empty) is the last piece.
void SplitLikePython(absl::string_view text, absl::string_view sep,
                     int64_t maxsplit, std::vector<absl::string_view>* pieces) {
  if (maxsplit == 0) {
    pieces->push_back(text);
    return;
  }
  int64_t splits = 0;
  if (sep.empty()) {
    size_t i = 0;
    while (i < text.size() && IsSpace(text[i])) ++i;
    while (i < text.size()) {
      size_t end = i;
      while (end < text.size() && !IsSpace(text[end])) ++end;
      pieces->push_back(text.substr(i, end - i));
      i = end;
      while (i < text.size() && IsSpace(text[i])) ++i;
      if (maxsplit > 0 && ++splits == maxsplit) {
        pieces->push_back(text.substr(i));  // even when empty, as TF
        return;
      }
    }
    return;
  }
  size_t start = 0;
  for (size_t at = text.find(sep); at != absl::string_view::npos;
       at = text.find(sep, start)) {
    pieces->push_back(text.substr(start, at - start));
    start = at + sep.size();
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  pieces->push_back(text.substr(start));
}

class StringSplitOp : public OpKernel {
 public:
  StringSplitOp(OpKernelConstruction* ctx, bool v2) : OpKernel(ctx), v2_(v2) {
    if (v2) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("maxsplit", &maxsplit_));
    } else {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("skip_empty", &skip_empty_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sep = ctx->input(1);
    OP_REQUIRES(
        ctx, input.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "input must be a vector, got shape: ", input.shape().ToString())));
    OP_REQUIRES(ctx, sep.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    v2_ ? "sep" : "delimiter",
                    " must be a scalar, got shape: ", sep.shape().ToString())));
    const std::string* in = input.data<std::string>();
    const std::string& separator = *sep.data<std::string>();
    std::vector<std::vector<absl::string_view>> pieces(input.NumElements());
    int64_t total = 0, widest = 0;
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      if (v2_) {
        SplitLikePython(in[i], separator, maxsplit_, &pieces[i]);
      } else {
        SplitAnyOf(in[i], separator, skip_empty_, &pieces[i]);
      }
      total += static_cast<int64_t>(pieces[i].size());
      widest = std::max<int64_t>(widest, pieces[i].size());
    }
    Tensor *indices = nullptr, *values = nullptr, *shape = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({total, 2}), &indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t* idx = indices->data<int64_t>();
    std::string* val = values->data<std::string>();
    int64_t k = 0;
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      for (size_t j = 0; j < pieces[i].size(); ++j, ++k) {
        idx[2 * k] = i;
        idx[2 * k + 1] = static_cast<int64_t>(j);
        val[k] = std::string(pieces[i][j]);
      }
    }
    shape->data<int64_t>()[0] = input.NumElements();
    shape->data<int64_t>()[1] = widest;
  }

 private:
  const bool v2_;
  int64_t maxsplit_ = -1;
  bool skip_empty_ = true;
};

class StringSplitV1Op : public StringSplitOp {
 public:
  explicit StringSplitV1Op(OpKernelConstruction* ctx)
      : StringSplitOp(ctx, false) {}
};
class StringSplitV2Op : public StringSplitOp {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* ctx)
      : StringSplitOp(ctx, true) {}
};

// Parses `text` (surrounding ASCII whitespace allowed) as a T.
template <typename T>
bool ParseNumber(absl::string_view text, T* out) {
  text = absl::StripAsciiWhitespace(text);
  if constexpr (std::is_same_v<T, float>) {
    return absl::SimpleAtof(text, out);
  } else if constexpr (std::is_same_v<T, double>) {
    return absl::SimpleAtod(text, out);
  } else {
    return absl::SimpleAtoi(text, out);
  }
}

template <typename T>
class StringToNumberOp : public OpKernel {
 public:
  explicit StringToNumberOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    T* o = out->data<T>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      OP_REQUIRES(ctx, ParseNumber(in[i], &o[i]),
                  absl::InvalidArgumentError(absl::StrCat(
                      "StringToNumberOp could not correctly convert string: ",
                      in[i], " (element ", i, " is not a ",
                      DataTypeName(DataTypeToEnum<T>::value), ")")));
    }
  }
  bool IsExpensive() const override { return false; }
};

// AsString: one printf conversion built from the attrs when the kernel is
// made, as TensorFlow's (fill is a printf flag: ' ', '+', '-', '0', '#').
class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype = DT_INVALID;
    int64_t precision = -1, width = -1;
    bool scientific = false, shortest = false;
    std::string fill;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("precision", &precision));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("scientific", &scientific));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shortest", &shortest));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("width", &width));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fill", &fill));
    const bool floating = dtype == DT_FLOAT || dtype == DT_DOUBLE ||
                          dtype == DT_HALF || dtype == DT_BFLOAT16;
    OP_REQUIRES(ctx, !(scientific && shortest),
                absl::InvalidArgumentError(
                    "Cannot select both scientific and shortest notation"));
    OP_REQUIRES(
        ctx, fill.size() <= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Fill string must be one or fewer characters, got '", fill, "'")));
    OP_REQUIRES(ctx, floating || (!scientific && !shortest && precision < 0),
                absl::InvalidArgumentError(absl::StrCat(
                    "scientific, shortest and precision apply to floating "
                    "point only, not to ",
                    DataTypeName(dtype))));
    format_ = "%";
    if (!fill.empty()) {
      OP_REQUIRES(
          ctx,
          absl::string_view(" +-0#").find(fill[0]) != absl::string_view::npos,
          absl::InvalidArgumentError(
              absl::StrCat("Fill argument not supported: \"", fill,
                           "\"; use one of ' ', '+', '-', '0', '#'")));
      format_ += fill;
    }
    if (width > -1) absl::StrAppend(&format_, width);
    if (precision > -1) absl::StrAppend(&format_, ".", precision);
    switch (dtype) {
      case DT_FLOAT:
      case DT_DOUBLE:
      case DT_HALF:
      case DT_BFLOAT16:
        format_ += shortest ? "g" : scientific ? "e" : "f";
        break;
      case DT_INT8:
      case DT_INT16:
      case DT_INT32:
      case DT_INT64:
        format_ += "lld";
        break;
      case DT_UINT8:
      case DT_UINT16:
      case DT_UINT32:
      case DT_UINT64:
        format_ += "llu";
        break;
      case DT_BOOL:
      case DT_STRING:
        format_ += "s";
        break;
      default:
        ctx->SetStatus(absl::UnimplementedError(absl::StrCat(
            "AsString of ", DataTypeName(dtype),
            " is not supported: cast to float, double, an integer type, "
            "bool or string first")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      switch (input.dtype()) {
        case DT_FLOAT:
          o[i] = Format(static_cast<double>(input.data<float>()[i]));
          break;
        case DT_DOUBLE:
          o[i] = Format(input.data<double>()[i]);
          break;
        case DT_HALF:
          o[i] =
              Format(static_cast<double>(input.data<float16>()[i].ToFloat()));
          break;
        case DT_BFLOAT16:
          o[i] =
              Format(static_cast<double>(input.data<bfloat16>()[i].ToFloat()));
          break;
        case DT_INT8:
          o[i] = Format(static_cast<long long>(input.data<int8_t>()[i]));
          break;
        case DT_INT16:
          o[i] = Format(static_cast<long long>(input.data<int16_t>()[i]));
          break;
        case DT_INT32:
          o[i] = Format(static_cast<long long>(input.data<int32_t>()[i]));
          break;
        case DT_INT64:
          o[i] = Format(static_cast<long long>(input.data<int64_t>()[i]));
          break;
        case DT_UINT8:
          o[i] =
              Format(static_cast<unsigned long long>(input.data<uint8_t>()[i]));
          break;
        case DT_UINT16:
          o[i] = Format(
              static_cast<unsigned long long>(input.data<uint16_t>()[i]));
          break;
        case DT_UINT32:
          o[i] = Format(
              static_cast<unsigned long long>(input.data<uint32_t>()[i]));
          break;
        case DT_UINT64:
          o[i] = Format(
              static_cast<unsigned long long>(input.data<uint64_t>()[i]));
          break;
        case DT_BOOL:
          o[i] = Format(input.data<bool>()[i] ? "true" : "false");
          break;
        case DT_STRING:
          o[i] = Format(input.data<std::string>()[i].c_str());
          break;
        default:
          ctx->SetStatus(absl::UnimplementedError(
              absl::StrCat("AsString of ", DataTypeName(input.dtype()),
                           " is not supported")));
          return;
      }
    }
  }

 private:
  template <typename V>
  std::string Format(V v) const {
    char small[64];
    const int n = std::snprintf(small, sizeof(small), format_.c_str(), v);
    if (n < static_cast<int>(sizeof(small))) return std::string(small, n);
    std::string big(n + 1, '\0');
    std::snprintf(big.data(), big.size(), format_.c_str(), v);
    big.resize(n);
    return big;
  }

  std::string format_;
};

class EncodeBase64Op : public OpKernel {
 public:
  explicit EncodeBase64Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pad", &pad_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      o[i] = absl::WebSafeBase64Escape(in[i]);
      // Abseil's web-safe form has no padding; TensorFlow pads on request.
      if (pad_) o[i].append((4 - o[i].size() % 4) % 4, '=');
    }
  }

 private:
  bool pad_ = false;
};

class DecodeBase64Op : public OpKernel {
 public:
  explicit DecodeBase64Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      OP_REQUIRES(
          ctx, absl::WebSafeBase64Unescape(in[i], &o[i]),
          absl::InvalidArgumentError(absl::StrCat(
              "Invalid character found in base64: element ", i, " ('", in[i],
              "') is not web-safe base64 (A-Z a-z 0-9 - _, '=' padding)")));
    }
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringSplit").Device(kDeviceCpu),
                      StringSplitV1Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringSplitV2").Device(kDeviceCpu),
                      StringSplitV2Op);
#define DFLOW_STRING_TO_NUMBER(T)                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringToNumber")  \
                            .Device(kDeviceCpu)             \
                            .TypeConstraint<T>("out_type"), \
                        StringToNumberOp<T>)
DFLOW_STRING_TO_NUMBER(float);
DFLOW_STRING_TO_NUMBER(double);
DFLOW_STRING_TO_NUMBER(int32_t);
DFLOW_STRING_TO_NUMBER(int64_t);
DFLOW_STRING_TO_NUMBER(uint32_t);
DFLOW_STRING_TO_NUMBER(uint64_t);
#undef DFLOW_STRING_TO_NUMBER
DFLOW_REGISTER_KERNEL(KernelDefBuilder("AsString").Device(kDeviceCpu),
                      AsStringOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("EncodeBase64").Device(kDeviceCpu),
                      EncodeBase64Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeBase64").Device(kDeviceCpu),
                      DecodeBase64Op);

}  // namespace
}  // namespace dflow
