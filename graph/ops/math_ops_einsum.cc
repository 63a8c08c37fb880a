// Schema, shape function and wrapper of Einsum (TensorFlow 2.21's
// core/ops/linalg_ops.cc OpDef): tf.einsum's products, sums, transposes and
// diagonals of one or two operands. Part of the math_ops family
// (graph/ops/math_ops.h); the CPU kernel is kernels/cpu/matmul_einsum.cc,
// the equation parser graph/einsum_equation.h.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/einsum_equation.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;

// Each output label's size: the one its inputs agree on (an ellipsis
// dimension of size 1 broadcasts), unknown where every input's is.
absl::Status EinsumShape(InferenceContext* c) {
  std::string equation;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  std::vector<int> ranks;
  for (int i = 0; i < c->num_inputs(); ++i) {
    ranks.push_back(c->input(i).unknown_rank() ? -1 : c->input(i).rank());
  }
  absl::StatusOr<EinsumEquation> parsed = ParseEinsumEquation(equation, ranks);
  if (!parsed.ok()) {
    // Unknown ranks under an ellipsis: the output's rank is unknown too.
    const bool unknown = std::count(ranks.begin(), ranks.end(), -1) > 0;
    if (unknown && EinsumHasEllipsis(equation)) {
      c->set_output(0, TensorShape::Unknown());
      return absl::OkStatus();
    }
    return parsed.status();
  }
  constexpr int64_t kUnset = -2;
  std::vector<int64_t> sizes(kFirstEllipsisLabel + 64, kUnset);
  for (size_t i = 0; i < parsed->inputs.size(); ++i) {
    const TensorShape& shape = c->input(static_cast<int>(i));
    if (shape.unknown_rank()) continue;
    const std::vector<int>& labels = parsed->inputs[i];
    for (size_t d = 0; d < labels.size(); ++d) {
      const int label = labels[d];
      if (label >= static_cast<int>(sizes.size())) continue;
      const int64_t size = shape.dim(static_cast<int>(d));
      int64_t& known = sizes[label];
      if (size == TensorShape::kUnknownDim) continue;
      if (known == kUnset || known == TensorShape::kUnknownDim ||
          (known == 1 && label >= kFirstEllipsisLabel)) {
        known = size;
      } else if (known != size &&
                 !(size == 1 && label >= kFirstEllipsisLabel)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Einsum equation '", equation, "': dimension ", d, " of input ", i,
            " is ", size, " but another use of its label is ", known,
            "; dimensions with one label must be equal"));
      }
    }
  }
  TensorShape out;
  for (int label : parsed->output) {
    const int64_t size =
        label < static_cast<int>(sizes.size()) ? sizes[label] : kUnset;
    out.AddDim(size == kUnset ? TensorShape::kUnknownDim : size);
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("Einsum")
    .Input("inputs: N * T")
    .Output("output: T")
    .Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(EinsumShape)
    .Doc(
        "The Einstein summation of the inputs the equation describes, e.g. "
        "'ij,jk->ik' (a matrix product), 'bij->bji', 'ii->i'.");

}  // namespace

namespace ops {

Output Einsum(const Scope& scope, InputList inputs,
              const std::string& equation) {
  return FirstOutput(OpBuilder(scope, "Einsum")
                         .InputList(inputs)
                         .Attr("equation", equation)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
