#include "graph/gradients/grad_helpers.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_ops.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// The axes of z = f(a, b) along which `a` was broadcast, when the static
// shapes decide them: `leading` are z's dimensions before a's first (summed
// away), `inner` the dimensions where a has size 1 and b may not (summed
// with keep_dims; if b's is 1 too at run time the sum covers one element,
// which is harmless). False when some dimension could go either way: a's
// size there is unknown while b's is not known to be 1.
bool StaticBroadcastAxes(const TensorShape& a, const TensorShape& b,
                         std::vector<int64_t>* leading,
                         std::vector<int64_t>* inner) {
  if (a.unknown_rank() || b.unknown_rank()) return false;
  const int ra = a.rank(), rb = b.rank();
  const int r = std::max(ra, rb);
  leading->clear();
  inner->clear();
  for (int i = 0; i < r - ra; ++i) leading->push_back(i);
  for (int j = 0; j < ra; ++j) {
    const int bj = j - (ra - rb);  // b's aligned dimension (b may be shorter)
    const int64_t bd = bj >= 0 ? b.dim(bj) : 1;
    if (bd == 1) continue;  // a is not broadcast along j
    const int64_t ad = a.dim(j);
    if (ad == TensorShape::kUnknownDim) return false;
    if (ad == 1) inner->push_back(r - ra + j);
  }
  return true;
}

// g summed over `inner` (keeping them) and then over `leading`.
Output SumOverAxes(const Scope& scope, const Output& g,
                   const std::vector<int64_t>& leading,
                   const std::vector<int64_t>& inner) {
  Output out = g;
  if (!inner.empty()) {
    out = ops::Sum(scope, out, Int32Vector(scope, inner),
                   ops::ReductionAttrs().KeepDims(true));
  }
  if (!leading.empty()) {
    out = ops::Sum(scope, out, Int32Vector(scope, leading));
  }
  return out;
}

template <typename T>
Tensor ScalarTensor(double value) {
  return Tensor::Scalar<T>(static_cast<T>(value));
}

}  // namespace

void ReduceBroadcastGradients(const Scope& scope, const Output& x,
                              const Output& y, Output gx, Output gy,
                              Output* grad_x, Output* grad_y) {
  const TensorShape xs = x.shape(), ys = y.shape();
  std::vector<int64_t> x_leading, x_inner, y_leading, y_inner;
  const bool x_static = StaticBroadcastAxes(xs, ys, &x_leading, &x_inner);
  const bool y_static = StaticBroadcastAxes(ys, xs, &y_leading, &y_inner);
  // The run-time path, built once for whichever input needs it.
  Output sx, sy;
  ops::BroadcastGradientArgsOutputs axes;
  if ((!x_static && gx.valid()) || (!y_static && gy.valid())) {
    sx = ops::Shape(scope, x);
    sy = ops::Shape(scope, y);
    axes = ops::BroadcastGradientArgs(scope, sx, sy);
  }
  if (!gx.valid()) {
    *grad_x = Output();
  } else if (x_static) {
    *grad_x = SumOverAxes(scope, gx, x_leading, x_inner);
  } else {
    *grad_x = ops::Reshape(scope, ops::Sum(scope, gx, axes.r0), sx);
  }
  if (!gy.valid()) {
    *grad_y = Output();
  } else if (y_static) {
    *grad_y = SumOverAxes(scope, gy, y_leading, y_inner);
  } else {
    *grad_y = ops::Reshape(scope, ops::Sum(scope, gy, axes.r1), sy);
  }
}

DataType GradType(const Operation& op) {
  return BaseType(op.output(0).dtype());
}

bool ConstantInts(const Output& o, std::vector<int64_t>* values) {
  values->clear();
  if (!o.valid() || o.node()->op() != "Const") return false;
  Tensor t;
  if (!o.node()->GetAttr("value", &t).ok() || !t.IsInitialized()) {
    return false;
  }
  if (t.dtype() == DT_INT32) {
    for (int32_t v : t.flat<int32_t>()) values->push_back(v);
    return true;
  }
  if (t.dtype() == DT_INT64) {
    for (int64_t v : t.flat<int64_t>()) values->push_back(v);
    return true;
  }
  return false;
}

Output ScalarOfType(const Scope& scope, double value, DataType dtype) {
  Tensor t;
  switch (BaseType(dtype)) {
    case DT_FLOAT:
      t = ScalarTensor<float>(value);
      break;
    case DT_DOUBLE:
      t = ScalarTensor<double>(value);
      break;
    case DT_HALF:
      t = Tensor::Scalar<float16>(
          float16::FromFloat(static_cast<float>(value)));
      break;
    case DT_BFLOAT16:
      t = Tensor::Scalar<bfloat16>(
          bfloat16::FromFloat(static_cast<float>(value)));
      break;
    case DT_INT8:
      t = ScalarTensor<int8_t>(value);
      break;
    case DT_INT16:
      t = ScalarTensor<int16_t>(value);
      break;
    case DT_INT32:
      t = ScalarTensor<int32_t>(value);
      break;
    case DT_INT64:
      t = ScalarTensor<int64_t>(value);
      break;
    case DT_UINT8:
      t = ScalarTensor<uint8_t>(value);
      break;
    case DT_UINT16:
      t = ScalarTensor<uint16_t>(value);
      break;
    case DT_UINT32:
      t = ScalarTensor<uint32_t>(value);
      break;
    case DT_UINT64:
      t = ScalarTensor<uint64_t>(value);
      break;
    case DT_COMPLEX64:
      t = Tensor::Scalar<complex64>(complex64(static_cast<float>(value), 0));
      break;
    case DT_COMPLEX128:
      t = Tensor::Scalar<complex128>(complex128(value, 0));
      break;
    default:
      // Other dtypes have no arithmetic; a double the op will reject with
      // a dtype error naming the node.
      t = Tensor::Scalar<double>(value);
      break;
  }
  return ops::Const(scope, t);
}

Output Int32Vector(const Scope& scope, const std::vector<int64_t>& values) {
  std::vector<int32_t> v(values.begin(), values.end());
  return ops::Const(scope, Tensor::FromVector<int32_t>(v));
}

}  // namespace dflow
