// What the batched linear-algebra kernels (linalg_ops_*.cc) share: a
// tensor [..., M, N] seen as a batch of row-major Eigen matrices, the
// checks of its shape, and a loop over the batch that runs matrices in
// parallel and reports the first failing one.
#ifndef DFLOW_KERNELS_CPU_LINALG_OPS_COMMON_H_
#define DFLOW_KERNELS_CPU_LINALG_OPS_COMMON_H_

#include <Eigen/Dense>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace linalg {

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;

// Rows and columns of the innermost matrices of `t`, which must have rank
// >= 2 (and be square when `square`); `what` names the argument.
inline absl::Status CheckMatrices(const Tensor& t, const char* what,
                                  bool square, int64_t* rows, int64_t* cols) {
  const TensorShape& s = t.shape();
  if (s.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(what,
                     " must have rank >= 2 (a batch of matrices), got "
                     "shape ",
                     s.ToString()));
  }
  *rows = s.dim(s.rank() - 2);
  *cols = s.dim(s.rank() - 1);
  if (square && *rows != *cols) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be square matrices, got shape ", s.ToString()));
  }
  return absl::OkStatus();
}

// The batch dimensions of `s` (all but the last two).
inline TensorShape BatchShape(const TensorShape& s) {
  return TensorShape(s.dims().subspan(0, s.rank() - 2));
}

// `batch` with the dimensions `dims` appended (an output's shape).
inline TensorShape WithDims(const TensorShape& batch,
                            std::initializer_list<int64_t> dims) {
  TensorShape out = batch;
  for (int64_t d : dims) out.AddDim(d);
  return out;
}

// For each batch index of the broadcast batch shape, the batch index of x
// and of y (the collapsed BCast of their batch shapes).
inline std::vector<std::pair<int64_t, int64_t>> BatchPairs(const BCast& b) {
  const int64_t total = b.output_shape.num_elements();
  std::vector<std::pair<int64_t, int64_t>> pairs(total);
  const int rank = b.rank();
  BCast::Dims xs(rank), ys(rank);
  int64_t xn = 1, yn = 1;
  for (int d = rank - 1; d >= 0; --d) {
    xs[d] = b.x_reshape[d] == 1 ? 0 : xn;
    ys[d] = b.y_reshape[d] == 1 ? 0 : yn;
    xn *= b.x_reshape[d];
    yn *= b.y_reshape[d];
  }
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i, xo = 0, yo = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t k = rest % b.result[d];
      rest /= b.result[d];
      xo += k * xs[d];
      yo += k * ys[d];
    }
    pairs[i] = {xo, yo};
  }
  return pairs;
}

// Calls fn(b) for each batch index b in [0, n), in parallel; fn returns
// false when matrix b cannot be computed (singular, not positive
// definite). Returns the first such b, or -1.
template <typename Fn>
int64_t ForEachMatrix(OpKernelContext* ctx, int64_t n, int64_t cost,
                      const Fn& fn) {
  std::atomic<int64_t> first_failed{n};
  ParallelForShards(ctx, n, cost, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      if (!fn(b)) {
        int64_t seen = first_failed.load();
        while (b < seen && !first_failed.compare_exchange_weak(seen, b)) {
        }
      }
    }
  });
  const int64_t failed = first_failed.load();
  return failed == n ? -1 : failed;
}

// Roughly the cycles of one n x n decomposition, for threading.
inline int64_t CubicCost(int64_t n) { return std::max<int64_t>(1, n * n * n); }

}  // namespace linalg
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_LINALG_OPS_COMMON_H_
