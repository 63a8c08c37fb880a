// TopKV2 (the k largest entries of each row, ties to the lower index as in
// TensorFlow) and InTopKV2, and their v1 forms TopK and InTopK, which take
// k as an attr (TensorFlow's rule: target t of a row is in the
// top k when fewer than k predictions are strictly larger than
// predictions[t]; a row with any non-finite prediction, or a target out of
// range, answers false).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using index_ops::IntAt;

template <typename T, typename Idx>
class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (type_string() == "TopK") {
      ctx->SetStatus(ctx->GetAttr("k", &k_attr_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t k = k_attr_;
    if (num_inputs() > 1) {
      OP_REQUIRES_OK(ctx, index_ops::IntScalar(ctx->input(1), "k", &k));
    }
    OP_REQUIRES(ctx, k >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Need k >= 0, got ", k)));
    const TensorShape& s = input.shape();
    OP_REQUIRES(ctx, s.rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be >= 1-D, got shape ", s.ToString())));
    const int64_t cols = s.dim(s.rank() - 1);
    OP_REQUIRES(ctx, cols >= k,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must have at least k columns. Had ", cols,
                    ", needs ", k)));
    TensorShape out_shape = s;
    out_shape.set_dim(s.rank() - 1, k);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &indices));
    if (k == 0 || values->NumElements() == 0) return;
    const int64_t rows = input.NumElements() / cols;
    const T* in = input.data<T>();
    T* ov = values->data<T>();
    Idx* oi = indices->data<Idx>();
    ParallelForShards(ctx, rows, cols * 8, [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> order(cols);
      for (int64_t r = r0; r < r1; ++r) {
        const T* row = in + r * cols;
        std::iota(order.begin(), order.end(), 0);
        auto greater = [row](int64_t a, int64_t b) {
          return row[a] > row[b] || (!(row[b] > row[a]) && a < b);
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          greater);
        for (int64_t j = 0; j < k; ++j) {
          ov[r * k + j] = row[order[j]];
          oi[r * k + j] = static_cast<Idx>(order[j]);
        }
      }
    });
  }

 private:
  int64_t k_attr_ = 0;  // TopK's k (TopKV2 reads its k input).
};

template <typename Tidx>
class InTopKOp : public OpKernel {
 public:
  explicit InTopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (type_string() == "InTopK") {
      ctx->SetStatus(ctx->GetAttr("k", &k_attr_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& predictions = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    int64_t k = k_attr_;
    if (num_inputs() > 2) {
      OP_REQUIRES_OK(ctx, index_ops::IntScalar(ctx->input(2), "k", &k));
    }
    OP_REQUIRES(ctx, predictions.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "predictions must be 2-dimensional, got shape ",
                    predictions.shape().ToString())));
    OP_REQUIRES(ctx, targets.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "targets must be 1-dimensional, got shape ",
                    targets.shape().ToString())));
    const int64_t batch = predictions.shape().dim(0);
    const int64_t classes = predictions.shape().dim(1);
    OP_REQUIRES(ctx, targets.NumElements() == batch,
                absl::InvalidArgumentError(absl::StrCat(
                    "First dimension of predictions ", batch,
                    " must match length of targets ", targets.NumElements())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &out));
    const float* p = predictions.data<float>();
    bool* o = out->data<bool>();
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = p + b * classes;
      const int64_t t = IntAt(targets, b);
      bool cannot_say = t < 0 || t >= classes || !std::isfinite(row[t]);
      int64_t more = 0;
      if (!cannot_say) {
        for (int64_t c = 0; c < classes; ++c) {
          if (!std::isfinite(row[c])) {
            cannot_say = true;
            break;
          }
          if (row[c] > row[t]) ++more;
        }
      }
      o[b] = !cannot_say && more < k;
    }
  }

 private:
  int64_t k_attr_ = 0;  // InTopK's k (InTopKV2 reads its k input).
};

#define DFLOW_REGISTER_TOPK_IDX(T, Idx)                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("TopKV2")               \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T")              \
                            .TypeConstraint<Idx>("index_type"),  \
                        TopKOp<T, Idx>)
#define DFLOW_REGISTER_TOPK(T)            \
  DFLOW_REGISTER_TOPK_IDX(T, int16_t);    \
  DFLOW_REGISTER_TOPK_IDX(T, int32_t);    \
  DFLOW_REGISTER_TOPK_IDX(T, int64_t)
// TopK (v1) has int32 indices only.
#define DFLOW_REGISTER_TOPK_V1(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("TopK").Device(kDeviceCpu).TypeConstraint<T>("T"),    \
      TopKOp<T, int32_t>)
DFLOW_REGISTER_TOPK_V1(float);
DFLOW_REGISTER_TOPK_V1(double);
DFLOW_REGISTER_TOPK_V1(int32_t);
DFLOW_REGISTER_TOPK_V1(int64_t);
DFLOW_REGISTER_TOPK_V1(uint8_t);
DFLOW_REGISTER_TOPK(float);
DFLOW_REGISTER_TOPK(double);
DFLOW_REGISTER_TOPK(int32_t);
DFLOW_REGISTER_TOPK(int64_t);
DFLOW_REGISTER_TOPK(uint8_t);

DFLOW_REGISTER_KERNEL(KernelDefBuilder("InTopKV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int32_t>("T"),
                      InTopKOp<int32_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("InTopKV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int64_t>("T"),
                      InTopKOp<int64_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("InTopK")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int32_t>("T"),
                      InTopKOp<int32_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("InTopK")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int64_t>("T"),
                      InTopKOp<int64_t>);

}  // namespace
}  // namespace dflow
