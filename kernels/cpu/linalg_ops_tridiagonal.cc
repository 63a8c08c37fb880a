// The tridiagonal kernels on the CPU (tf.linalg.tridiagonal_solve and
// tridiagonal_matmul), for batches that share one batch shape:
//
// TridiagonalSolve: X with T X = rhs, T given by its superdiagonal (last
//   element unused), diagonal and subdiagonal (first unused) as the three
//   rows of `diagonals` [..., 3, M]; rhs [..., M, K]. Three algorithms, as
//   TensorFlow picks them:
//   - partial_pivoting (default): Gaussian elimination with row
//     interchanges, as LAPACK's xGTSV (U gets a second superdiagonal);
//   - without pivoting: the Thomas algorithm;
//   - perturb_singular: as LAPACK's xLAGTF + xLAGTS, pivots chosen by
//     scaled size, and tiny pivots in the back substitution perturbed by
//     eps * max|U| (or the row scaled) instead of dividing by zero, for
//     inverse iteration on singular systems.
//   A singular system without perturb_singular gives NaNs, as in
//   TensorFlow (which logs a warning): it is a property of the values, and
//   tf.linalg users test for it with is_nan.
// TridiagonalMatMul: T rhs, the diagonals each [..., 1, M].
//
// The arithmetic follows TensorFlow's kernels operation by operation, so
// the results round as TensorFlow's do.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

// One system: the diagonals (each of length n) and rhs / x (n x k,
// row-major; x may not alias rhs).
template <typename T>
struct System {
  const T* sup;
  const T* diag;
  const T* sub;
  const T* rhs;
  T* x;
  int64_t n;
  int64_t k;

  const T* rhs_row(int64_t i) const { return rhs + i * k; }
  T* x_row(int64_t i) const { return x + i * k; }
  void FillNan() const {
    std::fill(x, x + n * k, std::numeric_limits<T>::quiet_NaN());
  }
};

// --- Thomas algorithm (no pivoting). ---

template <typename T>
void SolveThomas(const System<T>& s) {
  const int64_t n = s.n, k = s.k;
  if (s.diag[0] == T(0)) return s.FillNan();
  std::vector<T> u(n);
  u[0] = s.sup[0] / s.diag[0];
  for (int64_t j = 0; j < k; ++j) s.x[j] = s.rhs[j] / s.diag[0];
  for (int64_t i = 1; i < n; ++i) {
    const T denom = s.diag[i] - s.sub[i] * u[i - 1];
    if (denom == T(0)) return s.FillNan();
    u[i] = s.sup[i] / denom;
    const T* r = s.rhs_row(i);
    const T* prev = s.x_row(i - 1);
    T* xi = s.x_row(i);
    for (int64_t j = 0; j < k; ++j) xi[j] = (r[j] - s.sub[i] * prev[j]) / denom;
  }
  for (int64_t i = n - 2; i >= 0; --i) {
    const T* next = s.x_row(i + 1);
    T* xi = s.x_row(i);
    for (int64_t j = 0; j < k; ++j) xi[j] -= u[i] * next[j];
  }
}

// --- Gaussian elimination with partial pivoting (xGTSV). ---

template <typename T>
void SolvePivoting(const System<T>& s) {
  const int64_t n = s.n, k = s.k;
  // U's diagonal and two superdiagonals.
  std::vector<T> u0(n), u1(n), u2(n);
  u0[0] = s.diag[0];
  u1[0] = s.sup[0];
  std::copy(s.rhs, s.rhs + k, s.x);
  for (int64_t i = 0; i + 1 < n; ++i) {
    T* xi = s.x_row(i);
    T* xn = s.x_row(i + 1);
    const T* rn = s.rhs_row(i + 1);
    if (std::abs(u0[i]) >= std::abs(s.sub[i + 1])) {
      if (u0[i] == T(0)) return s.FillNan();
      const T f = s.sub[i + 1] / u0[i];
      u0[i + 1] = s.diag[i + 1] - f * u1[i];
      for (int64_t j = 0; j < k; ++j) xn[j] = rn[j] - f * xi[j];
      if (i != n - 2) {
        u1[i + 1] = s.sup[i + 1];
        u2[i] = T(0);
      }
    } else {
      // Rows i and i + 1 change places.
      const T f = u0[i] / s.sub[i + 1];
      u0[i] = s.sub[i + 1];
      u0[i + 1] = u1[i] - f * s.diag[i + 1];
      u1[i] = s.diag[i + 1];
      for (int64_t j = 0; j < k; ++j) {
        const T old = xi[j];
        xn[j] = old - f * rn[j];
        xi[j] = rn[j];
      }
      if (i != n - 2) {
        u2[i] = s.sup[i + 1];
        u1[i + 1] = -f * s.sup[i + 1];
      }
    }
  }
  if (u0[n - 1] == T(0)) return s.FillNan();
  T* last = s.x_row(n - 1);
  for (int64_t j = 0; j < k; ++j) last[j] /= u0[n - 1];
  T* before = s.x_row(n - 2);
  for (int64_t j = 0; j < k; ++j) {
    before[j] = (before[j] - u1[n - 2] * last[j]) / u0[n - 2];
  }
  for (int64_t i = n - 3; i >= 0; --i) {
    T* xi = s.x_row(i);
    const T* x1 = s.x_row(i + 1);
    const T* x2 = s.x_row(i + 2);
    for (int64_t j = 0; j < k; ++j) {
      xi[j] = (xi[j] - u1[i] * x1[j] - u2[i] * x2[j]) / u0[i];
    }
  }
}

// --- Pivoting by scaled size with perturbed tiny pivots (xLAGTF/xLAGTS).

// Moves `pivot` away from 0 (by `perturb`, doubling) until neither
// row / pivot nor 1 / pivot overflows, or scales the pivot and `row` up
// when the pivot is below the smallest normal number.
template <typename T>
void MaybePerturbPivot(T perturb, T* pivot, T* row, int64_t k) {
  constexpr T kSafeMin = std::numeric_limits<T>::min();
  constexpr T kBigNum = T(1) / kSafeMin;
  T abs_pivot = std::abs(*pivot);
  if (abs_pivot >= T(1)) return;
  perturb = std::copysign(std::max(std::abs(perturb), kSafeMin), *pivot);
  T max_factor = 0;
  for (int64_t j = 0; j < k; ++j) {
    max_factor = std::max(max_factor, std::abs(row[j]));
  }
  bool stop = false;
  while (abs_pivot < T(1) && !stop) {
    if (abs_pivot < kSafeMin) {
      if (abs_pivot == T(0) || max_factor * kSafeMin > abs_pivot) {
        *pivot += perturb;
        perturb *= T(2);
      } else {
        *pivot *= kBigNum;
        for (int64_t j = 0; j < k; ++j) row[j] *= kBigNum;
        stop = true;
      }
    } else if (max_factor > abs_pivot * kBigNum) {
      *pivot += perturb;
      perturb *= T(2);
    } else {
      stop = true;
    }
    abs_pivot = std::abs(*pivot);
  }
}

template <typename T>
void SolvePerturbSingular(const System<T>& s) {
  const int64_t n = s.n, k = s.k;
  constexpr T kEps = std::numeric_limits<T>::epsilon();
  std::vector<T> row(k);
  if (n == 1) {
    T denom = s.diag[0];
    std::copy(s.rhs, s.rhs + k, row.begin());
    MaybePerturbPivot(kEps * std::abs(denom), &denom, row.data(), k);
    const T inv = T(1) / denom;
    for (int64_t j = 0; j < k; ++j) s.x[j] = row[j] * inv;
    return;
  }
  std::vector<T> u0(n), u1(n), u2(n);
  u0[0] = s.diag[0];
  u1[0] = s.sup[0];
  T max_abs_u = std::max(std::abs(u0[0]), std::abs(u1[0]));
  T scale1 = std::abs(u0[0]) + std::abs(u1[0]);
  std::copy(s.rhs, s.rhs + k, s.x);
  for (int64_t i = 0; i + 1 < n; ++i) {
    T* xi = s.x_row(i);
    T* xn = s.x_row(i + 1);
    const T* rn = s.rhs_row(i + 1);
    const T sub = s.sub[i + 1];
    u0[i + 1] = s.diag[i + 1];
    T scale2 = std::abs(sub) + std::abs(u0[i + 1]);
    if (i < n - 2) scale2 += std::abs(s.sup[i + 1]);
    if (sub == T(0)) {
      // Row i + 1 has nothing below the diagonal to eliminate.
      scale1 = scale2;
      u1[i + 1] = s.sup[i + 1];
      u2[i] = T(0);
      std::copy(rn, rn + k, xn);
    } else {
      const T piv1 = u0[i] == T(0) ? T(0) : std::abs(u0[i]) / scale1;
      const T piv2 = std::abs(sub) / scale2;
      if (piv2 <= piv1) {
        scale1 = scale2;
        const T f = sub / u0[i];
        u0[i + 1] = s.diag[i + 1] - f * u1[i];
        u1[i + 1] = s.sup[i + 1];
        u2[i] = T(0);
        for (int64_t j = 0; j < k; ++j) xn[j] = rn[j] - f * xi[j];
      } else {
        const T f = u0[i] / sub;
        u0[i] = sub;
        u0[i + 1] = u1[i] - f * s.diag[i + 1];
        u1[i] = s.diag[i + 1];
        if (i < n - 2) {
          u2[i] = s.sup[i + 1];
          u1[i + 1] = -f * s.sup[i + 1];
        }
        for (int64_t j = 0; j < k; ++j) {
          const T old = xi[j];
          xn[j] = old - f * rn[j];
          xi[j] = rn[j];
        }
      }
    }
    if (i < n - 2) {
      max_abs_u = std::max(
          {max_abs_u, std::abs(u0[i]), std::abs(u1[i]), std::abs(u2[i])});
    }
  }
  max_abs_u = std::max(max_abs_u, std::abs(u0[n - 1]));
  // Back substitution U x = z, perturbing tiny pivots on the scale of
  // eps * max|U|.
  const T tol = kEps * max_abs_u;
  auto finish_row = [&](int64_t i, T perturb) {
    T denom = u0[i];
    MaybePerturbPivot(perturb, &denom, row.data(), k);
    const T inv = T(1) / denom;
    T* xi = s.x_row(i);
    for (int64_t j = 0; j < k; ++j) xi[j] = row[j] * inv;
  };
  std::copy(s.x_row(n - 1), s.x_row(n - 1) + k, row.begin());
  finish_row(n - 1, tol);
  {
    const T* x1 = s.x_row(n - 1);
    const T* xi = s.x_row(n - 2);
    for (int64_t j = 0; j < k; ++j) row[j] = xi[j] - u1[n - 2] * x1[j];
    finish_row(n - 2, std::copysign(tol, u0[n - 2]));
  }
  for (int64_t i = n - 3; i >= 0; --i) {
    const T* xi = s.x_row(i);
    const T* x1 = s.x_row(i + 1);
    const T* x2 = s.x_row(i + 2);
    for (int64_t j = 0; j < k; ++j) {
      row[j] = xi[j] - u1[i] * x1[j] - u2[i] * x2[j];
    }
    finish_row(i, std::copysign(tol, u0[i]));
  }
}

template <typename T>
class TridiagonalSolveOp : public OpKernel {
 public:
  explicit TridiagonalSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("partial_pivoting", &pivoting_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("perturb_singular", &perturb_));
    OP_REQUIRES(ctx, pivoting_ || !perturb_,
                absl::InvalidArgumentError(
                    "Setting perturb_singular requires also setting "
                    "partial_pivoting."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonals = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    int64_t three = 0, n = 0, rhs_rows = 0, k = 0;
    OP_REQUIRES_OK(
        ctx, linalg::CheckMatrices(diagonals, "diagonals", false, &three, &n));
    OP_REQUIRES_OK(ctx,
                   linalg::CheckMatrices(rhs, "rhs", false, &rhs_rows, &k));
    OP_REQUIRES(ctx, three == 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "Expected diagonals to be provided as a matrix with 3 "
                    "rows, got shape ",
                    diagonals.shape().ToString())));
    const TensorShape batch = linalg::BatchShape(diagonals.shape());
    OP_REQUIRES(ctx, rhs_rows == n && batch == linalg::BatchShape(rhs.shape()),
                absl::InvalidArgumentError(absl::StrCat(
                    "diagonals ", diagonals.shape().ToString(), " and rhs ",
                    rhs.shape().ToString(),
                    " need one batch shape and as many equations (", n,
                    ") as right-hand-side rows")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (n == 0 || k == 0) return;
    const T* d = diagonals.data<T>();
    const T* r = rhs.data<T>();
    T* o = out->data<T>();
    linalg::ForEachMatrix(
        ctx, batch.num_elements(), 8 * n * (k + 1), [&](int64_t b) {
          const T* diags = d + b * 3 * n;
          const System<T> s{
              diags, diags + n, diags + 2 * n, r + b * n * k, o + b * n * k,
              n,     k};
          Solve(s);
          return true;
        });
  }

 private:
  void Solve(const System<T>& s) const {
    if (pivoting_ && perturb_) return SolvePerturbSingular(s);
    if (s.n == 1) {
      if (s.diag[0] == T(0)) return s.FillNan();
      for (int64_t j = 0; j < s.k; ++j) s.x[j] = s.rhs[j] / s.diag[0];
      return;
    }
    if (pivoting_) return SolvePivoting(s);
    SolveThomas(s);
  }

  bool pivoting_ = true;
  bool perturb_ = false;
};

template <typename T>
class TridiagonalMatMulOp : public OpKernel {
 public:
  explicit TridiagonalMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    static constexpr const char* kNames[] = {"superdiag", "maindiag",
                                             "subdiag"};
    const Tensor& rhs = ctx->input(3);
    int64_t m = 0, n = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(rhs, "rhs", false, &m, &n));
    const TensorShape batch = linalg::BatchShape(rhs.shape());
    const T* diag[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.shape() == linalg::WithDims(batch, {1, m}),
                  absl::InvalidArgumentError(absl::StrCat(
                      "Invalid ", kNames[i], " shape ", t.shape().ToString(),
                      ": the diagonals must be ",
                      linalg::WithDims(batch, {1, m}).ToString(), " for rhs ",
                      rhs.shape().ToString())));
      diag[i] = t.data<T>();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (out->NumElements() == 0) return;
    const T* r = rhs.data<T>();
    T* o = out->data<T>();
    linalg::ForEachMatrix(ctx, batch.num_elements(), 5 * m * n, [&](int64_t b) {
      const T* sup = diag[0] + b * m;
      const T* main = diag[1] + b * m;
      const T* sub = diag[2] + b * m;
      const T* rb = r + b * m * n;
      T* ob = o + b * m * n;
      // Row i: main[i] rhs[i] + sub[i] rhs[i-1] + sup[i] rhs[i+1], added
      // in that order.
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          T v = rb[i * n + j] * main[i];
          if (i > 0) v += rb[(i - 1) * n + j] * sub[i];
          if (i + 1 < m) v += rb[(i + 1) * n + j] * sup[i];
          ob[i * n + j] = v;
        }
      }
      return true;
    });
  }
};

#define DFLOW_REGISTER_TRIDIAGONAL(T)                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("TridiagonalSolve")  \
                            .Device(kDeviceCpu)               \
                            .TypeConstraint<T>("T"),          \
                        TridiagonalSolveOp<T>);               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("TridiagonalMatMul") \
                            .Device(kDeviceCpu)               \
                            .TypeConstraint<T>("T"),          \
                        TridiagonalMatMulOp<T>)

DFLOW_REGISTER_TRIDIAGONAL(float);
DFLOW_REGISTER_TRIDIAGONAL(double);

#undef DFLOW_REGISTER_TRIDIAGONAL

}  // namespace
}  // namespace dflow
