#include "kernels/gpu/gpu_shape_plans.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dflow {

std::string ShapeString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

namespace {

// Operand k's size along output dimension i of a rank-`rank` broadcast
// (shapes aligned at their last dimension, leading 1s).
int64_t AlignedDim(const std::vector<int64_t>& shape, int rank, int i) {
  const int pad = rank - static_cast<int>(shape.size());
  return i < pad ? 1 : shape[i - pad];
}

absl::Status Incompatible(absl::Span<const std::vector<int64_t>> shapes,
                          int rank, int i) {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  for (const std::vector<int64_t>& s : shapes) {
    names.push_back(ShapeString(s));
    sizes.push_back(AlignedDim(s, rank, i));
  }
  if (shapes.size() == 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Incompatible shapes: ", names[0], " vs. ", names[1],
        " (output dimension ", i, " is ", sizes[0], " in the first and ",
        sizes[1], " in the second; broadcast sizes must be equal or 1)"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Incompatible shapes: ", absl::StrJoin(names, " vs. "),
      " (output dimension ", i, " is ", absl::StrJoin(sizes, ", "),
      " in the operands in order; broadcast sizes must be equal or 1)"));
}

}  // namespace

absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(
    absl::Span<const std::vector<int64_t>> shapes,
    std::vector<int64_t>* output_shape) {
  const int n = static_cast<int>(shapes.size());
  if (n < 1 || n > kGpuMaxOperands) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MakeBroadcastPlan takes 1 to ", kGpuMaxOperands, " shapes, got ", n));
  }
  int rank = 0;
  for (const std::vector<int64_t>& s : shapes) {
    rank = std::max(rank, static_cast<int>(s.size()));
    for (int64_t d : s) {
      if (d < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Broadcasting needs fully defined shapes, got ", ShapeString(s)));
      }
    }
  }
  output_shape->clear();
  std::vector<int64_t> dims;
  std::vector<unsigned> repeats;  // per collapsed dim: operands of size 1
  for (int i = 0; i < rank; ++i) {
    int64_t out = 1;
    for (const std::vector<int64_t>& s : shapes) {
      const int64_t d = AlignedDim(s, rank, i);
      if (d == 1) continue;
      if (out == 1) {
        out = d;
      } else if (d != out) {
        return Incompatible(shapes, rank, i);
      }
    }
    output_shape->push_back(out);
    if (out == 1) continue;
    unsigned mask = 0;
    for (int k = 0; k < n; ++k) {
      if (AlignedDim(shapes[k], rank, i) == 1) mask |= 1u << k;
    }
    if (!repeats.empty() && repeats.back() == mask) {
      dims.back() *= out;
    } else {
      dims.push_back(out);
      repeats.push_back(mask);
    }
  }
  if (dims.empty()) {
    // Every operand holds one element.
    dims.push_back(1);
    repeats.push_back((1u << n) - 1);
  }
  if (static_cast<int>(dims.size()) > kGpuMaxRank) {
    return absl::UnimplementedError(absl::StrCat(
        "the GPU kernels broadcast at most ", kGpuMaxRank,
        " dimensions after merging neighbours that broadcast alike; these "
        "shapes need ",
        dims.size(), ": ",
        absl::StrJoin(shapes, " vs. ",
                      [](std::string* out, const std::vector<int64_t>& s) {
                        out->append(ShapeString(s));
                      }),
        "; reshape the operands to fewer dimensions"));
  }
  BroadcastPlan p;
  p.rank = static_cast<int>(dims.size());
  p.num_operands = n;
  p.num_elements = 1;
  for (int d = 0; d < p.rank; ++d) {
    p.dims[d] = dims[d];
    p.num_elements *= dims[d];
  }
  for (int k = 0; k < n; ++k) {
    int64_t stride = 1;
    bool repeats_somewhere = false;
    for (int d = p.rank - 1; d >= 0; --d) {
      if (repeats[d] & (1u << k)) {
        p.strides[k][d] = 0;
        repeats_somewhere = repeats_somewhere || dims[d] != 1;
      } else {
        p.strides[k][d] = stride;
        stride *= dims[d];
      }
    }
    int64_t elements = 1;
    for (int64_t d : shapes[k]) elements *= d;
    p.scalar[k] = elements == 1;
    p.same[k] = !repeats_somewhere;
  }
  return p;
}

ReducePlan MakeReducePlanFromMask(absl::Span<const int64_t> shape,
                                  const std::vector<bool>& reduce) {
  ReducePlan p;
  p.in_elements = 1;
  p.out_elements = 1;
  p.reduce_count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t d = shape[i];
    p.in_elements *= d;
    if (reduce[i]) {
      p.reduce_count *= d;
      p.output_shape_keep_dims.push_back(1);
    } else {
      p.out_elements *= d;
      p.output_shape.push_back(d);
      p.output_shape_keep_dims.push_back(d);
    }
    if (d == 1) continue;
    if (!p.run_dims.empty() && p.run_reduced.back() == reduce[i]) {
      p.run_dims.back() *= d;
    } else {
      p.run_dims.push_back(d);
      p.run_reduced.push_back(reduce[i]);
    }
  }
  if (p.run_dims.empty()) {
    p.run_dims.push_back(1);
    p.run_reduced.push_back(false);
  }
  return p;
}

absl::StatusOr<ReducePlan> MakeReducePlan(absl::Span<const int64_t> shape,
                                          absl::Span<const int64_t> axes) {
  const int rank = static_cast<int>(shape.size());
  std::vector<bool> mask(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid reduction dimension (", axis, " for input with ", rank,
          " dimension(s)): input shape ", ShapeString(shape),
          ", axes must be in [", -rank, ", ", rank, ")"));
    }
    const int64_t d = axis < 0 ? axis + rank : axis;
    if (mask[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid reduction arguments: Axes contains duplicate dimension: ",
          d));
    }
    mask[d] = true;
  }
  return MakeReducePlanFromMask(shape, mask);
}

ReduceSchedule PlanReducePasses(const ReducePlan& plan) {
  std::vector<int64_t> dims = plan.run_dims;
  std::vector<bool> reduced = plan.run_reduced;
  ReduceSchedule s;
  while (true) {
    int j = -1;
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
      if (reduced[i]) {
        j = i;
        break;
      }
    }
    if (j < 0) break;
    ReducePass pass;
    for (int i = 0; i < j; ++i) pass.outer *= dims[i];
    for (int i = j + 1; i < static_cast<int>(dims.size()); ++i) {
      pass.inner *= dims[i];
    }
    const int64_t limit =
        pass.inner == 1 ? kReduceRowChunk : kReduceColumnChunk;
    int64_t r = dims[j];
    while (r > limit) {
      // A partial pass: chunks of `limit`, combined by the next pass.
      pass.reduce = r;
      pass.chunk = limit;
      s.passes.push_back(pass);
      r = pass.chunks();
    }
    pass.reduce = r;
    pass.chunk = r;
    s.passes.push_back(pass);
    dims.erase(dims.begin() + j);
    reduced.erase(reduced.begin() + j);
  }
  const int n = static_cast<int>(s.passes.size());
  for (int k = 0; k < n; ++k) {
    ReducePass& p = s.passes[k];
    p.src = k == 0 ? ReducePass::kInput : s.passes[k - 1].dst;
    if (k == n - 1) {
      p.dst = ReducePass::kOutput;
    } else {
      const int ws = k % 2;
      p.dst = ws == 0 ? ReducePass::kWorkspace0 : ReducePass::kWorkspace1;
      s.workspace_elements[ws] =
          std::max(s.workspace_elements[ws], p.outer * p.chunks() * p.inner);
    }
  }
  return s;
}

absl::StatusOr<XentPlan> MakeXentPlan(absl::Span<const int64_t> logits,
                                      absl::Span<const int64_t> labels) {
  std::vector<int64_t> shape(logits.begin(), logits.end());
  const bool same =
      std::equal(logits.begin(), logits.end(), labels.begin(), labels.end());
  if (!same) {
    std::vector<std::vector<int64_t>> shapes = {
        std::vector<int64_t>(logits.begin(), logits.end()),
        std::vector<int64_t>(labels.begin(), labels.end())};
    absl::StatusOr<BroadcastPlan> b = MakeBroadcastPlan(shapes, &shape);
    if (!b.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logits and labels must be broadcastable: logits_size=",
          ShapeString(logits), " labels_size=", ShapeString(labels)));
    }
  }
  if (shape.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "logits and labels must be either 2-dimensional, or broadcasted to "
        "be 2-dimensional: logits_size=",
        ShapeString(logits), " labels_size=", ShapeString(labels)));
  }
  XentPlan p;
  p.rows = shape[0];
  p.classes = shape[1];
  auto strides = [](absl::Span<const int64_t> s, int64_t* row, int64_t* col) {
    const int64_t d0 = s.size() == 2 ? s[0] : 1;
    const int64_t d1 = s.empty() ? 1 : s.back();
    *row = d0 == 1 ? 0 : d1;
    *col = d1 == 1 ? 0 : 1;
  };
  strides(logits, &p.logits_row_stride, &p.logits_col_stride);
  strides(labels, &p.labels_row_stride, &p.labels_col_stride);
  return p;
}

}  // namespace dflow
