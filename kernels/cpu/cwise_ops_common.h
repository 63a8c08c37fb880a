// Machinery behind the element-wise CPU kernels (cwise_ops_*.cc): the
// functors that turn Eigen operands into an expression, the broadcasting
// evaluator, and the BinaryOp / UnaryOp kernel templates.
//
// A functor is a struct with:
//   kWrapsIntegers  compute signed integers as their unsigned counterpart,
//                   so overflow wraps (two's complement, as TensorFlow's
//                   C++ does) without undefined behaviour;
//   kReturnsBool    the output is bool (comparisons);
//   kCost           rough cycles per element (decides threading);
//   Apply(x[, y])   the Eigen expression, for any operand expressions;
//   Check<T>(x, y)  optional input validation (integer Pow).
//
// Evaluation never uses Eigen's ThreadPoolDevice (see kernel_util.h): work
// is split with ParallelForShards (element loops: ParallelForElements,
// shards at packet boundaries) and each shard is an Eigen expression
// evaluated on the default device. Broadcasting works on the collapsed
// shapes of BCast, row by row (see BinaryBroadcaster), so equal shapes,
// scalars and true broadcasts all reduce to three flat expressions.
#ifndef DFLOW_KERNELS_CPU_CWISE_OPS_COMMON_H_
#define DFLOW_KERNELS_CPU_CWISE_OPS_COMMON_H_

#include <cstdint>
#include <type_traits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace cwise {

// --- Element types. ---

template <typename T>
struct WrapType {
  using type = T;
};
template <>
struct WrapType<int32_t> {
  using type = uint32_t;
};
template <>
struct WrapType<int64_t> {
  using type = uint64_t;
};

// What functor F computes elements of dflow type T as, and what it writes.
template <typename F, typename T>
using InType = std::conditional_t<F::kWrapsIntegers,
                                  typename WrapType<EigenElement<T>>::type,
                                  EigenElement<T>>;
template <typename F, typename T>
using OutType = std::conditional_t<F::kReturnsBool, bool, InType<F, T>>;

// A tensor's elements as the element type E (same size and representation
// as its storage type T).
template <typename E, typename T>
const E* DataAs(const Tensor& t) {
  static_assert(sizeof(E) == sizeof(StorageElement<T>), "size mismatch");
  return reinterpret_cast<const E*>(t.data<StorageElement<T>>());
}
template <typename E, typename T>
E* DataAs(Tensor* t) {
  static_assert(sizeof(E) == sizeof(StorageElement<T>), "size mismatch");
  return reinterpret_cast<E*>(t->data<StorageElement<T>>());
}

template <typename E, int N>
using InMap = Eigen::TensorMap<
    Eigen::Tensor<const E, N, Eigen::RowMajor, Eigen::DenseIndex>,
    Eigen::Unaligned>;
template <typename E, int N>
using OutMap =
    Eigen::TensorMap<Eigen::Tensor<E, N, Eigen::RowMajor, Eigen::DenseIndex>,
                     Eigen::Unaligned>;

// --- Functors. ---

struct FunctorBase {
  static constexpr bool kWrapsIntegers = false;
  static constexpr bool kReturnsBool = false;
  static constexpr int64_t kCost = 1;
  template <typename T>
  static absl::Status Check(const Tensor&, const Tensor&) {
    return absl::OkStatus();
  }
};

struct AddFunctor : FunctorBase {
  static constexpr bool kWrapsIntegers = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x + y;
  }
};

struct SubFunctor : FunctorBase {
  static constexpr bool kWrapsIntegers = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x - y;
  }
};

struct MulFunctor : FunctorBase {
  static constexpr bool kWrapsIntegers = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x * y;
  }
};

struct DivFunctor : FunctorBase {
  static constexpr int64_t kCost = 4;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x / y;
  }
};

// NaN wins, as in TensorFlow's Maximum/Minimum and NumPy's maximum/minimum.
struct MaximumFunctor : FunctorBase {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x.template cwiseMax<Eigen::PropagateNaN>(y);
  }
};

struct MinimumFunctor : FunctorBase {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x.template cwiseMin<Eigen::PropagateNaN>(y);
  }
};

struct SquaredDifferenceFunctor : FunctorBase {
  static constexpr bool kWrapsIntegers = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return (x - y).square();
  }
};

// x^y for integers by repeated squaring in unsigned arithmetic (wraps).
// Exponents are checked non-negative before evaluation; a negative one
// gives 0 here rather than undefined behaviour.
template <typename T>
struct IntPowOp {
  T operator()(const T& base, const T& exponent) const {
    using U = std::make_unsigned_t<T>;
    if (exponent < 0) return T(0);
    U result = 1;
    U b = static_cast<U>(base);
    for (U e = static_cast<U>(exponent); e != 0; e >>= 1) {
      if (e & 1) result = static_cast<U>(result * b);
      b = static_cast<U>(b * b);
    }
    return static_cast<T>(result);
  }
};

struct PowFunctor : FunctorBase {
  static constexpr int64_t kCost = 40;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    if constexpr (std::is_integral_v<S>) {
      return x.binaryExpr(y, IntPowOp<S>());
    } else {
      return x.binaryExpr(y, Eigen::internal::scalar_pow_op<S, S>());
    }
  }
  template <typename T>
  static absl::Status Check(const Tensor&, const Tensor& y) {
    if constexpr (std::is_integral_v<T>) {
      const T* e = y.data<T>();
      for (int64_t i = 0; i < y.NumElements(); ++i) {
        if (e[i] < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Integers to negative integer powers are not allowed: exponent ",
              "y[", i, "] is ", e[i], "; cast to a floating type first"));
        }
      }
    }
    return absl::OkStatus();
  }
};

struct LessFunctor : FunctorBase {
  static constexpr bool kReturnsBool = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x < y;
  }
};

struct GreaterFunctor : FunctorBase {
  static constexpr bool kReturnsBool = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x > y;
  }
};

struct EqualFunctor : FunctorBase {
  static constexpr bool kReturnsBool = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x == y;
  }
};

struct NotEqualFunctor : FunctorBase {
  static constexpr bool kReturnsBool = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x != y;
  }
};

struct LessEqualFunctor : FunctorBase {
  static constexpr bool kReturnsBool = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x <= y;
  }
};

struct GreaterEqualFunctor : FunctorBase {
  static constexpr bool kReturnsBool = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x >= y;
  }
};

// --- Broadcasting evaluation. ---

// out[i] = F(x[i], y[i]) for i in [0, n); a side that repeats contributes
// its one element (x[0] or y[0]) to every i.
template <typename F, typename In, typename Out>
void FlatBinary(OpKernelContext* ctx, const In* x, const In* y, Out* out,
                int64_t n, bool x_repeats, bool y_repeats, bool parallel) {
  auto body = [=](int64_t begin, int64_t end) {
    const int64_t len = end - begin;
    OutMap<Out, 1> o(out + begin, len);
    if (x_repeats) {
      InMap<In, 1> ym(y + begin, len);
      o = F::Apply(ym.constant(x[0]), ym);
    } else if (y_repeats) {
      InMap<In, 1> xm(x + begin, len);
      o = F::Apply(xm, xm.constant(y[0]));
    } else {
      InMap<In, 1> xm(x + begin, len);
      InMap<In, 1> ym(y + begin, len);
      o = F::Apply(xm, ym);
    }
  };
  if (parallel) {
    ParallelForElements(ctx, n, F::kCost, body);
  } else {
    body(0, n);
  }
}

// Computes out = F(x, y) for the collapsed broadcast `b` (x, y and out as
// computed element types), threading by F::kCost.
//
// The output is seen as rows of its last collapsed dimension. Within a row
// each operand is either contiguous or one repeated element, so every row
// is one flat, vectorized Eigen expression (the same three expressions as
// equal shapes and scalars). Measured on this kind of machine, this beat
// Eigen's broadcasting evaluator (tiled or not) for every shape tried, down
// to rows of 2 elements, and compiles 4-5x faster.
template <typename F, typename In, typename Out>
class BinaryBroadcaster {
 public:
  BinaryBroadcaster(OpKernelContext* ctx, const BCast& b, const In* x,
                    const In* y, Out* out)
      : ctx_(ctx), b_(b), x_(x), y_(y), out_(out) {
    const int rank = b.rank();
    x_strides_.resize(rank);
    y_strides_.resize(rank);
    int64_t xs = 1, ys = 1;
    for (int d = rank - 1; d >= 0; --d) {
      x_strides_[d] = b.x_reshape[d] == 1 ? 0 : xs;
      y_strides_[d] = b.y_reshape[d] == 1 ? 0 : ys;
      xs *= b.x_reshape[d];
      ys *= b.y_reshape[d];
    }
    cols_ = b.result[rank - 1];
    rows_ = 1;
    for (int d = 0; d + 1 < rank; ++d) rows_ *= b.result[d];
    x_repeats_ = b.x_reshape[rank - 1] == 1;
    y_repeats_ = b.y_reshape[rank - 1] == 1;
  }

  void Run() {
    const int64_t n = rows_ * cols_;
    if (n == 0) return;
    const bool parallel = WorthParallel(ctx_, n, F::kCost);
    const int threads =
        ctx_->thread_pool() != nullptr ? ctx_->thread_pool()->num_threads() : 1;
    if (rows_ == 1 || (parallel && rows_ < 4 * threads)) {
      // Few long rows: split inside each row instead of across rows.
      int64_t xo = 0, yo = 0;
      RowWalker walk(*this, 0, &xo, &yo);
      for (int64_t r = 0; r < rows_; ++r, walk.Next(&xo, &yo)) {
        Row(xo, yo, r * cols_, parallel);
      }
      return;
    }
    ParallelForShards(ctx_, rows_, cols_ * F::kCost,
                      [this](int64_t r0, int64_t r1) {
                        int64_t xo = 0, yo = 0;
                        RowWalker walk(*this, r0, &xo, &yo);
                        for (int64_t r = r0; r < r1; ++r, walk.Next(&xo, &yo)) {
                          Row(xo, yo, r * cols_, /*parallel=*/false);
                        }
                      });
  }

 private:
  // Offsets of x and y for consecutive rows: an odometer over the collapsed
  // dimensions before the last.
  class RowWalker {
   public:
    RowWalker(const BinaryBroadcaster& bb, int64_t row, int64_t* xo,
              int64_t* yo)
        : bb_(bb), index_(bb.b_.rank() - 1) {
      *xo = *yo = 0;
      for (int d = bb.b_.rank() - 2; d >= 0; --d) {
        index_[d] = row % bb.b_.result[d];
        row /= bb.b_.result[d];
        *xo += index_[d] * bb.x_strides_[d];
        *yo += index_[d] * bb.y_strides_[d];
      }
    }
    void Next(int64_t* xo, int64_t* yo) {
      for (int d = static_cast<int>(index_.size()) - 1; d >= 0; --d) {
        *xo += bb_.x_strides_[d];
        *yo += bb_.y_strides_[d];
        if (++index_[d] < bb_.b_.result[d]) return;
        *xo -= bb_.x_strides_[d] * bb_.b_.result[d];
        *yo -= bb_.y_strides_[d] * bb_.b_.result[d];
        index_[d] = 0;
      }
    }

   private:
    const BinaryBroadcaster& bb_;
    BCast::Dims index_;
  };

  // One row of cols_ elements.
  void Row(int64_t xo, int64_t yo, int64_t oo, bool parallel) {
    FlatBinary<F>(ctx_, x_ + xo, y_ + yo, out_ + oo, cols_, x_repeats_,
                  y_repeats_, parallel);
  }

  OpKernelContext* const ctx_;
  const BCast& b_;
  const In* const x_;
  const In* const y_;
  Out* const out_;
  BCast::Dims x_strides_, y_strides_;
  int64_t rows_ = 1;
  int64_t cols_ = 1;
  bool x_repeats_ = false;
  bool y_repeats_ = false;
};

// out[i] = f(x[i'], y[i'']) over a collapsed broadcast with a plain loop,
// for element types Eigen does not compute with (strings) or reads that
// need care (bool bytes).
template <typename Out, typename X, typename Y, typename Fn>
void BroadcastLoop(OpKernelContext* ctx, const BCast& b, const X* x, const Y* y,
                   Out* out, int64_t cost, const Fn& f) {
  const int rank = b.rank();
  const int64_t cols = b.result[rank - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= b.result[d];
  if (rows == 0 || cols == 0) return;
  BCast::Dims xs(rank), ys(rank);
  int64_t xn = 1, yn = 1;
  for (int d = rank - 1; d >= 0; --d) {
    xs[d] = b.x_reshape[d] == 1 ? 0 : xn;
    ys[d] = b.y_reshape[d] == 1 ? 0 : yn;
    xn *= b.x_reshape[d];
    yn *= b.y_reshape[d];
  }
  ParallelForShards(ctx, rows, cols * cost, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t xo = 0, yo = 0;
      int64_t rest = r;
      for (int d = rank - 2; d >= 0; --d) {
        const int64_t i = rest % b.result[d];
        rest /= b.result[d];
        xo += i * xs[d];
        yo += i * ys[d];
      }
      const int64_t xi = xs[rank - 1];
      const int64_t yi = ys[rank - 1];
      Out* o = out + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        o[c] = f(x[xo + c * xi], y[yo + c * yi]);
      }
    }
  });
}

// --- Kernels. ---

// The output shape of a binary op and how to compute it: equal shapes and
// a one-element operand (of rank no higher than the other's) skip
// BroadcastShapes, which matters for small tensors.
class BinaryShapes {
 public:
  BinaryShapes() = default;
  // output_shape() may point into this object.
  BinaryShapes(const BinaryShapes&) = delete;
  BinaryShapes& operator=(const BinaryShapes&) = delete;

  absl::Status Init(const TensorShape& x, const TensorShape& y) {
    if (x == y) {
      kind_ = Kind::kSame;
      output_ = &x;
    } else if (y.num_elements() == 1 && y.rank() <= x.rank()) {
      kind_ = Kind::kYRepeats;
      output_ = &x;
    } else if (x.num_elements() == 1 && x.rank() <= y.rank()) {
      kind_ = Kind::kXRepeats;
      output_ = &y;
    } else {
      absl::StatusOr<BCast> b = BroadcastShapes(x, y);
      if (!b.ok()) return b.status();
      bcast_ = *std::move(b);
      kind_ = Kind::kBroadcast;
      output_ = &bcast_.output_shape;
    }
    return absl::OkStatus();
  }

  // Valid while this object and the shapes passed to Init live.
  const TensorShape& output_shape() const { return *output_; }

  // out = F(x, y), all of output_shape().num_elements() elements.
  template <typename F, typename In, typename Out>
  void Compute(OpKernelContext* ctx, const In* x, const In* y, Out* out,
               int64_t n) const {
    if (n == 0) return;
    if (kind_ == Kind::kBroadcast) {
      BinaryBroadcaster<F, In, Out>(ctx, bcast_, x, y, out).Run();
    } else {
      FlatBinary<F>(ctx, x, y, out, n, kind_ == Kind::kXRepeats,
                    kind_ == Kind::kYRepeats, WorthParallel(ctx, n, F::kCost));
    }
  }

 private:
  enum class Kind { kSame, kXRepeats, kYRepeats, kBroadcast };
  Kind kind_ = Kind::kSame;
  const TensorShape* output_ = nullptr;
  BCast bcast_;
};

// z = F(x, y) with broadcasting, for inputs of dflow type T.
template <typename F, typename T>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BinaryShapes shapes;
    OP_REQUIRES_OK(ctx, shapes.Init(x.shape(), y.shape()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shapes.output_shape(), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, F::template Check<T>(x, y));
    using In = InType<F, T>;
    using Out = OutType<F, T>;
    shapes.Compute<F>(ctx, DataAs<In, T>(x), DataAs<In, T>(y),
                      DataAs<Out, OutStorage>(out), out->NumElements());
  }

 private:
  using OutStorage = std::conditional_t<F::kReturnsBool, bool, T>;
};

// y = F(x), element-wise, for inputs of dflow type T.
template <typename F, typename T>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    using E = InType<F, T>;
    const E* in = DataAs<E, T>(x);
    E* o = DataAs<E, T>(out);
    ParallelForElements(ctx, x.NumElements(), F::kCost,
                        [in, o](int64_t begin, int64_t end) {
                          InMap<E, 1> xm(in + begin, end - begin);
                          OutMap<E, 1> om(o + begin, end - begin);
                          om = F::Apply(xm);
                        });
  }
};

}  // namespace cwise
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_CWISE_OPS_COMMON_H_
