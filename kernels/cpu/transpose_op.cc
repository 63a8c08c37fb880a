// CPU kernels for Transpose, and InvertPermutation (which gives the
// permutation that undoes one: the gradient of a Transpose).
//
// The permutation is first simplified: size-1 dimensions are dropped and
// runs of input dimensions that stay adjacent and in order are merged
// ([N,H,W,C] with perm [0,3,1,2] becomes a batch of 2-D transposes
// [N,H*W,C] -> [N,C,H*W]). What is left is an identity (the output shares
// the input's buffer), a 2-D transpose (a cache-blocked loop, parallel over
// row blocks) or a higher-rank one (Eigen's shuffle on the thread pool).
#define EIGEN_USE_THREADS

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace dflow {
namespace {

using array_kernels::IndexVec;

// Eigen needs NumTraits for its scalars: 16-byte elements move as
// complex<double>, which has them and is trivially copyable.
template <typename T>
using EigenScalar =
    std::conditional_t<std::is_same_v<T, array_kernels::Bytes16>,
                       std::complex<double>, T>;

// out[j, i] = in[i, j] for `batch` matrices of rows x cols, in tiles that
// fit in L1.
template <typename T>
void Transpose2D(const T* in, T* out, int64_t batch, int64_t rows, int64_t cols,
                 ThreadPool* pool) {
  constexpr int64_t kTile = 32;
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t units = batch * row_tiles;
  pool->ParallelFor(units, kTile * cols * static_cast<int64_t>(sizeof(T)),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t u = begin; u < end; ++u) {
                        const int64_t b = u / row_tiles;
                        const int64_t r0 = (u % row_tiles) * kTile;
                        const int64_t r1 = std::min(rows, r0 + kTile);
                        const T* src = in + b * rows * cols;
                        T* dst = out + b * rows * cols;
                        for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
                          const int64_t c1 = std::min(cols, c0 + kTile);
                          for (int64_t r = r0; r < r1; ++r) {
                            for (int64_t c = c0; c < c1; ++c) {
                              dst[c * rows + r] = src[r * cols + c];
                            }
                          }
                        }
                      }
                    });
}

template <typename T, int R>
void EigenTranspose(const T* in, T* out, const IndexVec& in_dims,
                    const IndexVec& perm, ThreadPool* pool) {
  using S = EigenScalar<T>;
  Eigen::array<Eigen::Index, R> in_sizes, out_sizes;
  Eigen::array<int, R> shuffle;
  for (int i = 0; i < R; ++i) {
    in_sizes[i] = in_dims[i];
    shuffle[i] = static_cast<int>(perm[i]);
    out_sizes[i] = in_dims[perm[i]];
  }
  Eigen::TensorMap<Eigen::Tensor<const S, R, Eigen::RowMajor>> src(
      reinterpret_cast<const S*>(in), in_sizes);
  Eigen::TensorMap<Eigen::Tensor<S, R, Eigen::RowMajor>> dst(
      reinterpret_cast<S*>(out), out_sizes);
  // Split the output's outermost dimension over dflow's pool, each block
  // evaluated on Eigen's single-threaded device. (Eigen's ThreadPoolDevice
  // blocks its caller until queued blocks run, which deadlocks when kernels
  // already occupy every worker of the one shared pool.)
  const int64_t rows = out_sizes[0];
  const int64_t row_elems =
      rows > 0 ? static_cast<int64_t>(dst.size()) / rows : 0;
  pool->ParallelFor(rows, row_elems * 4, [&](int64_t begin, int64_t end) {
    Eigen::array<Eigen::Index, R> offsets, extents = out_sizes;
    for (int i = 0; i < R; ++i) offsets[i] = 0;
    offsets[0] = begin;
    extents[0] = end - begin;
    dst.slice(offsets, extents) = src.shuffle(shuffle).slice(offsets, extents);
  });
}

// Any rank and any T (strings): walks the output in order, stepping the
// input index with per-dimension strides.
template <typename T>
void GenericTranspose(const T* in, T* out, const IndexVec& in_dims,
                      const IndexVec& perm, ThreadPool* pool) {
  const int rank = static_cast<int>(perm.size());
  IndexVec in_strides(rank), out_dims(rank), step(rank);
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    in_strides[i] = stride;
    stride *= in_dims[i];
  }
  for (int i = 0; i < rank; ++i) {
    out_dims[i] = in_dims[perm[i]];
    step[i] = in_strides[perm[i]];
  }
  const int64_t inner = out_dims[rank - 1];
  const int64_t rows = stride / inner;
  pool->ParallelFor(rows, inner * 4, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = 0;
      int64_t rest = row;
      for (int i = rank - 2; i >= 0; --i) {
        offset += (rest % out_dims[i]) * step[i];
        rest /= out_dims[i];
      }
      T* dst = out + row * inner;
      for (int64_t j = 0; j < inner; ++j) dst[j] = in[offset + j * step.back()];
    }
  });
}

template <typename T>
void DoTranspose(const T* in, T* out, const IndexVec& dims,
                 const IndexVec& perm, ThreadPool* pool) {
  const int rank = static_cast<int>(perm.size());
  if (rank == 2 || (rank == 3 && perm[0] == 0 && perm[1] == 2)) {
    // [R,C] -> [C,R], or a batch of those.
    const bool batched = rank == 3;
    Transpose2D(in, out, batched ? dims[0] : 1, dims[batched ? 1 : 0],
                dims[batched ? 2 : 1], pool);
    return;
  }
  if constexpr (!std::is_same_v<T, std::string>) {
    switch (rank) {
      case 3:
        return EigenTranspose<T, 3>(in, out, dims, perm, pool);
      case 4:
        return EigenTranspose<T, 4>(in, out, dims, perm, pool);
      case 5:
        return EigenTranspose<T, 5>(in, out, dims, perm, pool);
      case 6:
        return EigenTranspose<T, 6>(in, out, dims, perm, pool);
      default:
        break;
    }
  }
  GenericTranspose(in, out, dims, perm, pool);
}

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override { Transpose(ctx, ctx->input(0)); }

 protected:
  // Output 0: `input` (input 0, or a conjugated copy of it) transposed by
  // input 1.
  void Transpose(OpKernelContext* ctx, const Tensor& input) {
    const Tensor& perm_t = ctx->input(1);
    const TensorShape& in_shape = input.shape();
    const int rank = in_shape.rank();
    OP_REQUIRES(ctx, perm_t.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("perm must be a vector, but has shape ",
                                 perm_t.shape().ToString())));
    IndexVec perm;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(perm_t, "perm", &perm));
    OP_REQUIRES(ctx, static_cast<int>(perm.size()) == rank,
                absl::InvalidArgumentError(absl::StrCat(
                    "perm [", absl::StrJoin(perm, ","), "] has ", perm.size(),
                    " entries but x has shape ", in_shape.ToString(),
                    "; it needs one entry per dimension")));
    absl::InlinedVector<bool, 8> seen(rank, false);
    for (int64_t p : perm) {
      OP_REQUIRES(ctx, p >= 0 && p < rank && !seen[p],
                  absl::InvalidArgumentError(
                      absl::StrCat("perm [", absl::StrJoin(perm, ","),
                                   "] is not a permutation of [0, ", rank,
                                   ") for x of shape ", in_shape.ToString())));
      seen[p] = true;
    }
    TensorShape out_shape;
    for (int64_t p : perm) out_shape.AddDim(in_shape.dim(static_cast<int>(p)));

    // Simplify: keep input dims of size > 1, then merge runs of them that
    // are consecutive in both the input and the output.
    IndexVec new_index(rank, -1);  // input dim -> index among kept dims
    IndexVec kept_sizes;
    for (int i = 0; i < rank; ++i) {
      if (in_shape.dim(i) != 1) {
        new_index[i] = static_cast<int64_t>(kept_sizes.size());
        kept_sizes.push_back(in_shape.dim(i));
      }
    }
    IndexVec kept_perm;
    for (int64_t p : perm) {
      if (new_index[p] >= 0) kept_perm.push_back(new_index[p]);
    }
    // Group kept input dims into runs that appear consecutively in
    // kept_perm: each run becomes one dim.
    const int k = static_cast<int>(kept_perm.size());
    IndexVec run_of(k, -1);  // kept input dim -> run id (input order)
    IndexVec run_heads;      // output order: the first kept dim of each run
    for (int j = 0; j < k; ++j) {
      if (j > 0 && kept_perm[j] == kept_perm[j - 1] + 1) continue;
      run_heads.push_back(kept_perm[j]);
    }
    // Runs in input order get ids 0..m-1; their sizes multiply up.
    IndexVec sorted_heads = run_heads;
    std::sort(sorted_heads.begin(), sorted_heads.end());
    IndexVec dims(sorted_heads.size(), 1);
    for (size_t r = 0; r < sorted_heads.size(); ++r) {
      const int64_t end = r + 1 < sorted_heads.size() ? sorted_heads[r + 1] : k;
      for (int64_t d = sorted_heads[r]; d < end; ++d) {
        run_of[d] = static_cast<int64_t>(r);
        dims[r] *= kept_sizes[d];
      }
    }
    IndexVec simple_perm;
    for (int64_t head : run_heads) simple_perm.push_back(run_of[head]);
    bool identity = true;
    for (size_t i = 0; i < simple_perm.size(); ++i) {
      identity = identity && simple_perm[i] == static_cast<int64_t>(i);
    }
    if (identity) {
      // Only size-1 dims moved: the element order is unchanged.
      absl::StatusOr<Tensor> view = input.Reshaped(out_shape);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(0, *std::move(view));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      DoTranspose<T>(array_kernels::CopyData<T>(input),
                     array_kernels::CopyData<T>(out), dims, simple_perm,
                     ctx->thread_pool());
    });
  }
};

// y[x[i]] = i, after checking that x is a permutation of 0..n-1.
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(
        ctx, x.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "x must be a vector, but has shape ", x.shape().ToString())));
    IndexVec perm;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(x, "x", &perm));
    const int64_t n = static_cast<int64_t>(perm.size());
    IndexVec inverse(perm.size(), -1);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = perm[i];
      OP_REQUIRES(
          ctx, p >= 0 && p < n && inverse[p] < 0,
          absl::InvalidArgumentError(absl::StrCat(
              "x [", absl::StrJoin(perm, ","), "] is not a permutation of 0..",
              n - 1, ": ", p < 0 || p >= n ? "entry out of range" : "duplicate",
              " ", p, " at position ", i)));
      inverse[p] = i;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int64_t i = 0; i < n; ++i) {
      if (y->dtype() == DT_INT64) {
        y->data<int64_t>()[i] = inverse[i];
      } else {
        y->data<int32_t>()[i] = static_cast<int32_t>(inverse[i]);
      }
    }
  }
  bool IsExpensive() const override { return false; }
};

// ConjugateTranspose (tf.linalg.adjoint, transpose(conjugate=True)):
// Transpose of the complex conjugate; for real types a plain Transpose.
class ConjugateTransposeOp : public TransposeOp {
 public:
  explicit ConjugateTransposeOp(OpKernelConstruction* ctx)
      : TransposeOp(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    if (input.dtype() != DT_COMPLEX64 && input.dtype() != DT_COMPLEX128) {
      Transpose(ctx, input);
      return;
    }
    Tensor conj(input.dtype(), input.shape());
    if (input.dtype() == DT_COMPLEX64) {
      Conjugate(input.data<complex64>(), input.NumElements(),
                conj.data<complex64>());
    } else {
      Conjugate(input.data<complex128>(), input.NumElements(),
                conj.data<complex128>());
    }
    Transpose(ctx, conj);
  }

 private:
  template <typename C>
  static void Conjugate(const C* in, int64_t n, C* out) {
    for (int64_t i = 0; i < n; ++i) out[i] = std::conj(in[i]);
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("InvertPermutation")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", {DT_INT32, DT_INT64}),
                      InvertPermutationOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Transpose")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tperm", {DT_INT32, DT_INT64}),
                      TransposeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ConjugateTranspose")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tperm", {DT_INT32, DT_INT64}),
                      ConjugateTransposeOp);

}  // namespace
}  // namespace dflow
