#include "graph/ops/shape_ops.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::CanonicalAxis;
using shape_fn_util::CheckRank;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputAsPartialShape;
using shape_fn_util::Ints;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// --- Shapes. ---

absl::Status ReshapeShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape shape_arg, out;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'shape'", &shape_arg));
  DFLOW_RETURN_IF_ERROR(CheckRank(shape_arg.dim(0), "input 'shape'"));
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(1, &out));
  std::vector<int64_t> literal;
  if (c->ConstantInputAsInts(1, &literal) &&
      std::count(literal.begin(), literal.end(), -1) > 1) {
    return InvalidArgument("the target shape ", Ints(literal),
                           " has more than one -1; only one dimension can be "
                           "inferred");
  }
  if (!RankKnown(out) || !RankKnown(in)) {
    c->set_output(0, out);
    return absl::OkStatus();
  }
  // Product of the known dims and the index of the one unknown dim (-1 if
  // none, -2 if several).
  auto known_product = [](const TensorShape& s, int64_t* product) {
    int unknown = -1;
    *product = 1;
    for (int i = 0; i < s.rank(); ++i) {
      if (s.dim(i) < 0) {
        unknown = unknown == -1 ? i : -2;
      } else if (__builtin_mul_overflow(*product, s.dim(i), product)) {
        return -2;
      }
    }
    return unknown;
  };
  int64_t in_known = 1, out_known = 1;
  const int in_unknown = known_product(in, &in_known);
  const int out_unknown = known_product(out, &out_known);
  const std::string shapes =
      absl::StrCat(in.ToString(), " to shape ", out.ToString());
  if (in_unknown == -1 && out_unknown == -1 && in_known != out_known) {
    return InvalidArgument("cannot reshape a tensor of shape ", shapes, ": ",
                           in_known, " elements vs ", out_known);
  }
  if (in_unknown == -1 && out_unknown >= 0 && out_known > 0) {
    if (in_known % out_known != 0) {
      return InvalidArgument("cannot reshape a tensor of shape ", shapes, ": ",
                             in_known, " elements are not divisible by ",
                             out_known);
    }
    out.set_dim(out_unknown, in_known / out_known);
  } else if (in_unknown >= 0 && out_unknown == -1 && in_known > 0 &&
             out_known % in_known != 0) {
    return InvalidArgument("cannot reshape a tensor of shape ", shapes, ": ",
                           out_known, " elements are not a multiple of ",
                           in_known);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ShapeShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  c->set_output(0, TensorShape({RankKnown(in) ? in.rank() : -1}));
  if (RankKnown(in)) c->set_output_shape_value(0, in);
  return absl::OkStatus();
}

absl::Status ExpandDimsShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  std::vector<int64_t> dim;
  if (!c->ConstantInputAsInts(1, &dim)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (dim.size() != 1) {
    return InvalidArgument("input 'dim' must hold a single value, got ",
                           Ints(dim));
  }
  if (!RankKnown(in)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  int64_t axis;
  DFLOW_RETURN_IF_ERROR(CanonicalAxis(dim[0], in.rank() + 1, "dim", in, &axis));
  TensorShape out = in;
  out.InsertDim(static_cast<int>(axis), 1);
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status SqueezeShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  if (!RankKnown(in)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> squeeze_dims;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  std::vector<bool> remove(in.rank(), false);
  for (int64_t d : squeeze_dims) {
    int64_t axis;
    DFLOW_RETURN_IF_ERROR(
        CanonicalAxis(d, in.rank(), "squeeze dim", in, &axis));
    if (in.dim(axis) != 1 && in.dim(axis) != -1) {
      return InvalidArgument("cannot squeeze dimension ", d, " of shape ",
                             in.ToString(), ": its size is ", in.dim(axis),
                             ", not 1");
    }
    remove[axis] = true;
  }
  TensorShape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (squeeze_dims.empty()) {
      // Unknown dims might be 1: the result's rank is unknown.
      if (in.dim(i) == -1) {
        c->set_output(0, TensorShape::Unknown());
        return absl::OkStatus();
      }
      if (in.dim(i) == 1) continue;
    } else if (remove[i]) {
      continue;
    }
    out.AddDim(in.dim(i));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status TransposeShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape perm_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'perm'", &perm_shape));
  std::vector<int64_t> perm;
  const bool perm_known = c->ConstantInputAsInts(1, &perm);
  int64_t rank = RankKnown(in) ? in.rank() : perm_shape.dim(0);
  if (perm_known) {
    if (rank >= 0 && rank != static_cast<int64_t>(perm.size())) {
      return InvalidArgument("perm ", Ints(perm), " has ", perm.size(),
                             " entries but the input ", in.ToString(),
                             " has rank ", rank);
    }
    rank = static_cast<int64_t>(perm.size());
  } else if (perm_shape.dim(0) >= 0 && rank != perm_shape.dim(0)) {
    return InvalidArgument("perm of shape ", perm_shape.ToString(),
                           " does not fit the input ", in.ToString(),
                           " of rank ", rank);
  }
  if (rank < 0) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  DFLOW_RETURN_IF_ERROR(CheckRank(rank, "perm"));
  if (!perm_known) {
    // If all dims are the same, the permutation does not matter.
    bool all_same = RankKnown(in) && in.rank() > 0 && in.dim(0) >= 0;
    for (int i = 1; all_same && i < in.rank(); ++i) {
      all_same = in.dim(i) == in.dim(0);
    }
    c->set_output(
        0,
        all_same ? in : TensorShape::UnknownWithRank(static_cast<int>(rank)));
    return absl::OkStatus();
  }
  std::vector<bool> seen(rank, false);
  TensorShape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return InvalidArgument("perm ", Ints(perm),
                             " is not a permutation of 0..", rank - 1,
                             " (input shape ", in.ToString(), ")");
    }
    seen[p] = true;
    out.AddDim(RankKnown(in) ? in.dim(static_cast<int>(p)) : -1);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// --- Gradient helpers. ---

absl::Status BroadcastGradientArgsShape(InferenceContext* c) {
  TensorShape s0, s1;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 's0'", &s0));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "input 's1'", &s1));
  TensorShape x, y;
  if (!InputAsPartialShape(c, 0, &x) || !InputAsPartialShape(c, 1, &y) ||
      !x.IsFullyDefined() || !y.IsFullyDefined()) {
    c->set_output(0, TensorShape({-1}));
    c->set_output(1, TensorShape({-1}));
    return absl::OkStatus();
  }
  // An input is summed over every output axis where its (1-padded) size
  // is 1.
  const int rank = std::max(x.rank(), y.rank());
  int64_t r0 = 0, r1 = 0;
  for (int i = 0; i < rank; ++i) {
    const int64_t a = i < rank - x.rank() ? 1 : x.dim(i - (rank - x.rank()));
    const int64_t b = i < rank - y.rank() ? 1 : y.dim(i - (rank - y.rank()));
    if (a != b && a != 1 && b != 1) {
      return InvalidArgument("incompatible shapes for broadcasting: ",
                             x.ToString(), " and ", y.ToString());
    }
    r0 += a == 1;
    r1 += b == 1;
  }
  c->set_output(0, TensorShape({r0}));
  c->set_output(1, TensorShape({r1}));
  return absl::OkStatus();
}

absl::Status InvertPermutationShape(InferenceContext* c) {
  TensorShape x;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 'x'", &x));
  c->set_output(0, x);
  return absl::OkStatus();
}

absl::Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, TensorShape());
  return absl::OkStatus();
}

absl::Status ShapeNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    const TensorShape& in = c->input(i);
    c->set_output(i, TensorShape({RankKnown(in) ? in.rank() : -1}));
    if (RankKnown(in)) c->set_output_shape_value(i, in);
  }
  return absl::OkStatus();
}

// The target shape; the input must broadcast to it (NumPy's rules, the
// target winning every dimension).
absl::Status BroadcastToShape(InferenceContext* c) {
  TensorShape shape_arg, out;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'shape'", &shape_arg));
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(1, &out));
  const TensorShape& in = c->input(0);
  if (RankKnown(in) && RankKnown(out)) {
    if (in.rank() > out.rank()) {
      return InvalidArgument("cannot broadcast a tensor of shape ",
                             in.ToString(), " to the lower-rank shape ",
                             out.ToString());
    }
    const int offset = out.rank() - in.rank();
    for (int i = 0; i < in.rank(); ++i) {
      const int64_t d = in.dim(i), t = out.dim(offset + i);
      if (d >= 0 && t >= 0 && d != 1 && d != t) {
        return InvalidArgument("cannot broadcast a tensor of shape ",
                               in.ToString(), " to shape ", out.ToString(),
                               ": dimension ", i, " is ", d, ", expected 1 or ",
                               t);
      }
      if (t < 0 && d > 1) out.set_dim(offset + i, d);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

// --- Registrations (TensorFlow's schemas). ---

DFLOW_REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(ReshapeShape)
    .Doc("The elements of `tensor` in shape `shape` (one entry may be -1).");

DFLOW_REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape)
    .Doc("The shape of `input`.");

DFLOW_REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ScalarOutput)
    .Doc("The number of elements of `input`.");

DFLOW_REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(ScalarOutput)
    .Doc("The rank of `input`.");

DFLOW_REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape)
    .Doc("Inserts a dimension of size 1 at `dim`.");

DFLOW_REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape)
    .Doc("Removes dimensions of size 1.");

DFLOW_REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(TransposeShape)
    .Doc("Permutes the dimensions of `x`.");

DFLOW_REGISTER_OP("ConjugateTranspose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(TransposeShape)
    .Doc("Transpose of the complex conjugate of `x` (of x for real types).");

DFLOW_REGISTER_OP("ShapeN")
    .Input("input: N * T")
    .Output("output: N * out_type")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeNShape)
    .Doc("The shapes of N tensors, as 1-D integer tensors.");

DFLOW_REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastToShape)
    .Doc("Broadcasts input to shape (NumPy's rules).");

DFLOW_REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastGradientArgsShape)
    .Doc("The reduction axes for the gradients of a broadcasting binary op.");

DFLOW_REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InvertPermutationShape)
    .Doc("The inverse permutation of `x`: y[x[i]] = i.");

// --- Wrappers. ---

namespace ops {

Output Reshape(const Scope& scope, Input tensor, Input shape) {
  return FirstOutput(
      OpBuilder(scope, "Reshape").Input(tensor).Input(shape).Finalize());
}

Output Shape(const Scope& scope, Input input, const ShapeAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Shape")
                         .Input(input)
                         .Attr("out_type", attrs.out_type)
                         .Finalize());
}

Output Size(const Scope& scope, Input input, const SizeAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Size")
                         .Input(input)
                         .Attr("out_type", attrs.out_type)
                         .Finalize());
}

Output Rank(const Scope& scope, Input input) {
  return FirstOutput(OpBuilder(scope, "Rank").Input(input).Finalize());
}

Output ExpandDims(const Scope& scope, Input input, Input axis) {
  return FirstOutput(
      OpBuilder(scope, "ExpandDims").Input(input).Input(axis).Finalize());
}

Output Squeeze(const Scope& scope, Input input, const SqueezeAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Squeeze")
                         .Input(input)
                         .Attr("squeeze_dims", MakeAttr(absl::MakeConstSpan(
                                                   attrs.squeeze_dims)))
                         .Finalize());
}

Output Transpose(const Scope& scope, Input x, Input perm) {
  return FirstOutput(
      OpBuilder(scope, "Transpose").Input(x).Input(perm).Finalize());
}

Output ConjugateTranspose(const Scope& scope, Input x, Input perm) {
  return FirstOutput(
      OpBuilder(scope, "ConjugateTranspose").Input(x).Input(perm).Finalize());
}

BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& scope, Input s0,
                                                   Input s1) {
  OutputList out = AllOutputs(
      OpBuilder(scope, "BroadcastGradientArgs").Input(s0).Input(s1).Finalize(),
      2);
  return {out[0], out[1]};
}

OutputList ShapeN(const Scope& scope, absl::Span<const Output> input,
                  const ShapeAttrs& attrs) {
  return AllOutputs(OpBuilder(scope, "ShapeN")
                        .InputList(input)
                        .Attr("out_type", attrs.out_type)
                        .Finalize(),
                    static_cast<int>(input.size()));
}

Output BroadcastTo(const Scope& scope, Input input, Input shape) {
  return FirstOutput(
      OpBuilder(scope, "BroadcastTo").Input(input).Input(shape).Finalize());
}

Output InvertPermutation(const Scope& scope, Input x) {
  return FirstOutput(OpBuilder(scope, "InvertPermutation").Input(x).Finalize());
}

}  // namespace ops
}  // namespace dflow
