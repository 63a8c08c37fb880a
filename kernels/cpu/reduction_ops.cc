// Reductions on the CPU: Sum, Mean, Prod, Max, Min over the axes given as
// an int32/int64 input (scalar or vector; negative axes count from the end;
// no axes returns the input), ArgMax and ArgMin along one axis, the cumulative
// reductions Cumsum and Cumprod along one axis, and L2Loss (sum(t^2) / 2).
// The reduction engine is kernels/cpu/kernel_util_reduce.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_reduce.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using AxisMask = absl::InlinedVector<bool, 8>;

// Reads the axes input into a mask over the input's dimensions, with
// TensorFlow's checks and messages.
absl::Status ReadAxes(const Tensor& axes, const TensorShape& shape,
                      AxisMask* mask) {
  const int rank = shape.rank();
  mask->assign(rank, false);
  if (axes.shape().rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduction_indices must be a scalar or a vector, but has shape ",
        axes.shape().ToString()));
  }
  if (axes.dtype() != DT_INT32 && axes.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduction_indices must be int32 or int64, not ",
                     DataTypeName(axes.dtype())));
  }
  for (int64_t i = 0; i < axes.NumElements(); ++i) {
    const int64_t axis = axes.dtype() == DT_INT32
                             ? int64_t{axes.data<int32_t>()[i]}
                             : axes.data<int64_t>()[i];
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid reduction dimension (", axis, " for input with ", rank,
          " dimension(s)): input shape ", shape.ToString(),
          ", axes must be in [", -rank, ", ", rank, ")"));
    }
    const int64_t d = axis < 0 ? axis + rank : axis;
    if ((*mask)[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid reduction arguments: Axes contains duplicate dimension: ",
          d));
    }
    (*mask)[d] = true;
  }
  return absl::OkStatus();
}

// The shape of a reduction's result: the kept dimensions (the reduced ones
// as 1s with keep_dims).
TensorShape ReducedShape(const TensorShape& in, const AxisMask& mask,
                         bool keep_dims) {
  TensorShape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!mask[i]) {
      out.AddDim(in.dim(i));
    } else if (keep_dims) {
      out.AddDim(1);
    }
  }
  return out;
}

template <Reduction kOp>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    AxisMask mask;
    OP_REQUIRES_OK(ctx, ReadAxes(axes, in.shape(), &mask));
    OP_REQUIRES_OK(
        ctx, ReduceToOutput(ctx, kOp, in, mask,
                            ReducedShape(in.shape(), mask, keep_dims_), 0));
  }

 private:
  bool keep_dims_ = false;
};

// --- EuclideanNorm: sqrt of the sum of squares (float, double): the
// squares summed as Sum sums, then the square root of each result. ---

template <typename T>
class EuclideanNormOp : public OpKernel {
 public:
  explicit EuclideanNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    AxisMask mask;
    OP_REQUIRES_OK(ctx, ReadAxes(ctx->input(1), in.shape(), &mask));
    Tensor squares;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(in.dtype(), in.shape(), &squares));
    const T* x = in.data<T>();
    T* sq = squares.data<T>();
    for (int64_t i = 0; i < in.NumElements(); ++i) sq[i] = x[i] * x[i];
    OP_REQUIRES_OK(
        ctx, ReduceToOutput(ctx, Reduction::kSum, squares, mask,
                            ReducedShape(in.shape(), mask, keep_dims_), 0));
    // The output ReduceToOutput set is a new buffer or `squares`: this
    // kernel's own either way, so the roots are taken in place.
    Tensor& out = (*ctx->outputs())[0].tensor;
    T* o = out.data<T>();
    for (int64_t i = 0; i < out.NumElements(); ++i) o[i] = std::sqrt(o[i]);
  }

 private:
  bool keep_dims_ = false;
};

// --- All and Any: AND / OR of bools. Conditions of assertions and masks:
// small, so one pass over the input, each element finding its output by
// dropping the reduced dimensions. ---

template <bool kAll>
class LogicalReductionOp : public OpKernel {
 public:
  explicit LogicalReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    AxisMask mask;
    OP_REQUIRES_OK(ctx, ReadAxes(ctx->input(1), in.shape(), &mask));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, ReducedShape(in.shape(), mask, keep_dims_),
                                  &out));
    bool* result = out->data<bool>();
    std::fill_n(result, out->NumElements(), kAll);
    const bool* x = in.data<bool>();
    const int rank = in.shape().rank();
    std::vector<int64_t> index(rank, 0);
    for (int64_t k = 0; k < in.NumElements(); ++k) {
      int64_t o = 0;
      for (int d = 0; d < rank; ++d) {
        if (!mask[d]) o = o * in.shape().dim(d) + index[d];
      }
      result[o] = kAll ? (result[o] && x[k]) : (result[o] || x[k]);
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < in.shape().dim(d)) break;
        index[d] = 0;
      }
    }
  }

 private:
  bool keep_dims_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("All")
                          .Device(kDeviceCpu)
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      LogicalReductionOp<true>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Any")
                          .Device(kDeviceCpu)
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      LogicalReductionOp<false>);

// --- ArgMax, ArgMin. ---

// Whether `v` replaces `best`: strictly larger (ArgMax) or smaller (ArgMin).
template <bool kMin, typename E>
bool Better(const E& v, const E& best) {
  if constexpr (kMin) {
    return v < best;
  } else {
    return v > best;
  }
}

// Indices of the largest (kMin: smallest) values along the middle dimension
// of a [P, R, Q] view. Ties go to the first index. Like TensorFlow's Eigen
// reducers, the running best starts at the type's lowest (highest) value
// and only a strictly better value replaces it, so NaNs are skipped (an
// all-NaN run gives 0).
template <bool kMin, typename E, typename Out>
void ArgMaxLoop(OpKernelContext* ctx, const E* in, int64_t P, int64_t R,
                int64_t Q, Out* out) {
  const E lowest = kMin ? Eigen::NumTraits<E>::highest()
                        : Eigen::NumTraits<E>::lowest();
  constexpr int64_t kBlock = 256;
  if (Q == 1) {
    ParallelForShards(ctx, P, R, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const E* row = in + p * R;
        E best = lowest;
        int64_t index = 0;
        for (int64_t r = 0; r < R; ++r) {
          if (Better<kMin>(row[r], best)) {
            best = row[r];
            index = r;
          }
        }
        out[p] = static_cast<Out>(index);
      }
    });
    return;
  }
  const int64_t col_blocks = (Q + kBlock - 1) / kBlock;
  ParallelForShards(ctx, P * col_blocks, R * kBlock, [&](int64_t b, int64_t e) {
    E best[kBlock];
    int64_t index[kBlock];
    for (int64_t u = b; u < e; ++u) {
      const int64_t p = u / col_blocks;
      const int64_t q0 = (u % col_blocks) * kBlock;
      const int64_t n = std::min(kBlock, Q - q0);
      std::fill(best, best + n, lowest);
      std::fill(index, index + n, int64_t{0});
      for (int64_t r = 0; r < R; ++r) {
        const E* row = in + (p * R + r) * Q + q0;
        for (int64_t j = 0; j < n; ++j) {
          if (Better<kMin>(row[j], best[j])) {
            best[j] = row[j];
            index[j] = r;
          }
        }
      }
      for (int64_t j = 0; j < n; ++j) {
        out[p * Q + q0 + j] = static_cast<Out>(index[j]);
      }
    }
  });
}

template <typename T, bool kMin = false>
class ArgMaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& dim = ctx->input(1);
    OP_REQUIRES(ctx, dim.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "dim must be a scalar, but received tensor of shape: ",
                    dim.shape().ToString())));
    int64_t axis = 0;
    switch (dim.dtype()) {
      case DT_INT16:
        axis = *dim.data<int16_t>();
        break;
      case DT_INT32:
        axis = *dim.data<int32_t>();
        break;
      case DT_INT64:
        axis = *dim.data<int64_t>();
        break;
      default:
        OP_REQUIRES(ctx, false,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dimension must be int16, int32 or int64, not ",
                        DataTypeName(dim.dtype()))));
    }
    const TensorShape& shape = in.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected dimension in the range [", -rank, ", ", rank,
            "), but got ", axis, " (input shape ", shape.ToString(), ")")));
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    const int64_t R = shape.dim(a);
    OP_REQUIRES(
        ctx, R > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Reduction axis ", a, " is empty in shape ", shape.ToString())));
    TensorShape out_shape;
    int64_t P = 1, Q = 1;
    for (int i = 0; i < rank; ++i) {
      if (i == a) continue;
      out_shape.AddDim(shape.dim(i));
      (i < a ? P : Q) *= shape.dim(i);
    }
    const DataType out_type = output_type(0);
    int64_t max_index = 0;
    switch (out_type) {
      case DT_INT16:
        max_index = std::numeric_limits<int16_t>::max();
        break;
      case DT_UINT16:
        max_index = std::numeric_limits<uint16_t>::max();
        break;
      case DT_INT32:
        max_index = std::numeric_limits<int32_t>::max();
        break;
      default:
        max_index = std::numeric_limits<int64_t>::max();
    }
    OP_REQUIRES(ctx, R - 1 <= max_index,
                absl::InvalidArgumentError(absl::StrCat(
                    type_string(), " over axis ", a, " of shape ",
                    shape.ToString(),
                    " has indices up to ", R - 1, ", which output_type ",
                    DataTypeName(out_type), " cannot hold")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const auto* src = EigenData<T>(in);
    switch (out_type) {
      case DT_INT16:
        ArgMaxLoop<kMin>(ctx, src, P, R, Q, out->data<int16_t>());
        break;
      case DT_UINT16:
        ArgMaxLoop<kMin>(ctx, src, P, R, Q, out->data<uint16_t>());
        break;
      case DT_INT32:
        ArgMaxLoop<kMin>(ctx, src, P, R, Q, out->data<int32_t>());
        break;
      case DT_INT64:
        ArgMaxLoop<kMin>(ctx, src, P, R, Q, out->data<int64_t>());
        break;
      default:
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("output_type must be int16, uint16, int32 or int64, "
                         "not ",
                         DataTypeName(out_type))));
    }
  }
};

template <typename T>
using ArgMinOp = ArgMaxOp<T, true>;

// --- Cumsum, Cumprod. ---

// The accumulator of a scan over elements E: float for half and bfloat16,
// an unsigned type for integers (so sums and products wrap without
// undefined behaviour), E itself otherwise.
template <typename E, typename Enable = void>
struct ScanAccumulatorOf {
  using type = E;
};
template <>
struct ScanAccumulatorOf<Eigen::half> {
  using type = float;
};
template <>
struct ScanAccumulatorOf<Eigen::bfloat16> {
  using type = float;
};
// At least 32 bits: narrower unsigned types would be promoted to int, whose
// overflow is undefined. Wrapping modulo 2^32 then truncating wraps
// modulo the narrow type's range just the same.
template <typename E>
struct ScanAccumulatorOf<E, std::enable_if_t<std::is_integral_v<E>>> {
  using type =
      std::conditional_t<(sizeof(E) < 4), uint32_t, std::make_unsigned_t<E>>;
};
template <typename E>
using ScanAccumulator = typename ScanAccumulatorOf<E>::type;

// The running sum (kProd: product) along the middle dimension of a
// [outer, n, inner] view, from the start or (reverse) the end, with each
// element included or (exclusive) not. Work is split into units of one
// outer index and up to kBlock inner columns, each carried down the n rows
// in an accumulator row, so every row read is contiguous.
template <typename E, bool kProd>
void ScanLoop(OpKernelContext* ctx, const E* in, E* out, int64_t outer,
              int64_t n, int64_t inner, bool exclusive, bool reverse) {
  using A = ScanAccumulator<E>;
  constexpr int64_t kBlock = 256;
  const int64_t col_blocks = (inner + kBlock - 1) / kBlock;
  const int64_t cost = n * std::min(inner, kBlock);
  ParallelForShards(ctx, outer * col_blocks, cost, [&](int64_t b, int64_t e) {
    A acc[kBlock];
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / col_blocks;
      const int64_t q0 = (u % col_blocks) * kBlock;
      const int64_t w = std::min(kBlock, inner - q0);
      std::fill(acc, acc + w, kProd ? A(1) : A(0));
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i = reverse ? n - 1 - k : k;
        const int64_t at = (o * n + i) * inner + q0;
        const E* x = in + at;
        E* y = out + at;
        for (int64_t j = 0; j < w; ++j) {
          const A v = static_cast<A>(x[j]);
          if (exclusive) y[j] = static_cast<E>(acc[j]);
          if constexpr (kProd) {
            acc[j] = static_cast<A>(acc[j] * v);
          } else {
            acc[j] = static_cast<A>(acc[j] + v);
          }
          if (!exclusive) y[j] = static_cast<E>(acc[j]);
        }
      }
    }
  });
}

template <typename T, bool kProd>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("exclusive", &exclusive_);
    if (s.ok()) s = ctx->GetAttr("reverse", &reverse_);
    ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(
        ctx, axis_t.shape().rank() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "ScanOp: axis must be a scalar, not ", axis_t.shape().ToString())));
    const int64_t axis = axis_t.dtype() == DT_INT32
                             ? int64_t{*axis_t.data<int32_t>()}
                             : *axis_t.data<int64_t>();
    const TensorShape& shape = in.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        absl::InvalidArgumentError(absl::StrCat(
            "ScanOp: Expected scan axis in the range [", -rank, ", ", rank,
            "), but got ", axis, " (input shape ", shape.ToString(), ")")));
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < rank; ++i) {
      if (i < a) outer *= shape.dim(i);
      if (i > a) inner *= shape.dim(i);
    }
    ScanLoop<EigenElement<T>, kProd>(ctx, EigenData<T>(in), EigenData<T>(*out),
                                     outer, shape.dim(a), inner, exclusive_,
                                     reverse_);
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

// --- L2Loss. ---

template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    using E = EigenElement<T>;
    // Accumulate 2-byte floats in float.
    using A = std::conditional_t<std::is_same_v<E, double>, double, float>;
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    const int64_t n = in.NumElements();
    const E* src = EigenData<T>(in);
    const ThreadPool* pool = ctx->thread_pool();
    const int64_t threads = pool == nullptr ? 1 : pool->num_threads();
    const int64_t chunks =
        WorthParallel(ctx, 1, n / 2 + 1) ? std::min<int64_t>(threads, n) : 1;
    absl::InlinedVector<A, 16> partial(chunks, A(0));
    ParallelForShards(
        ctx, chunks, n / chunks / 2 + 1, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            const int64_t i0 = n * c / chunks;
            const int64_t i1 = n * (c + 1) / chunks;
            Eigen::TensorMap<
                Eigen::Tensor<const E, 1, Eigen::RowMajor, Eigen::DenseIndex>,
                Eigen::Unaligned>
                x(src + i0, i1 - i0);
            Eigen::TensorFixedSize<A, Eigen::Sizes<>, Eigen::RowMajor> sum;
            if constexpr (std::is_same_v<E, A>) {
              sum = x.square().sum();
            } else {
              sum = x.template cast<A>().square().sum();
            }
            partial[c] = sum();
          }
        });
    A total = 0;
    for (A p : partial) total += p;
    *EigenData<T>(*out) = static_cast<E>(total / A(2));
  }
};

// --- Registration. ---

#define DFLOW_REGISTER_REDUCTION(NAME, OP, T)                              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(NAME)                             \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint("Tidx", {DT_INT32, DT_INT64}), \
                        ReductionOp<Reduction::OP>)

#define DFLOW_REGISTER_ALL_REDUCTIONS(T)      \
  DFLOW_REGISTER_REDUCTION("Sum", kSum, T);   \
  DFLOW_REGISTER_REDUCTION("Mean", kMean, T); \
  DFLOW_REGISTER_REDUCTION("Prod", kProd, T)

#define DFLOW_REGISTER_REAL(T)                                        \
  DFLOW_REGISTER_ALL_REDUCTIONS(T);                                   \
  DFLOW_REGISTER_REDUCTION("Max", kMax, T);                           \
  DFLOW_REGISTER_REDUCTION("Min", kMin, T);                           \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder("ArgMax")                                      \
          .Device(kDeviceCpu)                                         \
          .TypeConstraint<T>("T")                                     \
          .TypeConstraint("Tidx", {DT_INT16, DT_INT32, DT_INT64})     \
          .TypeConstraint("output_type",                              \
                          {DT_INT16, DT_UINT16, DT_INT32, DT_INT64}), \
      ArgMaxOp<T>);                                                   \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder("ArgMin")                                      \
          .Device(kDeviceCpu)                                         \
          .TypeConstraint<T>("T")                                     \
          .TypeConstraint("Tidx", {DT_INT32, DT_INT64})               \
          .TypeConstraint("output_type", {DT_INT32, DT_INT64}),       \
      ArgMinOp<T>)

DFLOW_REGISTER_REAL(float);
DFLOW_REGISTER_REAL(double);
DFLOW_REGISTER_REAL(float16);
DFLOW_REGISTER_REAL(bfloat16);
DFLOW_REGISTER_REAL(int8_t);
DFLOW_REGISTER_REAL(int16_t);
DFLOW_REGISTER_REAL(int32_t);
DFLOW_REGISTER_REAL(int64_t);
DFLOW_REGISTER_REAL(uint8_t);
DFLOW_REGISTER_REAL(uint16_t);
DFLOW_REGISTER_REAL(uint32_t);
DFLOW_REGISTER_REAL(uint64_t);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("EuclideanNorm")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T")
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      EuclideanNormOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("EuclideanNorm")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T")
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      EuclideanNormOp<double>);
DFLOW_REGISTER_ALL_REDUCTIONS(complex64);
DFLOW_REGISTER_ALL_REDUCTIONS(complex128);

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ArgMax")
                          .Device(kDeviceCpu)
                          .TypeConstraint<bool>("T")
                          .TypeConstraint("Tidx",
                                          {DT_INT16, DT_INT32, DT_INT64})
                          .TypeConstraint("output_type", {DT_INT16, DT_UINT16,
                                                          DT_INT32, DT_INT64}),
                      ArgMaxOp<bool>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ArgMin")
                          .Device(kDeviceCpu)
                          .TypeConstraint<bool>("T")
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64})
                          .TypeConstraint("output_type", {DT_INT32, DT_INT64}),
                      ArgMinOp<bool>);

#define DFLOW_REGISTER_SCANS(T)                                            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Cumsum")                         \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint("Tidx", {DT_INT32, DT_INT64}), \
                        ScanOp<T, false>);                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Cumprod")                        \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint("Tidx", {DT_INT32, DT_INT64}), \
                        ScanOp<T, true>)
DFLOW_REGISTER_SCANS(float);
DFLOW_REGISTER_SCANS(double);
DFLOW_REGISTER_SCANS(float16);
DFLOW_REGISTER_SCANS(bfloat16);
DFLOW_REGISTER_SCANS(int8_t);
DFLOW_REGISTER_SCANS(int16_t);
DFLOW_REGISTER_SCANS(int32_t);
DFLOW_REGISTER_SCANS(int64_t);
DFLOW_REGISTER_SCANS(uint8_t);
DFLOW_REGISTER_SCANS(uint16_t);
DFLOW_REGISTER_SCANS(uint32_t);
DFLOW_REGISTER_SCANS(uint64_t);
DFLOW_REGISTER_SCANS(complex64);
DFLOW_REGISTER_SCANS(complex128);
#undef DFLOW_REGISTER_SCANS

#define DFLOW_REGISTER_L2LOSS(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("L2Loss").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      L2LossOp<T>)
DFLOW_REGISTER_L2LOSS(float);
DFLOW_REGISTER_L2LOSS(double);
DFLOW_REGISTER_L2LOSS(float16);
DFLOW_REGISTER_L2LOSS(bfloat16);

#undef DFLOW_REGISTER_L2LOSS
#undef DFLOW_REGISTER_REAL
#undef DFLOW_REGISTER_ALL_REDUCTIONS
#undef DFLOW_REGISTER_REDUCTION

}  // namespace
}  // namespace dflow
