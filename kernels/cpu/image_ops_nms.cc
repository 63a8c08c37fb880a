// Non-maximum suppression on CPU with TensorFlow 2.21's selection order
// (core/kernels/image/non_max_suppression_op.cc), so the same boxes come
// out in the same order:
//  - NonMaxSuppression V1..V5 and WithOverlaps pop candidates from a heap
//    ordered by score, equal scores by lower index first, and compare each
//    with the boxes kept so far, newest first. The IOU is computed in float
//    from the boxes' corners (either diagonal), 0 for an empty box. Hard
//    NMS drops a candidate overlapping a kept box by more than the
//    threshold. Soft-NMS (V5, sigma > 0) multiplies its score by
//    exp(-0.5 / sigma * iou^2) for each kept box it has not yet met; a
//    candidate whose score changed goes back into the heap while it stays
//    above score_threshold. Scores and weights are in the boxes' type
//    (half rounds after each step, as Eigen::half does).
//  - CombinedNonMaxSuppression runs hard NMS per batch and class with a
//    score-only heap (std::priority_queue over a vector, as TensorFlow:
//    equal scores leave in the heap's order), writes the survivors into
//    per-class slots of one array, sorts it by descending score with
//    std::sort and keeps the best; boxes clipped to [0, 1] by default.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The IOU of boxes i and j of a [n, 4] array, in float.
template <typename T>
float Iou(const T* boxes, int64_t i, int64_t j) {
  const T* a = boxes + 4 * i;
  const T* b = boxes + 4 * j;
  auto f = [](T v) { return static_cast<float>(v); };
  const float ymin_i = std::min(f(a[0]), f(a[2]));
  const float xmin_i = std::min(f(a[1]), f(a[3]));
  const float ymax_i = std::max(f(a[0]), f(a[2]));
  const float xmax_i = std::max(f(a[1]), f(a[3]));
  const float ymin_j = std::min(f(b[0]), f(b[2]));
  const float xmin_j = std::min(f(b[1]), f(b[3]));
  const float ymax_j = std::max(f(b[0]), f(b[2]));
  const float xmax_j = std::max(f(b[1]), f(b[3]));
  const float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  const float iy = std::max(std::min(ymax_i, ymax_j) - std::max(ymin_i, ymin_j),
                            0.0f);
  const float ix = std::max(std::min(xmax_i, xmax_j) - std::max(xmin_i, xmin_j),
                            0.0f);
  const float inter = iy * ix;
  return inter / (area_i + area_j - inter);
}

absl::Status CheckScalar(const Tensor& t, const char* name) {
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be a scalar, but has shape ", t.shape().ToString()));
  }
  return absl::OkStatus();
}

// A float or half scalar as T.
template <typename T>
absl::Status ReadThreshold(const Tensor& t, const char* name, T* out) {
  if (absl::Status s = CheckScalar(t, name); !s.ok()) return s;
  if (t.dtype() == DT_FLOAT) {
    *out = static_cast<T>(t.data<float>()[0]);
  } else if (t.dtype() == DT_HALF) {
    *out = static_cast<T>(
        static_cast<float>(EigenData<float16>(t)[0]));
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be half or float, not ", DataTypeName(t.dtype())));
  }
  return absl::OkStatus();
}

// boxes [n, 4] (or overlaps [n, n]) and scores [n]; sets n.
absl::Status CheckBoxesAndScores(const Tensor& boxes, const Tensor& scores,
                                 bool overlaps, int64_t* n) {
  const TensorShape& bs = boxes.shape();
  if (bs.rank() != 2 || (!overlaps && bs.dim(1) != 4) ||
      (overlaps && bs.dim(0) != bs.dim(1))) {
    return absl::InvalidArgumentError(absl::StrCat(
        overlaps ? "overlaps must be a square [num_boxes, num_boxes] matrix"
                 : "boxes must be [num_boxes, 4]",
        ", but has shape ", bs.ToString()));
  }
  *n = bs.dim(0);
  if (scores.shape().rank() != 1 || scores.shape().dim(0) != *n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scores must be a vector of the ", *n, " boxes' scores, but has shape ",
        scores.shape().ToString()));
  }
  if (*n > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat(*n, " boxes are more than int32 indices can number"));
  }
  return absl::OkStatus();
}

template <typename T>
struct NmsResult {
  std::vector<int32_t> selected;
  std::vector<T> scores;
};

// The greedy (or soft) selection. `similarity(i, j)` is the IOU or given
// overlap of boxes i and j.
template <typename T>
NmsResult<T> SelectBoxes(const T* scores, int64_t n, int64_t max_output,
                         T threshold, T score_threshold, T sigma,
                         const std::function<float(int64_t, int64_t)>& sim) {
  struct Candidate {
    int64_t index;
    T score;
    int64_t suppress_begin;  // kept boxes before this one were already met
  };
  // Highest score on top; of equal scores the lower index.
  auto lower = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(lower)> heap(
      lower);
  for (int64_t i = 0; i < n; ++i) {
    if (scores[i] > score_threshold) heap.push({i, scores[i], 0});
  }
  const bool soft = sigma > static_cast<T>(0.0f);
  const T scale = soft ? static_cast<T>(-0.5f) / sigma : static_cast<T>(0.0f);
  NmsResult<T> r;
  while (static_cast<int64_t>(r.selected.size()) < max_output &&
         !heap.empty()) {
    Candidate c = heap.top();
    heap.pop();
    const T original = c.score;
    bool suppressed = false;
    for (int64_t j = static_cast<int64_t>(r.selected.size()) - 1;
         j >= c.suppress_begin; --j) {
      const T s = static_cast<T>(sim(c.index, r.selected[j]));
      // The weight is computed (as 1) in hard NMS too: TensorFlow's score
      // stays bit-identical that way.
      const T weight = static_cast<T>(std::exp(static_cast<float>(scale * s * s)));
      c.score *= (soft || s <= threshold) ? weight : static_cast<T>(0.0f);
      if (!soft && s > threshold) {
        suppressed = true;
        break;
      }
      if (c.score <= score_threshold) break;
    }
    c.suppress_begin = static_cast<int64_t>(r.selected.size());
    if (suppressed) continue;
    if (c.score == original) {
      r.selected.push_back(static_cast<int32_t>(c.index));
      r.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      heap.push(c);
    }
  }
  return r;
}

// Which inputs a version has and what it outputs.
struct NmsVersion {
  bool iou_attr = false;    // V1: the threshold is an attr
  bool score_input = true;  // score_threshold input (V3 on)
  bool sigma_input = false;  // V5
  bool valid_output = false;  // V4, V5
  bool scores_output = false;  // V5
  bool overlaps = false;  // WithOverlaps: input 0 is the overlap matrix
};

// T: float or Eigen::half (the element type of boxes and scores).
template <typename T>
class NonMaxSuppressionOp : public OpKernel {
 public:
  NonMaxSuppressionOp(OpKernelConstruction* ctx, NmsVersion v)
      : OpKernel(ctx), v_(v) {
    if (v_.iou_attr) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("iou_threshold", &iou_attr_));
    }
    if (v_.valid_output) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_size = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckScalar(max_size, "max_output_size"));
    const int64_t max_output = max_size.data<int32_t>()[0];
    OP_REQUIRES(ctx, max_output >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "max_output_size ", max_output, " must be non-negative")));
    T threshold = static_cast<T>(iou_attr_);
    T score_threshold = std::numeric_limits<T>::lowest();
    T sigma = static_cast<T>(0.0f);
    const char* threshold_name =
        v_.overlaps ? "overlap_threshold" : "iou_threshold";
    if (!v_.iou_attr) {
      OP_REQUIRES_OK(ctx,
                     ReadThreshold<T>(ctx->input(3), threshold_name, &threshold));
    }
    if (!v_.overlaps) {
      OP_REQUIRES(ctx,
                  threshold >= static_cast<T>(0.0f) &&
                      threshold <= static_cast<T>(1.0f),
                  absl::InvalidArgumentError(absl::StrCat(
                      "iou_threshold ", static_cast<float>(threshold),
                      " must be in [0, 1]")));
    }
    if (v_.score_input) {
      OP_REQUIRES_OK(ctx, ReadThreshold<T>(ctx->input(4), "score_threshold",
                                           &score_threshold));
    }
    if (v_.sigma_input) {
      OP_REQUIRES_OK(ctx,
                     ReadThreshold<T>(ctx->input(5), "soft_nms_sigma", &sigma));
      OP_REQUIRES(ctx, sigma >= static_cast<T>(0.0f),
                  absl::InvalidArgumentError(
                      absl::StrCat("soft_nms_sigma ", static_cast<float>(sigma),
                                   " must be >= 0")));
    }
    int64_t n = 0;
    OP_REQUIRES_OK(ctx, CheckBoxesAndScores(boxes, scores, v_.overlaps, &n));
    std::function<float(int64_t, int64_t)> sim;
    if (v_.overlaps) {
      const float* m = boxes.data<float>();
      sim = [m, n](int64_t i, int64_t j) { return m[i * n + j]; };
    } else {
      const T* b = EigenData<T>(boxes);
      sim = [b](int64_t i, int64_t j) { return Iou(b, i, j); };
    }
    NmsResult<T> r = SelectBoxes<T>(EigenData<T>(scores), n, max_output,
                                    threshold, score_threshold, sigma, sim);
    const int32_t valid = static_cast<int32_t>(r.selected.size());
    if (pad_) {
      r.selected.resize(max_output, 0);
      r.scores.resize(max_output, static_cast<T>(0.0f));
    }
    const int64_t count = static_cast<int64_t>(r.selected.size());
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({count}), &indices));
    std::copy(r.selected.begin(), r.selected.end(), indices->data<int32_t>());
    int next = 1;
    if (v_.scores_output) {
      Tensor* out_scores = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(next++, TensorShape({count}),
                                               &out_scores));
      std::copy(r.scores.begin(), r.scores.end(), EigenData<T>(*out_scores));
    }
    if (v_.valid_output) {
      Tensor* v = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(next, TensorShape({}), &v));
      v->data<int32_t>()[0] = valid;
    }
  }

 private:
  NmsVersion v_;
  float iou_attr_ = 0.5f;
  bool pad_ = false;
};

template <typename T, int kVersion>
class NmsVersionOp : public NonMaxSuppressionOp<T> {
 public:
  explicit NmsVersionOp(OpKernelConstruction* ctx)
      : NonMaxSuppressionOp<T>(ctx, Version()) {}

 private:
  static NmsVersion Version() {
    NmsVersion v;
    v.iou_attr = kVersion == 1;
    v.score_input = kVersion >= 3;  // 6: WithOverlaps
    v.valid_output = kVersion == 4 || kVersion == 5;
    v.sigma_input = v.scores_output = kVersion == 5;
    v.overlaps = kVersion == 6;
    return v;
  }
};

// --- CombinedNonMaxSuppression. ---

struct ResultCandidate {
  int box_index;
  float score;
  int class_idx;
  float box[4];
};

// Hard NMS of one class of one batch entry; survivors go to slots
// [class * per_class, class * per_class + kept) of `results`.
void NmsOneClass(int class_idx, const float* boxes, const float* scores,
                 int num_boxes, int q, int num_classes, int per_class,
                 float score_threshold, float iou_threshold,
                 std::vector<ResultCandidate>* results) {
  struct Candidate {
    int box_index;
    float score;
  };
  // Scores alone order the heap: ties leave in std::priority_queue's
  // order over a vector, TensorFlow's.
  auto lower = [](const Candidate a, const Candidate b) {
    return a.score < b.score;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> heap(
      lower);
  for (int i = 0; i < num_boxes; ++i) {
    const float s = scores[i * num_classes + class_idx];
    if (s > score_threshold) heap.push({i, s});
  }
  const int box_class = q > 1 ? class_idx : 0;
  std::vector<int> kept;
  while (static_cast<int>(kept.size()) < per_class && !heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const int64_t ci = int64_t{c.box_index} * q + box_class;
    bool keep = true;
    for (int j = static_cast<int>(kept.size()) - 1; j >= 0; --j) {
      if (Iou(boxes, ci, int64_t{kept[j]} * q + box_class) > iou_threshold) {
        keep = false;
        break;
      }
    }
    if (!keep) continue;
    const float* b = boxes + 4 * ci;
    (*results)[kept.size() + int64_t{per_class} * class_idx] = {
        c.box_index, c.score, class_idx, {b[0], b[1], b[2], b[3]}};
    kept.push_back(c.box_index);
  }
}

class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  explicit CombinedNonMaxSuppressionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_per_class", &pad_per_class_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("clip_boxes", &clip_boxes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const TensorShape& bs = boxes.shape();
    const TensorShape& ss = scores.shape();
    OP_REQUIRES(ctx, bs.rank() == 4 && bs.dim(3) == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "boxes must be [batch, num_boxes, q, 4], but has shape ",
                    bs.ToString())));
    OP_REQUIRES(ctx, ss.rank() == 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "scores must be [batch, num_boxes, num_classes], but has "
                    "shape ",
                    ss.ToString())));
    OP_REQUIRES(ctx, bs.dim(0) == ss.dim(0) && bs.dim(1) == ss.dim(1),
                absl::InvalidArgumentError(absl::StrCat(
                    "boxes ", bs.ToString(), " and scores ", ss.ToString(),
                    " must have the same batch and num_boxes")));
    const int64_t classes = ss.dim(2);
    OP_REQUIRES(ctx, bs.dim(2) == 1 || bs.dim(2) == classes,
                absl::InvalidArgumentError(absl::StrCat(
                    "the third dimension of boxes ", bs.ToString(),
                    " must be 1 or the ", classes, " classes")));
    OP_REQUIRES(ctx,
                bs.dim(1) <= std::numeric_limits<int>::max() &&
                    classes <= std::numeric_limits<int>::max(),
                absl::InvalidArgumentError("too many boxes or classes"));
    const char* names[] = {"max_output_size_per_class", "max_total_size",
                           "iou_threshold", "score_threshold"};
    for (int i = 2; i < 6; ++i) {
      OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(i), names[i - 2]));
    }
    const int max_per_class = ctx->input(2).data<int32_t>()[0];
    const int max_total = ctx->input(3).data<int32_t>()[0];
    const float iou = ctx->input(4).data<float>()[0];
    const float score_threshold = ctx->input(5).data<float>()[0];
    OP_REQUIRES(ctx, max_per_class > 0,
                absl::InvalidArgumentError(
                    absl::StrCat("max_output_size_per_class ", max_per_class,
                                 " must be positive")));
    OP_REQUIRES(ctx, max_total > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "max_total_size ", max_total, " must be positive")));
    OP_REQUIRES(ctx, iou >= 0 && iou <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "iou_threshold ", iou, " must be in [0, 1]")));
    const int batches = static_cast<int>(bs.dim(0));
    const int num_boxes = static_cast<int>(bs.dim(1));
    const int num_classes = static_cast<int>(classes);
    const int q = static_cast<int>(bs.dim(2));
    const int per_class = std::min(max_per_class, num_boxes);
    const int64_t slots = int64_t{per_class} * num_classes;
    OP_REQUIRES(ctx, slots <= std::numeric_limits<int>::max(),
                absl::InvalidArgumentError(
                    "max_output_size_per_class * num_classes overflows"));
    const int all_classes_max = static_cast<int>(std::min<int64_t>(
        std::numeric_limits<int>::max(), int64_t{max_per_class} * num_classes));
    const int per_batch =
        pad_per_class_ ? std::min(max_total, all_classes_max) : max_total;

    Tensor *out_boxes = nullptr, *out_scores = nullptr, *out_classes = nullptr,
           *out_valid = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batches, per_batch, 4}), &out_boxes));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({batches, per_batch}),
                                             &out_scores));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({batches, per_batch}),
                                             &out_classes));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(3, TensorShape({batches}), &out_valid));
    float* ob = out_boxes->data<float>();
    float* os = out_scores->data<float>();
    float* oc = out_classes->data<float>();
    std::fill(ob, ob + out_boxes->NumElements(), 0.0f);
    std::fill(os, os + out_scores->NumElements(), 0.0f);
    std::fill(oc, oc + out_classes->NumElements(), 0.0f);
    const float* boxes_data = boxes.data<float>();
    const float* scores_data = scores.data<float>();
    for (int b = 0; b < batches; ++b) {
      std::vector<ResultCandidate> results(
          slots, {-1, -std::numeric_limits<float>::infinity(), -1, {0, 0, 0, 0}});
      for (int c = 0; c < num_classes; ++c) {
        NmsOneClass(c, boxes_data + int64_t{b} * num_boxes * q * 4,
                    scores_data + int64_t{b} * num_boxes * num_classes,
                    num_boxes, q, num_classes, per_class, score_threshold, iou,
                    &results);
      }
      std::sort(results.begin(), results.end(),
                [](const ResultCandidate a, const ResultCandidate b) {
                  return b.score < a.score;
                });
      const int found = static_cast<int>(
          std::count_if(results.begin(), results.end(),
                        [](const ResultCandidate& r) { return r.box_index > -1; }));
      const int count = std::min(found, pad_per_class_ ? per_batch : max_total);
      out_valid->data<int32_t>()[b] = count;
      for (int k = 0; k < count && k < per_batch; ++k) {
        const ResultCandidate& r = results[k];
        for (int i = 0; i < 4; ++i) {
          ob[(int64_t{b} * per_batch + k) * 4 + i] =
              clip_boxes_ ? std::max(std::min(r.box[i], 1.0f), 0.0f) : r.box[i];
        }
        os[int64_t{b} * per_batch + k] = r.score;
        oc[int64_t{b} * per_batch + k] = static_cast<float>(r.class_idx);
      }
    }
  }

 private:
  bool pad_per_class_ = false;
  bool clip_boxes_ = true;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("NonMaxSuppression").Device(kDeviceCpu),
                      NmsVersionOp<float, 1>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("NonMaxSuppressionWithOverlaps").Device(kDeviceCpu),
    NmsVersionOp<float, 6>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("CombinedNonMaxSuppression").Device(kDeviceCpu),
    CombinedNonMaxSuppressionOp);

#define DFLOW_REGISTER_NMS(V, T, E)                               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("NonMaxSuppressionV" #V) \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T"),              \
                        NmsVersionOp<E, V>)
DFLOW_REGISTER_NMS(2, float, float);
DFLOW_REGISTER_NMS(2, float16, Eigen::half);
DFLOW_REGISTER_NMS(3, float, float);
DFLOW_REGISTER_NMS(3, float16, Eigen::half);
DFLOW_REGISTER_NMS(4, float, float);
DFLOW_REGISTER_NMS(4, float16, Eigen::half);
DFLOW_REGISTER_NMS(5, float, float);
DFLOW_REGISTER_NMS(5, float16, Eigen::half);
#undef DFLOW_REGISTER_NMS

}  // namespace
}  // namespace dflow
