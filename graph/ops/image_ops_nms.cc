// Schemas, shape functions and wrappers of the non-maximum suppression ops
// (image_ops.h): NonMaxSuppression V1 to V5, NonMaxSuppressionWithOverlaps
// and CombinedNonMaxSuppression, following TensorFlow 2.21's
// core/ops/image_ops.cc. The CPU kernels are kernels/cpu/image_ops_nms.cc.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/image_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::Build;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// Inputs 2.. `last` are scalars (max_output_size and the thresholds).
absl::Status ScalarInputs(InferenceContext* c, int first, int last) {
  TensorShape s;
  for (int i = first; i <= last; ++i) {
    DFLOW_RETURN_IF_ERROR(InputWithRank(*c, i, 0, &s));
  }
  return absl::OkStatus();
}

// boxes [num_boxes, 4] (or overlaps [num_boxes, num_boxes]) and scores
// [num_boxes].
absl::Status BoxesAndScores(InferenceContext* c, bool overlaps) {
  TensorShape boxes, scores;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 2, &boxes));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &scores));
  int64_t n = kUnknown;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(boxes.dim(0), scores.dim(0),
                                    "num_boxes of boxes and scores", &n));
  if (overlaps) {
    return c->MergeDim(boxes.dim(0), boxes.dim(1),
                       "the rows and columns of overlaps", &n);
  }
  if (boxes.dim(1) != kUnknown && boxes.dim(1) != 4) {
    return InvalidArgument("boxes ", boxes.ToString(),
                           " must be [num_boxes, 4]");
  }
  return absl::OkStatus();
}

// [?] selected indices: how many survive is known only at run time.
absl::Status NmsShape(InferenceContext* c, int last_scalar, bool overlaps) {
  DFLOW_RETURN_IF_ERROR(BoxesAndScores(c, overlaps));
  DFLOW_RETURN_IF_ERROR(ScalarInputs(c, 2, last_scalar));
  c->set_output(0, TensorShape({kUnknown}));
  return absl::OkStatus();
}

// V4 and V5: padded outputs have max_output_size entries when it is known;
// the last output is the scalar count of valid ones.
absl::Status PaddedNmsShape(InferenceContext* c, int last_scalar) {
  DFLOW_RETURN_IF_ERROR(NmsShape(c, last_scalar, false));
  bool pad = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("pad_to_max_output_size", &pad));
  int64_t n = kUnknown;
  std::vector<int64_t> size;
  if (pad && c->ConstantInputAsInts(2, &size) && size.size() == 1) {
    if (size[0] < 0) {
      return InvalidArgument("max_output_size ", size[0],
                             " must be non-negative");
    }
    n = size[0];
  }
  for (int i = 0; i + 1 < c->num_outputs(); ++i) {
    c->set_output(i, TensorShape({n}));
  }
  c->set_output(c->num_outputs() - 1, TensorShape({}));
  return absl::OkStatus();
}

// boxes [batch, num_boxes, q, 4], scores [batch, num_boxes, classes]:
// nmsed_boxes [batch, total, 4], scores and classes [batch, total],
// valid_detections [batch]; `total` is max_total_size, or with
// pad_per_class the smaller of it and max_size_per_class * classes.
absl::Status CombinedNmsShape(InferenceContext* c) {
  TensorShape boxes, scores;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &boxes));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 3, &scores));
  DFLOW_RETURN_IF_ERROR(ScalarInputs(c, 2, 5));
  int64_t batch = kUnknown, n = kUnknown;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(boxes.dim(0), scores.dim(0),
                                    "batch of boxes and scores", &batch));
  DFLOW_RETURN_IF_ERROR(c->MergeDim(boxes.dim(1), scores.dim(1),
                                    "num_boxes of boxes and scores", &n));
  if (boxes.dim(3) != kUnknown && boxes.dim(3) != 4) {
    return InvalidArgument("boxes ", boxes.ToString(),
                           " must be [batch, num_boxes, q, 4]");
  }
  const int64_t q = boxes.dim(2), classes = scores.dim(2);
  if (q != kUnknown && classes != kUnknown && q != 1 && q != classes) {
    return InvalidArgument("the third dimension of boxes ", boxes.ToString(),
                           " must be 1 or the ", classes, " classes");
  }
  bool pad_per_class = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("pad_per_class", &pad_per_class));
  std::vector<int64_t> per_class, total;
  int64_t out = kUnknown;
  if (c->ConstantInputAsInts(3, &total) && total.size() == 1) {
    if (total[0] <= 0) {
      return InvalidArgument("max_total_size ", total[0], " must be > 0");
    }
    if (!pad_per_class) {
      out = total[0];
    } else if (c->ConstantInputAsInts(2, &per_class) &&
               per_class.size() == 1 && classes != kUnknown) {
      int64_t all = 0;
      out = __builtin_mul_overflow(per_class[0], classes, &all)
                ? total[0]
                : std::min(total[0], all);
    }
  }
  c->set_output(0, TensorShape({batch, out, 4}));
  c->set_output(1, TensorShape({batch, out}));
  c->set_output(2, TensorShape({batch, out}));
  c->set_output(3, TensorShape({batch}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("NonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size: int32")
    .Output("selected_indices: int32")
    .Attr("iou_threshold: float = 0.5")
    .SetShapeFn([](InferenceContext* c) { return NmsShape(c, 2, false); })
    .Doc(
        "Indices of the boxes greedy non-maximum suppression keeps, by "
        "descending score.");

DFLOW_REGISTER_OP("NonMaxSuppressionV2")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = float")
    .Attr("T_threshold: {half, float} = float")
    .SetShapeFn([](InferenceContext* c) { return NmsShape(c, 3, false); })
    .Doc("NonMaxSuppression with the IOU threshold as an input.");

DFLOW_REGISTER_OP("NonMaxSuppressionV3")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = float")
    .Attr("T_threshold: {half, float} = float")
    .SetShapeFn([](InferenceContext* c) { return NmsShape(c, 4, false); })
    .Doc("NonMaxSuppressionV2 skipping boxes scored <= score_threshold.");

DFLOW_REGISTER_OP("NonMaxSuppressionV4")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = float")
    .Attr("T_threshold: {half, float} = float")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) { return PaddedNmsShape(c, 4); })
    .Doc(
        "NonMaxSuppressionV3, optionally padded with zeros to "
        "max_output_size, and the number of valid indices.");

DFLOW_REGISTER_OP("NonMaxSuppressionV5")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T")
    .Input("score_threshold: T")
    .Input("soft_nms_sigma: T")
    .Output("selected_indices: int32")
    .Output("selected_scores: T")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = float")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) { return PaddedNmsShape(c, 5); })
    .Doc(
        "NonMaxSuppressionV4 with soft-NMS (Gaussian score decay when "
        "soft_nms_sigma > 0) and the selected boxes' scores.");

DFLOW_REGISTER_OP("NonMaxSuppressionWithOverlaps")
    .Input("overlaps: float")
    .Input("scores: float")
    .Input("max_output_size: int32")
    .Input("overlap_threshold: float")
    .Input("score_threshold: float")
    .Output("selected_indices: int32")
    .SetShapeFn([](InferenceContext* c) { return NmsShape(c, 4, true); })
    .Doc("NonMaxSuppressionV3 on a given [n, n] overlap matrix.");

DFLOW_REGISTER_OP("CombinedNonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size_per_class: int32")
    .Input("max_total_size: int32")
    .Input("iou_threshold: float")
    .Input("score_threshold: float")
    .Output("nmsed_boxes: float")
    .Output("nmsed_scores: float")
    .Output("nmsed_classes: float")
    .Output("valid_detections: int32")
    .Attr("pad_per_class: bool = false")
    .Attr("clip_boxes: bool = true")
    .SetShapeFn(CombinedNmsShape)
    .Doc(
        "Per-class non-maximum suppression over a batch, the survivors of "
        "all classes merged by score.");

namespace ops {

Output NonMaxSuppression(const Scope& scope, Input boxes, Input scores,
                         Input max_output_size, float iou_threshold) {
  return FirstOutput(Build(scope, "NonMaxSuppression",
                           {boxes, scores, max_output_size},
                           {{"iou_threshold", MakeAttr(iou_threshold)}}));
}

Output NonMaxSuppressionV2(const Scope& scope, Input boxes, Input scores,
                           Input max_output_size, Input iou_threshold) {
  return FirstOutput(Build(scope, "NonMaxSuppressionV2",
                           {boxes, scores, max_output_size, iou_threshold}));
}

Output NonMaxSuppressionV3(const Scope& scope, Input boxes, Input scores,
                           Input max_output_size, Input iou_threshold,
                           Input score_threshold) {
  return FirstOutput(Build(
      scope, "NonMaxSuppressionV3",
      {boxes, scores, max_output_size, iou_threshold, score_threshold}));
}

OutputList NonMaxSuppressionV4(const Scope& scope, Input boxes, Input scores,
                               Input max_output_size, Input iou_threshold,
                               Input score_threshold, bool pad) {
  return AllOutputs(
      Build(scope, "NonMaxSuppressionV4",
            {boxes, scores, max_output_size, iou_threshold, score_threshold},
            {{"pad_to_max_output_size", MakeAttr(pad)}}),
      2);
}

OutputList NonMaxSuppressionV5(const Scope& scope, Input boxes, Input scores,
                               Input max_output_size, Input iou_threshold,
                               Input score_threshold, Input soft_nms_sigma,
                               bool pad) {
  return AllOutputs(Build(scope, "NonMaxSuppressionV5",
                          {boxes, scores, max_output_size, iou_threshold,
                           score_threshold, soft_nms_sigma},
                          {{"pad_to_max_output_size", MakeAttr(pad)}}),
                    3);
}

Output NonMaxSuppressionWithOverlaps(const Scope& scope, Input overlaps,
                                     Input scores, Input max_output_size,
                                     Input overlap_threshold,
                                     Input score_threshold) {
  return FirstOutput(Build(
      scope, "NonMaxSuppressionWithOverlaps",
      {overlaps, scores, max_output_size, overlap_threshold, score_threshold}));
}

OutputList CombinedNonMaxSuppression(const Scope& scope, Input boxes,
                                     Input scores, Input max_per_class,
                                     Input max_total_size, Input iou_threshold,
                                     Input score_threshold, bool pad_per_class,
                                     bool clip_boxes) {
  return AllOutputs(
      Build(scope, "CombinedNonMaxSuppression",
            {boxes, scores, max_per_class, max_total_size, iou_threshold,
             score_threshold},
            {{"pad_per_class", MakeAttr(pad_per_class)},
             {"clip_boxes", MakeAttr(clip_boxes)}}),
      4);
}

}  // namespace ops
}  // namespace dflow
