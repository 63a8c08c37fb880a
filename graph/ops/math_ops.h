// Math ops: element-wise arithmetic and comparisons (NumPy broadcasting),
// unary functions and their gradient helpers, MatMul, reductions,
// cumulative sums and products, ArgMax and Cast, with TensorFlow's op
// names, arguments and attrs; plus the operators `+ - * /` and unary `-`
// on Output.
//
// Binary wrappers accept a constant on either side (`ops::Mul(s, x, 2)`): a
// constant whose value the other side's dtype holds exactly is converted to
// that dtype, so an int literal scales a float tensor as it does in Python.
#ifndef DFLOW_GRAPH_OPS_MATH_OPS_H_
#define DFLOW_GRAPH_OPS_MATH_OPS_H_

#include <string>

#include "absl/types/span.h"
#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// --- Element-wise binary ops (broadcasting). ---

Output Add(const Scope& scope, Input x, Input y);
Output AddV2(const Scope& scope, Input x, Input y);
Output Sub(const Scope& scope, Input x, Input y);
Output Mul(const Scope& scope, Input x, Input y);
Output RealDiv(const Scope& scope, Input x, Input y);
Output Maximum(const Scope& scope, Input x, Input y);
Output Minimum(const Scope& scope, Input x, Input y);
Output Pow(const Scope& scope, Input x, Input y);
Output SquaredDifference(const Scope& scope, Input x, Input y);
Output Less(const Scope& scope, Input x, Input y);
Output Greater(const Scope& scope, Input x, Input y);

struct EqualAttrs {
  // When false, inputs whose shapes do not broadcast compare unequal (a
  // scalar false) instead of failing.
  bool incompatible_shape_error = true;
  EqualAttrs& IncompatibleShapeError(bool v) {
    incompatible_shape_error = v;
    return *this;
  }
};
Output Equal(const Scope& scope, Input x, Input y,
             const EqualAttrs& attrs = {});

// Python's // and % (floor division; FloorMod's result has y's sign),
// and x / y with 0 wherever y is 0 (DivNoNan).
Output FloorDiv(const Scope& scope, Input x, Input y);
Output FloorMod(const Scope& scope, Input x, Input y);
Output DivNoNan(const Scope& scope, Input x, Input y);
// C's / and % (truncating toward zero; TruncateMod's result has x's sign);
// integer division by zero fails the step.
Output TruncateDiv(const Scope& scope, Input x, Input y);
Output TruncateMod(const Scope& scope, Input x, Input y);
// TensorFlow's older op of the same function as TruncateMod.
Output Mod(const Scope& scope, Input x, Input y);
// 0 where x is 0 (even where y is 0, inf or NaN), else x / y, x * log(y),
// x * log1p(y) (math_ops_binary_special.cc).
Output Xdivy(const Scope& scope, Input x, Input y);
Output Xlogy(const Scope& scope, Input x, Input y);
Output Xlog1py(const Scope& scope, Input x, Input y);
// The angle of (x, y): note y comes first, as in TensorFlow.
Output Atan2(const Scope& scope, Input y, Input x);
// The next representable value after x1 toward x2 (tf.math.nextafter).
Output NextAfter(const Scope& scope, Input x1, Input x2);
// |x - y| < tolerance; x and y have one shape (no broadcasting).
Output ApproximateEqual(const Scope& scope, Input x, Input y,
                        float tolerance = 1e-5f);
// tf.bitwise on integers (math_ops_bitwise.cc): shifts clamp y to
// [0, bits - 1], as TensorFlow does.
Output BitwiseAnd(const Scope& scope, Input x, Input y);
Output BitwiseOr(const Scope& scope, Input x, Input y);
Output BitwiseXor(const Scope& scope, Input x, Input y);
Output LeftShift(const Scope& scope, Input x, Input y);
Output RightShift(const Scope& scope, Input x, Input y);
Output Invert(const Scope& scope, Input x);
// The number of set bits of each integer, as uint8.
Output PopulationCount(const Scope& scope, Input x);
// x * y with 0 wherever y is 0, even where x is inf or nan (MulNoNan).
Output MulNoNan(const Scope& scope, Input x, Input y);
Output GreaterEqual(const Scope& scope, Input x, Input y);
Output LessEqual(const Scope& scope, Input x, Input y);
Output NotEqual(const Scope& scope, Input x, Input y,
                const EqualAttrs& attrs = {});
Output LogicalAnd(const Scope& scope, Input x, Input y);
Output LogicalOr(const Scope& scope, Input x, Input y);
Output LogicalNot(const Scope& scope, Input x);

// `t` where `condition` is true, else `e`. Select (legacy): condition has
// t's shape, is a scalar, or is a vector picking whole rows of t. SelectV2
// broadcasts all three (NumPy's where).
Output Select(const Scope& scope, Input condition, Input t, Input e);
Output SelectV2(const Scope& scope, Input condition, Input t, Input e);

// Sum of tensors of one shape and dtype (at least one).
Output AddN(const Scope& scope, absl::Span<const Output> inputs);

// --- Element-wise unary ops. ---

Output Neg(const Scope& scope, Input x);
Output Square(const Scope& scope, Input x);
Output Sqrt(const Scope& scope, Input x);
Output Rsqrt(const Scope& scope, Input x);
Output Exp(const Scope& scope, Input x);
Output Log(const Scope& scope, Input x);
Output Sigmoid(const Scope& scope, Input x);
Output Tanh(const Scope& scope, Input x);
Output Floor(const Scope& scope, Input x);
// Beyond the core (math_ops_special.cc): |x|, sign, trigonometric and
// hyperbolic functions, log1p/expm1, 1/x (Reciprocal, and Inv, its old
// name), rounding (Round and Rint: halves to even), erf/erfc, lgamma,
// digamma, and the finite/NaN/infinity predicates (bool outputs).
Output Abs(const Scope& scope, Input x);
Output Sign(const Scope& scope, Input x);
Output Sin(const Scope& scope, Input x);
Output Cos(const Scope& scope, Input x);
Output Tan(const Scope& scope, Input x);
Output Asin(const Scope& scope, Input x);
Output Acos(const Scope& scope, Input x);
Output Atan(const Scope& scope, Input x);
Output Sinh(const Scope& scope, Input x);
Output Cosh(const Scope& scope, Input x);
Output Asinh(const Scope& scope, Input x);
Output Acosh(const Scope& scope, Input x);
Output Atanh(const Scope& scope, Input x);
Output Log1p(const Scope& scope, Input x);
Output Expm1(const Scope& scope, Input x);
Output Reciprocal(const Scope& scope, Input x);
Output Inv(const Scope& scope, Input x);
Output Round(const Scope& scope, Input x);
Output Rint(const Scope& scope, Input x);
Output Ceil(const Scope& scope, Input x);
Output Erf(const Scope& scope, Input x);
Output Erfc(const Scope& scope, Input x);
Output Lgamma(const Scope& scope, Input x);
Output Digamma(const Scope& scope, Input x);
// The inverses of erf and of the standard normal CDF.
Output Erfinv(const Scope& scope, Input x);
Output Ndtri(const Scope& scope, Input x);
Output IsFinite(const Scope& scope, Input x);
Output IsNan(const Scope& scope, Input x);
Output IsInf(const Scope& scope, Input x);
// Gradients given the forward output `y` and the incoming gradient `dy`.
Output RsqrtGrad(const Scope& scope, Input y, Input dy);
Output SqrtGrad(const Scope& scope, Input y, Input dy);
Output ReciprocalGrad(const Scope& scope, Input y, Input dy);
Output SigmoidGrad(const Scope& scope, Input y, Input dy);
Output TanhGrad(const Scope& scope, Input y, Input dy);

// --- Matrix multiplication. ---

struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
  // TensorFlow 2.x hints that the product is part of a gradient.
  bool grad_a = false;
  bool grad_b = false;
  MatMulAttrs& TransposeA(bool v) {
    transpose_a = v;
    return *this;
  }
  MatMulAttrs& TransposeB(bool v) {
    transpose_b = v;
    return *this;
  }
  MatMulAttrs& GradA(bool v) {
    grad_a = v;
    return *this;
  }
  MatMulAttrs& GradB(bool v) {
    grad_b = v;
    return *this;
  }
};
Output MatMul(const Scope& scope, Input a, Input b,
              const MatMulAttrs& attrs = {});

// --- Reductions over the axes in `axis` (int32 or int64; negative axes
// count from the end). ---

struct ReductionAttrs {
  // Keep reduced dimensions with size 1.
  bool keep_dims = false;
  ReductionAttrs& KeepDims(bool v) {
    keep_dims = v;
    return *this;
  }
};
Output Sum(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs = {});
Output Mean(const Scope& scope, Input input, Input axis,
            const ReductionAttrs& attrs = {});
Output Max(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs = {});
Output Min(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs = {});
Output Prod(const Scope& scope, Input input, Input axis,
            const ReductionAttrs& attrs = {});
// sqrt(sum(input^2)) over the axes (tf.norm's default, tf.linalg.norm).
Output EuclideanNorm(const Scope& scope, Input input, Input axis,
                     const ReductionAttrs& attrs = {});
// Logical AND / OR of a bool tensor over the axes.
Output All(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs = {});
Output Any(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs = {});

// --- Cumulative sums and products along the scalar axis `axis` (int32 or
// int64; negative counts from the end). Cumsum([a, b, c]) is
// [a, a + b, a + b + c]; exclusive leaves out each element itself
// ([0, a, a + b]), reverse runs from the end ([a + b + c, b + c, c]). The
// product gradient of Prod uses exclusive Cumprod, so it stays exact when
// the input holds zeros. ---

struct ScanAttrs {
  bool exclusive = false;
  bool reverse = false;
  ScanAttrs& Exclusive(bool v) {
    exclusive = v;
    return *this;
  }
  ScanAttrs& Reverse(bool v) {
    reverse = v;
    return *this;
  }
};
Output Cumsum(const Scope& scope, Input x, Input axis,
              const ScanAttrs& attrs = {});
Output Cumprod(const Scope& scope, Input x, Input axis,
               const ScanAttrs& attrs = {});
// log(cumsum(exp(x))) computed without overflow (float types only); the
// exclusive form starts from log(0) = -inf.
Output CumulativeLogsumexp(const Scope& scope, Input x, Input axis,
                           const ScanAttrs& attrs = {});

// --- Special functions (math_ops_special_functions.cc), computed as
// TensorFlow computes them (Eigen's SpecialFunctions, Cephes). Binary ones
// broadcast; Betainc takes a, b, x of one shape or scalars. ---

// The regularized lower and upper incomplete gamma functions P(a, x) and
// Q(a, x), and dP/da.
Output Igamma(const Scope& scope, Input a, Input x);
Output Igammac(const Scope& scope, Input a, Input x);
Output IgammaGradA(const Scope& scope, Input a, Input x);
// d sample / d alpha of Gamma(alpha, 1) samples (implicit
// reparameterization).
Output RandomGammaGrad(const Scope& scope, Input alpha, Input sample);
// The regularized incomplete beta function I_x(a, b).
Output Betainc(const Scope& scope, Input a, Input b, Input x);
// The Hurwitz zeta function sum_k (k + q)^-x.
Output Zeta(const Scope& scope, Input x, Input q);
// The a-th derivative of digamma at x.
Output Polygamma(const Scope& scope, Input a, Input x);
// A unary special function by its TensorFlow op name: BesselI0, BesselI0e,
// BesselI1, BesselI1e, BesselJ0, BesselJ1, BesselK0, BesselK0e, BesselK1,
// BesselK1e, BesselY0, BesselY1, Dawsn, Expint, FresnelCos, FresnelSin,
// Spence.
Output SpecialUnary(const Scope& scope, const char* op, Input x);

// --- Counting (math_ops_histogram.cc). ---

// bins[i] = the sum of weights[j] (or the count of j) with arr[j] == i,
// for i < size; weights empty or arr's shape.
Output Bincount(const Scope& scope, Input arr, Input size, Input weights);
// Counts of values in nbins equal bins over value_range [lo, hi] (values
// outside go to the first or last bin). dtype: DT_INT32 or DT_INT64.
Output HistogramFixedWidth(const Scope& scope, Input values,
                           Input value_range, Input nbins,
                           DataType dtype = DT_INT32);

struct ArgMaxAttrs {
  DataType output_type = DT_INT64;
  ArgMaxAttrs& OutputType(DataType v) {
    output_type = v;
    return *this;
  }
};
// Index of the largest value along the scalar axis `dimension`.
Output ArgMax(const Scope& scope, Input input, Input dimension,
              const ArgMaxAttrs& attrs = {});

// Index of the smallest value along the scalar axis `dimension`
// (graph/ops/math_ops_reduction.cc; ArgMaxAttrs' output_type: int32/int64).
Output ArgMin(const Scope& scope, Input input, Input dimension,
              const ArgMaxAttrs& attrs = {});

// --- Batched matrix products, clipping (math_ops_batch_matmul.cc). ---

struct BatchMatMulAttrs {
  // Adjoint (conjugate transpose) of the last two dimensions of x / y.
  bool adj_x = false;
  bool adj_y = false;
  BatchMatMulAttrs& AdjX(bool v) {
    adj_x = v;
    return *this;
  }
  BatchMatMulAttrs& AdjY(bool v) {
    adj_y = v;
    return *this;
  }
};
// output[..., :, :] = op(x[..., :, :]) * op(y[..., :, :]). BatchMatMul
// needs equal batch dimensions; V2 and V3 broadcast them. V3 names the
// output type (x, y and Tout one type on dflow's CPU kernels).
Output BatchMatMul(const Scope& scope, Input x, Input y,
                   const BatchMatMulAttrs& attrs = {});
Output BatchMatMulV2(const Scope& scope, Input x, Input y,
                     const BatchMatMulAttrs& attrs = {});

// The Einstein summation `equation` of one or two inputs (tf.einsum):
// "ij,jk->ik", "...ij,...jk->...ik", "bij->bji", "ii->i", "ij->".
Output Einsum(const Scope& scope, InputList inputs,
              const std::string& equation);
Output BatchMatMulV3(const Scope& scope, Input x, Input y, DataType Tout,
                     const BatchMatMulAttrs& attrs = {});

// min(max(t, clip_value_min), clip_value_max) element-wise; the bounds are
// scalars or have t's shape.
Output ClipByValue(const Scope& scope, Input t, Input clip_value_min,
                   Input clip_value_max);

// --- Comparisons and casts. ---

struct CastAttrs {
  bool truncate = false;
  CastAttrs& Truncate(bool v) {
    truncate = v;
    return *this;
  }
};
Output Cast(const Scope& scope, Input x, DataType DstT,
            const CastAttrs& attrs = {});

// --- Complex numbers (math_ops_complex.cc). ---

// real + i * imag (broadcasting): complex64 from float, complex128 from
// double.
Output Complex(const Scope& scope, Input real, Input imag);
// Parts of a complex64 (complex128) tensor as float (double): the real and
// imaginary parts, the argument atan2(imag, real) and the modulus |x|.
Output Real(const Scope& scope, Input x);
Output Imag(const Scope& scope, Input x);
Output Angle(const Scope& scope, Input x);
Output ComplexAbs(const Scope& scope, Input x);
// The complex conjugate (same dtype).
Output Conj(const Scope& scope, Input x);

}  // namespace ops

// --- Operators on Output. ---
//
// They build in ActiveScope::Current() (see graph/scope.h); without one they
// record an error on the operands' graph and return an invalid Output.
// `a + b` is AddV2, `a - b` Sub, `a * b` Mul, `a / b` RealDiv, `-a` Neg. One
// side may be a constant (`x * 2.0f`, `1.0f - x`).
Output operator+(const Output& x, const Output& y);
Output operator+(const Output& x, const Input& y);
Output operator+(const Input& x, const Output& y);
Output operator-(const Output& x, const Output& y);
Output operator-(const Output& x, const Input& y);
Output operator-(const Input& x, const Output& y);
Output operator*(const Output& x, const Output& y);
Output operator*(const Output& x, const Input& y);
Output operator*(const Input& x, const Output& y);
Output operator/(const Output& x, const Output& y);
Output operator/(const Output& x, const Input& y);
Output operator/(const Input& x, const Output& y);
Output operator-(const Output& x);

}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_MATH_OPS_H_
