// The counting kernels on the CPU (graph/ops/math_ops_histogram.cc):
//
// Bincount(arr, size, weights): bins[v] = the number of i with arr[i] = v
//   (or the sum of their weights), for v < size; larger values are
//   dropped, negative ones fail the step.
// HistogramFixedWidth(values, [lo, hi], nbins): counts in nbins equal bins
//   of [lo, hi]; values below lo go to the first bin, at or above hi to the
//   last. The bin of v is ((max(v, lo) - lo) in T, as double) / step with
//   step = (hi - lo) / nbins in double, clamped to nbins - 1, as in
//   TensorFlow. NaN values fail the step (TensorFlow's words).
//
// Weights are summed in input order, as TensorFlow's CPU kernels do, so
// float sums round as TensorFlow's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// A scalar integer input's value.
template <typename Index>
absl::Status ScalarInput(const Tensor& t, const char* what, int64_t* value) {
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar, got shape ", t.shape().ToString()));
  }
  *value = static_cast<int64_t>(*t.data<Index>());
  return absl::OkStatus();
}

// Adds one row of values into out[0, size): counts, weights or marks.
template <typename Index, typename T>
absl::Status CountRow(const Index* values, const T* weights, int64_t n,
                      int64_t size, bool binary, T* out) {
  for (int64_t i = 0; i < n; ++i) {
    const Index v = values[i];
    if (v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input arr must be non-negative! Got ",
                       static_cast<int64_t>(v), " at index ", i));
    }
    if (static_cast<int64_t>(v) >= size) continue;
    if (binary) {
      out[v] = T(1);
    } else {
      out[v] += weights == nullptr ? T(1) : weights[i];
    }
  }
  return absl::OkStatus();
}

template <typename T>
class BincountOp : public OpKernel {
 public:
  explicit BincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& arr = ctx->input(0);
    const Tensor& weights = ctx->input(2);
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ScalarInput<int32_t>(ctx->input(1), "size", &size));
    OP_REQUIRES(ctx, size >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("size (", size, ") must be non-negative")));
    OP_REQUIRES(
        ctx, weights.NumElements() == 0 || weights.shape() == arr.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "Input arr and weights should have the same shape (or "
            "weights be empty), got ",
            arr.shape().ToString(), " and ", weights.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    T* o = out->data<T>();
    std::fill(o, o + size, T(0));
    OP_REQUIRES_OK(
        ctx, CountRow(arr.data<int32_t>(),
                      weights.NumElements() == 0 ? nullptr : weights.data<T>(),
                      arr.NumElements(), size, false, o));
  }
};

template <typename T, typename Out>
class HistogramFixedWidthOp : public OpKernel {
 public:
  explicit HistogramFixedWidthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(0);
    const Tensor& range = ctx->input(1);
    int64_t nbins = 0;
    OP_REQUIRES_OK(ctx, ScalarInput<int32_t>(ctx->input(2), "nbins", &nbins));
    OP_REQUIRES(ctx, range.shape() == TensorShape({2}),
                absl::InvalidArgumentError(absl::StrCat(
                    "value_range should be a vector of 2 elements, got "
                    "shape ",
                    range.shape().ToString())));
    const T lo = range.data<T>()[0];
    const T hi = range.data<T>()[1];
    OP_REQUIRES(ctx, lo < hi,
                absl::InvalidArgumentError(
                    absl::StrCat("value_range should satisfy value_range[0] < "
                                 "value_range[1], but got '[",
                                 lo, ", ", hi, "]'")));
    OP_REQUIRES(
        ctx, nbins > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "nbins should be a positive number, but got '", nbins, "'")));
    const T* v = values.data<T>();
    const int64_t n = values.NumElements();
    if constexpr (std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        OP_REQUIRES(
            ctx, !std::isnan(v[i]),
            absl::InvalidArgumentError(absl::StrCat(
                "Histogram values must not contain NaN (values[", i, "])")));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({nbins}), &out));
    Out* o = out->data<Out>();
    std::fill(o, o + nbins, Out(0));
    const double step =
        static_cast<double>(hi - lo) / static_cast<double>(nbins);
    const double last = static_cast<double>(nbins - 1);
    for (int64_t i = 0; i < n; ++i) {
      // Floats subtract in T, as TensorFlow; integers in double, where
      // TensorFlow's T subtraction could overflow (and index out of range).
      double above;
      if constexpr (std::is_floating_point_v<T>) {
        above = static_cast<double>(std::max(v[i], lo) - lo);
      } else {
        above =
            static_cast<double>(std::max(v[i], lo)) - static_cast<double>(lo);
      }
      const double bin = std::max(0.0, std::min(above / step, last));
      o[static_cast<int64_t>(bin)] += Out(1);
    }
  }
};

#define DFLOW_REGISTER_BINCOUNT(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                      \
      KernelDefBuilder("Bincount").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      BincountOp<T>)

DFLOW_REGISTER_BINCOUNT(int32_t);
DFLOW_REGISTER_BINCOUNT(int64_t);
DFLOW_REGISTER_BINCOUNT(float);
DFLOW_REGISTER_BINCOUNT(double);

#define DFLOW_REGISTER_HISTOGRAM(T)                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("HistogramFixedWidth") \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T")             \
                            .TypeConstraint<int32_t>("dtype"),  \
                        HistogramFixedWidthOp<T, int32_t>);     \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("HistogramFixedWidth") \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T")             \
                            .TypeConstraint<int64_t>("dtype"),  \
                        HistogramFixedWidthOp<T, int64_t>)

DFLOW_REGISTER_HISTOGRAM(int32_t);
DFLOW_REGISTER_HISTOGRAM(int64_t);
DFLOW_REGISTER_HISTOGRAM(float);
DFLOW_REGISTER_HISTOGRAM(double);

#undef DFLOW_REGISTER_HISTOGRAM
#undef DFLOW_REGISTER_BINCOUNT

}  // namespace
}  // namespace dflow
