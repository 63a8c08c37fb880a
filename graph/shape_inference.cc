#include "graph/shape_inference.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace dflow {

InferenceContext::InferenceContext(const NodeDef& node, const OpDef& op_def,
                                   std::vector<DataType> input_types,
                                   std::vector<TensorShape> input_shapes,
                                   std::vector<const Tensor*> input_tensors,
                                   std::vector<TensorShape> input_shape_values,
                                   int num_outputs)
    : node_(node),
      op_def_(op_def),
      input_types_(std::move(input_types)),
      input_shapes_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)),
      input_shape_values_(std::move(input_shape_values)),
      output_shapes_(num_outputs, TensorShape::Unknown()),
      output_shape_values_(num_outputs, TensorShape::Unknown()) {
  input_tensors_.resize(input_shapes_.size(), nullptr);
  input_shape_values_.resize(input_shapes_.size(), TensorShape::Unknown());
}

absl::Status InferenceContext::WithRank(const TensorShape& shape, int rank,
                                        absl::string_view what,
                                        TensorShape* out) const {
  if (shape.unknown_rank()) {
    *out = TensorShape::UnknownWithRank(rank);
    return absl::OkStatus();
  }
  if (shape.rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must have rank ", rank, " but has shape ", shape.ToString()));
  }
  *out = shape;
  return absl::OkStatus();
}

absl::Status InferenceContext::WithRankAtLeast(const TensorShape& shape,
                                               int rank, absl::string_view what,
                                               TensorShape* out) const {
  if (!shape.unknown_rank() && shape.rank() < rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must have rank at least ", rank, " but has shape ",
                     shape.ToString()));
  }
  *out = shape;
  return absl::OkStatus();
}

absl::Status InferenceContext::MergeDim(int64_t a, int64_t b,
                                        absl::string_view what,
                                        int64_t* out) const {
  if (a >= 0 && b >= 0 && a != b) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": dimensions ", a, " and ", b, " must be equal"));
  }
  *out = a >= 0 ? a : b;
  return absl::OkStatus();
}

absl::Status InferenceContext::MergeShapes(const TensorShape& a,
                                           const TensorShape& b,
                                           absl::string_view what,
                                           TensorShape* out) const {
  absl::StatusOr<TensorShape> merged = a.Merge(b);
  if (!merged.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": shapes ", a.ToString(), " and ", b.ToString(),
                     " are incompatible"));
  }
  *out = *std::move(merged);
  return absl::OkStatus();
}

absl::Status InferenceContext::BroadcastShapes(const TensorShape& a,
                                               const TensorShape& b,
                                               TensorShape* out) const {
  if (a.unknown_rank() || b.unknown_rank()) {
    *out = TensorShape::Unknown();
    return absl::OkStatus();
  }
  const int rank = std::max(a.rank(), b.rank());
  TensorShape result = TensorShape::UnknownWithRank(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    int64_t d;
    if (da == 1) {
      d = db;
    } else if (db == 1) {
      d = da;
    } else if (da < 0 || db < 0) {
      // One is unknown and the other is not 1: the result is the known one
      // (a mismatch would be a run-time error), or unknown if both are.
      d = da >= 0 ? da : db;
    } else if (da == db) {
      d = da;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", a.ToString(), " and ", b.ToString(),
                       " cannot be broadcast: dimension ", da, " vs ", db,
                       " (dims must be equal or 1)"));
    }
    // Unknown broadcast against 1 stays unknown: d = db/da which may be -1.
    result.set_dim(i, d);
  }
  *out = std::move(result);
  return absl::OkStatus();
}

bool InferenceContext::ConstantInputAsInts(int i,
                                           std::vector<int64_t>* out) const {
  out->clear();
  const Tensor* t = input_tensor(i);
  if (t == nullptr) return false;
  if (t->dtype() == DT_INT32) {
    for (int32_t v : t->flat<int32_t>()) out->push_back(v);
  } else if (t->dtype() == DT_INT64) {
    for (int64_t v : t->flat<int64_t>()) out->push_back(v);
  } else {
    return false;
  }
  return true;
}

absl::Status InferenceContext::ShapeFromShapeTensor(int i,
                                                    TensorShape* out) const {
  std::vector<int64_t> values;
  if (ConstantInputAsInts(i, &values)) {
    if (input_tensor(i)->shape().rank() > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("a shape must be a vector, got a tensor of shape ",
                       input_tensor(i)->shape().ToString()));
    }
    TensorShape shape;
    for (int64_t v : values) {
      if (v < -1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a shape cannot have dimension ", v, " (only -1 means unknown)"));
      }
      shape.AddDim(v);
    }
    *out = std::move(shape);
    return absl::OkStatus();
  }
  if (input_shape_values_[i].rank() >= 0) {
    *out = input_shape_values_[i];
    return absl::OkStatus();
  }
  const TensorShape& s = input(i);
  // A shape vector longer than any real rank is bad input, not a shape.
  constexpr int64_t kMaxRank = 254;
  if (!s.unknown_rank() && s.rank() == 1 && s.dim(0) > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("a shape vector of length ", s.dim(0),
                     " exceeds the maximum rank ", kMaxRank));
  }
  if (!s.unknown_rank() && s.rank() == 1 && s.dim(0) >= 0) {
    *out = TensorShape::UnknownWithRank(static_cast<int>(s.dim(0)));
  } else {
    *out = TensorShape::Unknown();
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::PassThrough() {
  for (int i = 0; i < num_outputs() && i < num_inputs(); ++i) {
    set_output(i, input(i));
    set_output_shape_value(i, input_shape_values_[i]);
  }
  return absl::OkStatus();
}

namespace shape_fns {

absl::Status Unknown(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, TensorShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status ShapeFromAttr(InferenceContext* c) {
  TensorShape shape;
  if (absl::Status s = c->GetAttr("shape", &shape); !s.ok()) return s;
  c->set_output(0, shape);
  return absl::OkStatus();
}

absl::Status ScalarShape(InferenceContext* c) {
  c->set_output(0, TensorShape());
  return absl::OkStatus();
}

absl::Status BroadcastBinary(InferenceContext* c) {
  TensorShape out;
  if (auto s = c->BroadcastShapes(c->input(0), c->input(1), &out); !s.ok()) {
    return s;
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status AllInputsSameShape(InferenceContext* c) {
  TensorShape out = c->num_inputs() > 0 ? c->input(0) : TensorShape::Unknown();
  for (int i = 1; i < c->num_inputs(); ++i) {
    if (auto s = c->MergeShapes(
            out, c->input(i),
            absl::StrCat("input ", i, " vs inputs 0..", i - 1), &out);
        !s.ok()) {
      return s;
    }
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace shape_fns
}  // namespace dflow
