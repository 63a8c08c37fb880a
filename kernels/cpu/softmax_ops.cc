// Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits and
// SparseSoftmaxCrossEntropyWithLogits on the CPU, over the last axis.
//
// All are numerically stable: the row maximum is subtracted before exp, so
// large logits do not overflow. Rows are processed in blocks with Eigen's
// vectorized exp/log on DefaultDevice inside ParallelForShards (see
// kernel_util.h). half and bfloat16 are widened to float, computed, and
// rounded back.
//
// SoftmaxCrossEntropyWithLogits broadcasts features and labels as
// TensorFlow 2.x does: the two shapes must broadcast (NumPy rules) to a
// rank-2 [batch, classes] shape.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Rows per block; the per-row scratch lives on the stack.
constexpr int64_t kRowBlock = 128;
// Cycles per element, roughly (an exp and a few flops, vectorized; 8 were
// measured for Softmax of [128,1000] on one core).
constexpr int64_t kCostPerElement = 10;

using Index = Eigen::DenseIndex;
template <typename A>
using Mat = Eigen::TensorMap<Eigen::Tensor<A, 2, Eigen::RowMajor, Index>,
                             Eigen::Unaligned>;
template <typename A>
using ConstMat =
    Eigen::TensorMap<Eigen::Tensor<const A, 2, Eigen::RowMajor, Index>,
                     Eigen::Unaligned>;
template <typename A>
using Vec = Eigen::TensorMap<Eigen::Tensor<A, 1, Eigen::RowMajor, Index>,
                             Eigen::Unaligned>;
template <typename A>
using ConstVec =
    Eigen::TensorMap<Eigen::Tensor<const A, 1, Eigen::RowMajor, Index>,
                     Eigen::Unaligned>;

// The type computed in: float for 2-byte floats.
template <typename T>
using ComputeType =
    std::conditional_t<std::is_same_v<T, double>, double, float>;

// Broadcast helpers for one block of `rows` rows of `c` classes.
struct BlockDims {
  BlockDims(int64_t rows, int64_t c)
      : column(rows, 1), repeat{1, static_cast<Index>(c)} {}
  Eigen::DSizes<Index, 2> column;
  Eigen::array<Index, 2> repeat;
  Eigen::array<Index, 1> along{1};
};

// Row maxima (kMax) or sums of a [rows, c] block: long rows as 1-D
// Eigen full reductions (vectorized), short ones in scalar loops. Eigen's
// 2-D partial reductions ran unvectorized here, ~2.4 cycles per float (see
// kernel_util_reduce.cc).
constexpr int64_t kMinEigenRow = 64;

template <bool kMax, typename A>
void RowReduce(const A* x, int64_t rows, int64_t c, A* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const A* row = x + r * c;
    if (c >= kMinEigenRow) {
      ConstVec<A> v(row, c);
      Eigen::TensorFixedSize<A, Eigen::Sizes<>, Eigen::RowMajor, Index> res;
      if constexpr (kMax) {
        res = v.maximum();
      } else {
        res = v.sum();
      }
      out[r] = res();
      continue;
    }
    A a[4];
    for (A& v : a) {
      v = kMax ? -std::numeric_limits<A>::infinity() : A(0);
    }
    int64_t j = 0;
    for (; j + 4 <= c; j += 4) {
      for (int k = 0; k < 4; ++k) {
        a[k] = kMax ? std::max(a[k], row[j + k]) : a[k] + row[j + k];
      }
    }
    for (; j < c; ++j) a[0] = kMax ? std::max(a[0], row[j]) : a[0] + row[j];
    out[r] = kMax ? std::max(std::max(a[0], a[1]), std::max(a[2], a[3]))
                  : (a[0] + a[1]) + (a[2] + a[3]);
  }
}

// y = exp(x - max) for each row; sum[r] = the row sums of y. Returns the
// row maxima in max[]. x and y must not alias.
template <typename A>
void ShiftedExp(const A* x, A* y, int64_t rows, int64_t c, A* max, A* sum) {
  const BlockDims d(rows, c);
  RowReduce<true>(x, rows, c, max);
  Vec<A> m(max, rows);
  Mat<A>(y, rows, c) =
      (ConstMat<A>(x, rows, c) - m.reshape(d.column).broadcast(d.repeat)).exp();
  RowReduce<false>(y, rows, c, sum);
}

// y = softmax (or log-softmax) of each row of x (no aliasing).
template <typename A, bool kLog>
void SoftmaxBlock(const A* x, A* y, int64_t rows, int64_t c) {
  A max[kRowBlock];
  A sum[kRowBlock];
  const BlockDims d(rows, c);
  ShiftedExp(x, y, rows, c, max, sum);
  Mat<A> out(y, rows, c);
  Vec<A> v(sum, rows);
  if constexpr (kLog) {
    // log softmax = (x - max) - log(sum): shifting first keeps large
    // logits from cancelling against max + log(sum).
    for (int64_t r = 0; r < rows; ++r) sum[r] = Eigen::numext::log(sum[r]);
    Vec<A> m(max, rows);
    out = (ConstMat<A>(x, rows, c) - m.reshape(d.column).broadcast(d.repeat)) -
          v.reshape(d.column).broadcast(d.repeat);
  } else {
    for (int64_t r = 0; r < rows; ++r) sum[r] = A(1) / sum[r];
    out = out * v.reshape(d.column).broadcast(d.repeat);
  }
}

// sum_j labels[j] * (log_sum - (logits[j] - max)): one row's loss, with
// the shifted logits (<= 0) kept apart from log_sum so large logits do not
// cancel.
template <typename A>
A RowLoss(const A* logits, const A* labels, int64_t c, A max, A log_sum) {
  if (c >= kMinEigenRow) {
    ConstVec<A> lg(logits, c);
    ConstVec<A> lb(labels, c);
    Eigen::TensorFixedSize<A, Eigen::Sizes<>, Eigen::RowMajor, Index> res;
    res = (lb * (lb.constant(log_sum) - (lg - lg.constant(max)))).sum();
    return res();
  }
  A loss = 0;
  for (int64_t j = 0; j < c; ++j) {
    loss += labels[j] * (log_sum - (logits[j] - max));
  }
  return loss;
}

// loss[r] = sum_j labels[r,j] * (log(sum_k exp(s[r,k])) - s[r,j]) and
// backprop = softmax(logits) - labels, with s = logits - max(logits).
template <typename A>
void XentBlock(const A* logits, const A* labels, int64_t rows, int64_t c,
               A* loss, A* backprop) {
  A max[kRowBlock];
  A sum[kRowBlock];
  const BlockDims d(rows, c);
  ShiftedExp(logits, backprop, rows, c, max, sum);
  for (int64_t r = 0; r < rows; ++r) {
    loss[r] = RowLoss(logits + r * c, labels + r * c, c, max[r],
                      Eigen::numext::log(sum[r]));
    sum[r] = A(1) / sum[r];
  }
  Mat<A> bp(backprop, rows, c);
  Vec<A> inv(sum, rows);
  bp = bp * inv.reshape(d.column).broadcast(d.repeat) -
       ConstMat<A>(labels, rows, c);
}

// The sparse form: labels[r] is the class index (validated by the caller).
template <typename A, typename L>
void SparseXentBlock(const A* logits, const L* labels, int64_t rows, int64_t c,
                     A* loss, A* backprop) {
  A max[kRowBlock];
  A sum[kRowBlock];
  const BlockDims d(rows, c);
  ShiftedExp(logits, backprop, rows, c, max, sum);
  for (int64_t r = 0; r < rows; ++r) {
    loss[r] = Eigen::numext::log(sum[r]) - (logits[r * c + labels[r]] - max[r]);
    sum[r] = A(1) / sum[r];
  }
  Mat<A> bp(backprop, rows, c);
  Vec<A> inv(sum, rows);
  bp = bp * inv.reshape(d.column).broadcast(d.repeat);
  for (int64_t r = 0; r < rows; ++r) backprop[r * c + labels[r]] -= A(1);
}

// Runs block(r0, n) over [0, rows), sharded by rows, in blocks of at most
// kRowBlock rows.
template <typename Fn>
void ForRowBlocks(OpKernelContext* ctx, int64_t rows, int64_t c, Fn&& block) {
  ParallelForShards(ctx, rows, c * kCostPerElement + 1,
                    [&](int64_t r0, int64_t r1) {
                      for (int64_t r = r0; r < r1; r += kRowBlock) {
                        block(r, std::min(kRowBlock, r1 - r));
                      }
                    });
}

// 2-byte floats to float and back, sharded.
template <typename T>
void Widen(OpKernelContext* ctx, const Tensor& t, float* out) {
  const auto* src = EigenData<T>(t);
  ParallelForShards(ctx, t.NumElements(), 2, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = static_cast<float>(src[i]);
  });
}
template <typename T>
void Narrow(OpKernelContext* ctx, const float* in, Tensor* t) {
  auto* dst = EigenData<T>(*t);
  using E = EigenElement<T>;
  ParallelForShards(ctx, t->NumElements(), 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dst[i] = static_cast<E>(in[i]);
  });
}

// A scratch tensor of `n` elements of type A.
template <typename A>
absl::Status Scratch(OpKernelContext* ctx, int64_t n, Tensor* t) {
  return ctx->allocate_temp(DataTypeToEnum<A>::value, TensorShape({n}), t);
}

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    using A = ComputeType<T>;
    const Tensor& logits = ctx->input(0);
    const TensorShape& shape = logits.shape();
    OP_REQUIRES(
        ctx, shape.rank() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "logits must have >= 1 dimension, got ", shape.ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = logits.NumElements();
    if (n == 0) return;
    const int64_t c = shape.dim(shape.rank() - 1);
    const int64_t rows = n / c;
    if constexpr (std::is_same_v<T, A>) {
      const A* x = logits.data<A>();
      A* y = out->data<A>();
      ForRowBlocks(ctx, rows, c, [&](int64_t r0, int64_t nr) {
        SoftmaxBlock<A, kLog>(x + r0 * c, y + r0 * c, nr, c);
      });
    } else {
      Tensor in_t, out_t;
      OP_REQUIRES_OK(ctx, Scratch<A>(ctx, n, &in_t));
      OP_REQUIRES_OK(ctx, Scratch<A>(ctx, n, &out_t));
      A* x = in_t.data<A>();
      A* y = out_t.data<A>();
      Widen<T>(ctx, logits, x);
      ForRowBlocks(ctx, rows, c, [&](int64_t r0, int64_t nr) {
        SoftmaxBlock<A, kLog>(x + r0 * c, y + r0 * c, nr, c);
      });
      Narrow<T>(ctx, y, out);
    }
  }
};

// `t` (shape `s`, rank <= 2) broadcast to [rows, c] as type A.
template <typename T, typename A>
void Broadcast2D(OpKernelContext* ctx, const Tensor& t, int64_t rows, int64_t c,
                 A* out) {
  const TensorShape& s = t.shape();
  const int64_t d0 = s.rank() == 2 ? s.dim(0) : 1;
  const int64_t d1 = s.rank() >= 1 ? s.dim(s.rank() - 1) : 1;
  const int64_t row_stride = d0 == 1 ? 0 : d1;
  const int64_t col_stride = d1 == 1 ? 0 : 1;
  const auto* src = EigenData<T>(t);
  ParallelForShards(ctx, rows, c * 2, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t j = 0; j < c; ++j) {
        out[r * c + j] = static_cast<A>(src[r * row_stride + j * col_stride]);
      }
    }
  });
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    using A = ComputeType<T>;
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    TensorShape shape = logits.shape();
    const bool same = logits.shape() == labels.shape();
    if (!same) {
      absl::StatusOr<BCast> b = BroadcastShapes(logits.shape(), labels.shape());
      OP_REQUIRES(ctx, b.ok(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "logits and labels must be broadcastable: logits_size=",
                      logits.shape().ToString(),
                      " labels_size=", labels.shape().ToString())));
      shape = b->output_shape;
    }
    OP_REQUIRES(ctx, shape.rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "logits and labels must be either 2-dimensional, or "
                    "broadcasted to be 2-dimensional: logits_size=",
                    logits.shape().ToString(),
                    " labels_size=", labels.shape().ToString())));
    const int64_t rows = shape.dim(0);
    const int64_t c = shape.dim(1);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &backprop));
    if (rows == 0) return;
    if (c == 0) {
      // No classes: every loss is an empty sum.
      std::fill_n(EigenData<T>(*loss), rows, EigenElement<T>(0));
      return;
    }
    if constexpr (std::is_same_v<T, A>) {
      if (same) {
        const A* lg = logits.data<A>();
        const A* lb = labels.data<A>();
        A* l = loss->data<A>();
        A* bp = backprop->data<A>();
        ForRowBlocks(ctx, rows, c, [&](int64_t r0, int64_t nr) {
          XentBlock<A>(lg + r0 * c, lb + r0 * c, nr, c, l + r0, bp + r0 * c);
        });
        return;
      }
    }
    // Broadcast (and widen) both inputs into scratch; compute into the
    // outputs, or into scratch that is then rounded into them.
    Tensor lg_t, lb_t, l_t, bp_t;
    OP_REQUIRES_OK(ctx, Scratch<A>(ctx, rows * c, &lg_t));
    OP_REQUIRES_OK(ctx, Scratch<A>(ctx, rows * c, &lb_t));
    A* lg = lg_t.data<A>();
    A* lb = lb_t.data<A>();
    Broadcast2D<T, A>(ctx, logits, rows, c, lg);
    Broadcast2D<T, A>(ctx, labels, rows, c, lb);
    A* l = nullptr;
    A* bp = nullptr;
    if constexpr (std::is_same_v<T, A>) {
      l = loss->data<A>();
      bp = backprop->data<A>();
    } else {
      OP_REQUIRES_OK(ctx, Scratch<A>(ctx, rows, &l_t));
      OP_REQUIRES_OK(ctx, Scratch<A>(ctx, rows * c, &bp_t));
      l = l_t.data<A>();
      bp = bp_t.data<A>();
    }
    ForRowBlocks(ctx, rows, c, [&](int64_t r0, int64_t nr) {
      XentBlock<A>(lg + r0 * c, lb + r0 * c, nr, c, l + r0, bp + r0 * c);
    });
    if constexpr (!std::is_same_v<T, A>) {
      Narrow<T>(ctx, l, loss);
      Narrow<T>(ctx, bp, backprop);
    }
  }
};

// "1 7 2" for the first few labels, "..." after them.
template <typename L>
std::string SummarizeLabels(const L* labels, int64_t n) {
  constexpr int64_t kMax = 20;
  std::string out;
  for (int64_t i = 0; i < std::min(n, kMax); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : " ", labels[i]);
  }
  if (n > kMax) absl::StrAppend(&out, " ...");
  return out;
}

template <typename T>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& labels = ctx->input(1);
    if (labels.dtype() == DT_INT32) {
      ComputeWith<int32_t>(ctx, labels);
    } else if (labels.dtype() == DT_INT64) {
      ComputeWith<int64_t>(ctx, labels);
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("labels must be int32 or int64, not ",
                       DataTypeName(labels.dtype()))));
    }
  }

 private:
  template <typename L>
  void ComputeWith(OpKernelContext* ctx, const Tensor& labels) {
    using A = ComputeType<T>;
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(
        ctx, logits.shape().rank() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "logits must be 2-D, but got shape ", logits.shape().ToString())));
    OP_REQUIRES(
        ctx, labels.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "labels must be 1-D, but got shape ", labels.shape().ToString())));
    const int64_t rows = logits.shape().dim(0);
    const int64_t c = logits.shape().dim(1);
    OP_REQUIRES(ctx, labels.shape().dim(0) == rows,
                absl::InvalidArgumentError(absl::StrCat(
                    "logits and labels must have the same first dimension, "
                    "got logits shape ",
                    logits.shape().ToString(), " and labels shape ",
                    labels.shape().ToString())));
    OP_REQUIRES(ctx, rows == 0 || c > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Must have at least one class, but got logits shape ",
                    logits.shape().ToString())));
    const L* lab = labels.data<L>();
    for (int64_t r = 0; r < rows; ++r) {
      OP_REQUIRES(ctx, lab[r] >= 0 && lab[r] < c,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Received a label value of ", lab[r],
                      " which is outside the valid range of [0, ", c,
                      ").  Label values: ", SummarizeLabels(lab, rows))));
    }
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, logits.shape(), &backprop));
    if (rows == 0) return;
    if constexpr (std::is_same_v<T, A>) {
      const A* lg = logits.data<A>();
      A* l = loss->data<A>();
      A* bp = backprop->data<A>();
      ForRowBlocks(ctx, rows, c, [&](int64_t r0, int64_t nr) {
        SparseXentBlock<A, L>(lg + r0 * c, lab + r0, nr, c, l + r0,
                              bp + r0 * c);
      });
    } else {
      Tensor lg_t, l_t, bp_t;
      OP_REQUIRES_OK(ctx, Scratch<A>(ctx, rows * c, &lg_t));
      OP_REQUIRES_OK(ctx, Scratch<A>(ctx, rows, &l_t));
      OP_REQUIRES_OK(ctx, Scratch<A>(ctx, rows * c, &bp_t));
      A* lg = lg_t.data<A>();
      A* l = l_t.data<A>();
      A* bp = bp_t.data<A>();
      Widen<T>(ctx, logits, lg);
      ForRowBlocks(ctx, rows, c, [&](int64_t r0, int64_t nr) {
        SparseXentBlock<A, L>(lg + r0 * c, lab + r0, nr, c, l + r0,
                              bp + r0 * c);
      });
      Narrow<T>(ctx, l, loss);
      Narrow<T>(ctx, bp, backprop);
    }
  }
};

#define DFLOW_REGISTER_SOFTMAX(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("Softmax").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      SoftmaxOp<T, false>);                                                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("LogSoftmax")                       \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        SoftmaxOp<T, true>);                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SoftmaxCrossEntropyWithLogits")    \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        SoftmaxXentOp<T>);                                   \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")                \
          .Device(kDeviceCpu)                                                \
          .TypeConstraint<T>("T")                                            \
          .TypeConstraint("Tlabels", {DT_INT32, DT_INT64}),                  \
      SparseSoftmaxXentOp<T>)

DFLOW_REGISTER_SOFTMAX(float);
DFLOW_REGISTER_SOFTMAX(double);
DFLOW_REGISTER_SOFTMAX(float16);
DFLOW_REGISTER_SOFTMAX(bfloat16);

#undef DFLOW_REGISTER_SOFTMAX

}  // namespace
}  // namespace dflow
