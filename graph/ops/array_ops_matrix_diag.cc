// Schemas and builder wrappers of MatrixDiagV3 (tf.eye, tf.linalg.diag) and
// MatrixDiagPartV3 (tf.linalg.diag_part). Kernels:
// kernels/cpu/slicing_ops_matrix_diag.cc (one diagonal k, or a band of them
// k = [lo, hi]).
#include <algorithm>
#include <cstdint>
#include <optional>

#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// The scalar int32 value of input `i`, if known at build time.
std::optional<int64_t> KnownScalar(InferenceContext* c, int i) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || t->dtype() != DT_INT32 || t->NumElements() != 1) {
    return std::nullopt;
  }
  return *t->data<int32_t>();
}

// The diagonals [lo, hi] input `i` (k: one diagonal, or a pair) names, if
// known at build time.
struct Band {
  int64_t lo, hi;
  bool many() const { return hi > lo; }
};
std::optional<Band> KnownBand(InferenceContext* c, int i) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || t->dtype() != DT_INT32 || t->NumElements() < 1 ||
      t->NumElements() > 2) {
    return std::nullopt;
  }
  const int32_t* v = t->data<int32_t>();
  Band b{v[0], v[t->NumElements() - 1]};
  if (b.lo > b.hi) return std::nullopt;  // the kernel says what is wrong
  return b;
}

absl::Status MatrixDiagShape(InferenceContext* c) {
  const TensorShape& diagonal = c->input(0);
  const std::optional<Band> k = KnownBand(c, 1);
  // A band's diagonals are diagonal's second-to-last dimension.
  const int band_rank = k.has_value() && k->many() ? 2 : 1;
  if (diagonal.unknown_rank() || diagonal.rank() < band_rank ||
      !k.has_value()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out;
  for (int d = 0; d + band_rank < diagonal.rank(); ++d) {
    out.AddDim(diagonal.dim(d));
  }
  const int64_t len = diagonal.dim(diagonal.rank() - 1);
  // Sizes fed at run time stay unknown (-1); -1 given means "fit".
  const std::optional<int64_t> given_rows = KnownScalar(c, 2);
  const std::optional<int64_t> given_cols = KnownScalar(c, 3);
  int64_t rows = given_rows.value_or(-1), cols = given_cols.value_or(-1);
  if (len >= 0 && given_rows.has_value() && given_cols.has_value()) {
    const int64_t min_rows = len - std::min<int64_t>(k->hi, 0);
    const int64_t min_cols = len + std::max<int64_t>(k->lo, 0);
    if (rows < 0 && cols < 0) {  // square, as the kernel makes them
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows < 0) {
      rows = min_rows;
    } else if (cols < 0) {
      cols = min_cols;
    }
  }
  out.AddDim(rows);
  out.AddDim(cols);
  c->set_output(0, out);
  return absl::OkStatus();
}

// [..., num_diags (bands only), longest diagonal of the band].
absl::Status MatrixDiagPartShape(InferenceContext* c) {
  const TensorShape& input = c->input(0);
  const std::optional<Band> k = KnownBand(c, 1);
  if (input.unknown_rank() || input.rank() < 2 || !k.has_value()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out;
  for (int d = 0; d + 2 < input.rank(); ++d) out.AddDim(input.dim(d));
  if (k->many()) out.AddDim(k->hi - k->lo + 1);
  const int64_t m = input.dim(input.rank() - 2),
                n = input.dim(input.rank() - 1);
  out.AddDim(
      m < 0 || n < 0
          ? -1
          : std::max<int64_t>(0, std::min(m + std::min<int64_t>(0, k->hi),
                                          n - std::max<int64_t>(0, k->lo))));
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("MatrixDiagV3")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'")
    .SetShapeFn(MatrixDiagShape)
    .Doc(
        "Matrices with `diagonal` on their k-th diagonal and padding_value "
        "elsewhere (num_rows/num_cols -1: the smallest that fit).");

DFLOW_REGISTER_OP("MatrixDiagPartV3")
    .Input("input: T")
    .Input("k: int32")
    .Input("padding_value: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'")
    .SetShapeFn(MatrixDiagPartShape)
    .Doc("The k-th diagonal of each innermost matrix of `input`.");

// The V2 ops of TensorFlow 2.1-2.2's graphs: V3's inputs, their band
// packed LEFT_LEFT (V3's align attr came later).
DFLOW_REGISTER_OP("MatrixDiagV2")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagShape)
    .Doc("MatrixDiagV3 with align LEFT_LEFT.");

DFLOW_REGISTER_OP("MatrixDiagPartV2")
    .Input("input: T")
    .Input("k: int32")
    .Input("padding_value: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagPartShape)
    .Doc("MatrixDiagPartV3 with align LEFT_LEFT.");

namespace ops {

Output MatrixDiagV2(const Scope& scope, Input diagonal, Input k, Input num_rows,
                    Input num_cols, Input padding_value) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "MatrixDiagV2")
                                        .Input(diagonal)
                                        .Input(k)
                                        .Input(num_rows)
                                        .Input(num_cols)
                                        .Input(padding_value)
                                        .Finalize());
}

Output MatrixDiagPartV2(const Scope& scope, Input input, Input k,
                        Input padding_value) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "MatrixDiagPartV2")
                                        .Input(input)
                                        .Input(k)
                                        .Input(padding_value)
                                        .Finalize());
}

Output MatrixDiagV3(const Scope& scope, Input diagonal, Input k, Input num_rows,
                    Input num_cols, Input padding_value) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "MatrixDiagV3")
                                        .Input(diagonal)
                                        .Input(k)
                                        .Input(num_rows)
                                        .Input(num_cols)
                                        .Input(padding_value)
                                        .Finalize());
}

Output MatrixDiagPartV3(const Scope& scope, Input input, Input k,
                        Input padding_value) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "MatrixDiagPartV3")
                                        .Input(input)
                                        .Input(k)
                                        .Input(padding_value)
                                        .Finalize());
}

}  // namespace ops
}  // namespace dflow
