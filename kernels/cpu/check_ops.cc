// Assert: fails the step with InvalidArgument "assertion failed: [...]"
// when its condition is false, each data tensor summarized as TensorFlow's
// Tensor::SummarizeValue does (its first `summarize` elements, nested
// brackets for rank > 1, "..." where elements were left out), so messages
// match TensorFlow's word for word.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Shortest of %.{6,9}g (float) or %.{15,17}g (double) that reads back as
// the same value: TensorFlow's FloatToBuffer / DoubleToBuffer.
template <typename F>
std::string FloatString(F v) {
  constexpr bool kIsFloat = std::is_same_v<F, float>;
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", kIsFloat ? 6 : 15,
                static_cast<double>(v));
  const F back = kIsFloat ? std::strtof(buf, nullptr)
                          : static_cast<F>(std::strtod(buf, nullptr));
  if (back != v) {
    std::snprintf(buf, sizeof(buf), "%.*g", kIsFloat ? 9 : 17,
                  static_cast<double>(v));
  }
  return buf;
}

template <typename T>
std::string Element(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return absl::Utf8SafeCHexEscape(v);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return FloatString(v);
  } else if constexpr (std::is_same_v<T, float16> ||
                       std::is_same_v<T, bfloat16>) {
    return FloatString(v.ToFloat());
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else {
    return absl::StrCat(static_cast<int64_t>(v));
  }
}

template <typename T>
void PrintOneDim(int dim, const TensorShape& shape, int64_t limit,
                 const T* data, int64_t* index, std::string* out) {
  if (*index >= limit) return;
  const int64_t count = shape.dim(dim);
  if (dim == shape.rank() - 1) {
    for (int64_t i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) absl::StrAppend(out, "...");
        return;
      }
      if (i > 0) absl::StrAppend(out, " ");
      absl::StrAppend(out, Element(data[(*index)++]));
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    bool open = false;
    if (*index < limit) {
      absl::StrAppend(out, "[");
      open = true;
    }
    PrintOneDim(dim + 1, shape, limit, data, index, out);
    if (*index < limit || open) absl::StrAppend(out, "]");
  }
}

template <typename T>
std::string SummarizeArray(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  const T* data = limit > 0 ? t.data<T>() : nullptr;
  std::string out;
  if (t.shape().rank() == 0) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) absl::StrAppend(&out, " ");
      absl::StrAppend(&out, Element(data[i]));
    }
  } else {
    int64_t index = 0;
    PrintOneDim(0, t.shape(), limit, data, &index, &out);
  }
  if (n > limit) absl::StrAppend(&out, "...");
  return out;
}

std::string Summarize(const Tensor& t, int64_t max_entries) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return SummarizeArray<float>(t, max_entries);
    case DT_DOUBLE:
      return SummarizeArray<double>(t, max_entries);
    case DT_HALF:
      return SummarizeArray<float16>(t, max_entries);
    case DT_BFLOAT16:
      return SummarizeArray<bfloat16>(t, max_entries);
    case DT_INT8:
      return SummarizeArray<int8_t>(t, max_entries);
    case DT_UINT8:
      return SummarizeArray<uint8_t>(t, max_entries);
    case DT_INT16:
      return SummarizeArray<int16_t>(t, max_entries);
    case DT_UINT16:
      return SummarizeArray<uint16_t>(t, max_entries);
    case DT_INT32:
      return SummarizeArray<int32_t>(t, max_entries);
    case DT_UINT32:
      return SummarizeArray<uint32_t>(t, max_entries);
    case DT_INT64:
      return SummarizeArray<int64_t>(t, max_entries);
    case DT_BOOL:
      return SummarizeArray<bool>(t, max_entries);
    case DT_STRING:
      return SummarizeArray<std::string>(t, max_entries);
    default:
      return absl::StrCat("<", DataTypeName(t.dtype()), " tensor of shape ",
                          t.shape().ToString(), ">");
  }
}

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    OP_REQUIRES(ctx, cond.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "In[0] expected to be a scalar, but has shape ",
                    cond.shape().ToString())));
    if (*reinterpret_cast<const uint8_t*>(cond.data<bool>()) != 0) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&msg, "[", Summarize(ctx->input(i), summarize_), "]");
      if (i < ctx->num_inputs() - 1) absl::StrAppend(&msg, " ");
    }
    ctx->SetStatus(absl::InvalidArgumentError(msg));
  }

  bool IsExpensive() const override { return false; }

 private:
  int64_t summarize_ = 3;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Assert").Device(kDeviceCpu), AssertOp);

}  // namespace
}  // namespace dflow
