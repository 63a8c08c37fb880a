// BatchMatMul, BatchMatMulV2 and BatchMatMulV3 on the CPU: for each batch
// index, output[b] = op(x[b]) * op(y[b]), where op transposes the last two
// dimensions when adj_x / adj_y is set (the adjoint of a real matrix).
// BatchMatMul needs equal batch dimensions; V2 and V3 broadcast them (NumPy
// rules, a missing leading dimension counts as 1). Each product is one
// Gemm (kernel_util_blas.h): large products split themselves over the
// pool; many small ones are split by batch, each Gemm on one thread, which
// gives the same bits (Gemm's float rows do not depend on the split).
// float, double, complex64 and complex128 (V3: Ta = Tb = Tout); a complex
// adjoint conjugates as well as transposes (into a copy of the input).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Products of at least this many multiply-adds run one at a time, each
// split by Gemm; smaller ones are split by batch.
constexpr int64_t kLargeProduct = int64_t{1} << 20;

template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

// The conjugates of t's elements, in `storage`.
template <typename T>
const T* Conjugated(const Tensor& t, std::vector<T>* storage) {
  const T* p = t.data<T>();
  storage->resize(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) (*storage)[i] = std::conj(p[i]);
  return storage->data();
}

template <typename T>
class BatchMatMulOp : public OpKernel {
 public:
  BatchMatMulOp(OpKernelConstruction* ctx, bool broadcast)
      : OpKernel(ctx), broadcast_(broadcast) {
    ctx->SetStatus(ctx->GetAttr("adj_x", &adj_x_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const TensorShape& xs = x.shape();
    const TensorShape& ys = y.shape();
    OP_REQUIRES(ctx, xs.rank() >= 2,
                absl::InvalidArgumentError(
                    absl::StrCat("In[0] ndims must be >= 2: ", xs.rank(),
                                 " (shape ", xs.ToString(), ")")));
    OP_REQUIRES(ctx, ys.rank() >= 2,
                absl::InvalidArgumentError(
                    absl::StrCat("In[1] ndims must be >= 2: ", ys.rank(),
                                 " (shape ", ys.ToString(), ")")));
    const int xr = xs.rank(), yr = ys.rank();
    const int64_t x_rows = xs.dim(xr - 2), x_cols = xs.dim(xr - 1);
    const int64_t y_rows = ys.dim(yr - 2), y_cols = ys.dim(yr - 1);
    const int64_t m = adj_x_ ? x_cols : x_rows;
    const int64_t k = adj_x_ ? x_rows : x_cols;
    const int64_t yk = adj_y_ ? y_cols : y_rows;
    const int64_t n = adj_y_ ? y_rows : y_cols;
    OP_REQUIRES(
        ctx, k == yk,
        absl::InvalidArgumentError(absl::StrCat(
            "Matrix size-incompatible: In[0]: ", xs.ToString(),
            ", In[1]: ", ys.ToString(), " (adj_x=", adj_x_ ? "true" : "false",
            ", adj_y=", adj_y_ ? "true" : "false", ": inner dimensions ", k,
            " vs. ", yk, ")")));

    // The output's batch dimensions and each input's stride (in matrices)
    // along them (0 where the input is broadcast).
    const int rank = std::max(xr, yr) - 2;
    if (!broadcast_) {
      bool same = xr == yr;
      for (int i = 0; same && i < rank; ++i) same = xs.dim(i) == ys.dim(i);
      OP_REQUIRES(ctx, same,
                  absl::InvalidArgumentError(absl::StrCat(
                      "BatchMatMul needs equal batch dimensions, got In[0]: ",
                      xs.ToString(), " and In[1]: ", ys.ToString(),
                      " (BatchMatMulV2 broadcasts them)")));
    }
    std::vector<int64_t> batch(rank), x_stride(rank), y_stride(rank);
    int64_t xst = 1, yst = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int ix = i - (rank - (xr - 2));
      const int iy = i - (rank - (yr - 2));
      const int64_t dx = ix >= 0 ? xs.dim(ix) : 1;
      const int64_t dy = iy >= 0 ? ys.dim(iy) : 1;
      OP_REQUIRES(ctx, dx == dy || dx == 1 || dy == 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "In[0] and In[1] must have compatible batch dimensions: ",
                      xs.ToString(), " vs. ", ys.ToString())));
      batch[i] = dx == 1 ? dy : dx;
      x_stride[i] = dx == 1 ? 0 : xst;
      y_stride[i] = dy == 1 ? 0 : yst;
      xst *= dx;
      yst *= dy;
    }
    TensorShape out_shape;
    int64_t batches = 1;
    for (int i = 0; i < rank; ++i) {
      out_shape.AddDim(batch[i]);
      batches *= batch[i];
    }
    out_shape.AddDim(m);
    out_shape.AddDim(n);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    T* o = out->data<T>();
    if (k == 0) {
      std::fill_n(o, out->NumElements(), T(0));
      return;
    }
    // Offsets (in matrices) of each batch's x and y.
    std::vector<int64_t> x_at(batches), y_at(batches);
    {
      std::vector<int64_t> index(rank, 0);
      int64_t xo = 0, yo = 0;
      for (int64_t b = 0; b < batches; ++b) {
        x_at[b] = xo;
        y_at[b] = yo;
        for (int d = rank - 1; d >= 0; --d) {
          xo += x_stride[d];
          yo += y_stride[d];
          if (++index[d] < batch[d]) break;
          xo -= x_stride[d] * batch[d];
          yo -= y_stride[d] * batch[d];
          index[d] = 0;
        }
      }
    }
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    std::vector<T> x_conj, y_conj;
    if constexpr (kIsComplex<T>) {
      // Gemm transposes; the adjoint of a complex matrix also conjugates.
      if (adj_x_) xp = Conjugated(x, &x_conj);
      if (adj_y_) yp = Conjugated(y, &y_conj);
    }
    const int64_t x_size = x_rows * x_cols, y_size = y_rows * y_cols;
    const int64_t macs = m * n * k;
    auto product = [&](ThreadPool* pool, int64_t b) {
      return Gemm<T>(pool, adj_x_, adj_y_, m, n, k, xp + x_at[b] * x_size,
                     x_cols, yp + y_at[b] * y_size, y_cols, T(0), o + b * m * n,
                     n);
    };
    if (batches == 1 || macs >= kLargeProduct) {
      for (int64_t b = 0; b < batches; ++b) {
        OP_REQUIRES_OK(ctx, product(ctx->thread_pool(), b));
      }
      return;
    }
    std::vector<absl::Status> status(batches);
    ParallelForShards(ctx, batches, macs, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) status[b] = product(nullptr, b);
    });
    for (const absl::Status& s : status) OP_REQUIRES_OK(ctx, s);
  }

 private:
  const bool broadcast_;
  bool adj_x_ = false;
  bool adj_y_ = false;
};

template <typename T>
class BatchMatMulV1Op : public BatchMatMulOp<T> {
 public:
  explicit BatchMatMulV1Op(OpKernelConstruction* ctx)
      : BatchMatMulOp<T>(ctx, false) {}
};

template <typename T>
class BatchMatMulV2Op : public BatchMatMulOp<T> {
 public:
  explicit BatchMatMulV2Op(OpKernelConstruction* ctx)
      : BatchMatMulOp<T>(ctx, true) {}
};

#define DFLOW_REGISTER_BATCH_MATMUL(T)                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("BatchMatMul")   \
                            .Device(kDeviceCpu)           \
                            .TypeConstraint<T>("T"),      \
                        BatchMatMulV1Op<T>);              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2") \
                            .Device(kDeviceCpu)           \
                            .TypeConstraint<T>("T"),      \
                        BatchMatMulV2Op<T>);              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV3") \
                            .Device(kDeviceCpu)           \
                            .TypeConstraint<T>("Ta")      \
                            .TypeConstraint<T>("Tb")      \
                            .TypeConstraint<T>("Tout"),   \
                        BatchMatMulV2Op<T>)

DFLOW_REGISTER_BATCH_MATMUL(float);
DFLOW_REGISTER_BATCH_MATMUL(double);
DFLOW_REGISTER_BATCH_MATMUL(complex64);
DFLOW_REGISTER_BATCH_MATMUL(complex128);

#undef DFLOW_REGISTER_BATCH_MATMUL

}  // namespace
}  // namespace dflow
