// CTCLoss and CTCLossV2 on the CPU: for each batch entry the negative log
// probability of its label sequence summed over every alignment (Graves'
// forward-backward recursions in log space, GravesTh ch. 7) and its
// gradient with respect to the logits, softmax(logits) minus the
// alignments' posterior of each class. The arithmetic follows TensorFlow
// 2.21's ctc_loss_calculator.h step for step (Eigen's softmax over a row,
// the log-space sums in single precision), so the values are TensorFlow's.
// CTCLoss's blank is the last class; CTCLossV2's (TensorFlow's cuDNN op,
// which tf.nn.ctc_loss's function library carries) is class 0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "kernels/cpu/ctc_ops_common.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using ctc::LogSumExp;
using ctc::LogZero;

// The SparseTensor of labels as one sequence per batch entry. Its indices
// must be in row-major order without repeats, with rows in [0, batch) and
// non-negative positions (what TensorFlow's SparseTensor validation asks).
absl::Status GroupLabels(const Tensor& indices, const Tensor& values,
                         int64_t batch,
                         std::vector<std::vector<int>>* labels) {
  if (indices.shape().rank() != 2 || indices.shape().dim(1) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("labels_indices must be a matrix [n, 2], got ",
                     indices.shape().ToString()));
  }
  if (values.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "labels_values must be a vector, got ", values.shape().ToString()));
  }
  const int64_t n = indices.shape().dim(0);
  if (values.shape().dim(0) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "labels_indices and labels_values must contain the same number of "
        "rows, but saw shapes: ",
        indices.shape().ToString(), " vs. ", values.shape().ToString()));
  }
  const int64_t* idx = indices.data<int64_t>();
  const int32_t* val = values.data<int32_t>();
  labels->assign(batch, {});
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = idx[2 * i], pos = idx[2 * i + 1];
    if (row < 0 || row >= batch || pos < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "label SparseTensor is not valid: indices[", i, "] = [", row, ",",
          pos, "] is out of bounds: the row must be in [0, ", batch,
          ") (the batch) and the position non-negative"));
    }
    if (i > 0) {
      const int64_t prow = idx[2 * i - 2], ppos = idx[2 * i - 1];
      if (row < prow || (row == prow && pos <= ppos)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "label SparseTensor is not valid: indices[", i, "] = [", row, ",",
            pos, "] is ", row == prow && pos == ppos ? "repeated" : "out of order",
            "; labels must be in row-major order (tf.sparse.reorder)"));
      }
    }
    (*labels)[row].push_back(val[i]);
  }
  return absl::OkStatus();
}

// The label sequence of entry b as the loss reads it: repeats merged with
// preprocess_collapse_repeated; for CTCLoss ended by the first class >=
// num_classes - 1 (the blank and above: what TensorFlow treats as padding),
// for CTCLossV2 (blank 0) each in [1, num_classes). Then l' = blank, l1,
// blank, l2, ..., blank.
absl::Status ExtendedLabels(const std::vector<int>& label, int64_t b,
                            int num_classes, bool blank_first, bool collapse,
                            std::vector<int>* l_prime) {
  const int blank = blank_first ? 0 : num_classes - 1;
  if (label.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Labels length is zero in batch ", b,
                     ": every batch entry needs at least one label"));
  }
  std::vector<int> l;
  bool finished = false;
  for (size_t i = 0; i < label.size(); ++i) {
    if (i > 0 && collapse && label[i] == label[i - 1]) continue;
    if (blank_first) {
      if (label[i] < 1 || label[i] >= num_classes) {
        return absl::InvalidArgumentError(absl::StrCat(
            "CTCLossV2's labels must be in [1, num_classes) (class 0 is its "
            "blank), batch: ",
            b, " num_classes: ", num_classes,
            " labels: ", absl::StrJoin(label, ",")));
      }
      l.push_back(label[i]);
    } else if (label[i] >= num_classes - 1) {
      finished = true;
    } else if (finished) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Saw a non-null label (index >= num_classes - 1) following a null "
          "label, batch: ",
          b, " num_classes: ", num_classes,
          " labels: ", absl::StrJoin(label, ",")));
    } else {
      l.push_back(label[i]);
    }
  }
  for (int v : l) {
    if (v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("All labels must be nonnegative integers, batch: ", b,
                       " labels: ", absl::StrJoin(l, ",")));
    }
  }
  l_prime->clear();
  for (int v : l) {
    l_prime->push_back(blank);
    l_prime->push_back(v);
  }
  l_prime->push_back(blank);
  return absl::OkStatus();
}

template <typename T>
class CTCLossOp : public OpKernel {
 public:
  CTCLossOp(OpKernelConstruction* ctx, bool blank_first)
      : OpKernel(ctx), blank_first_(blank_first) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("preprocess_collapse_repeated",
                                     &preprocess_collapse_repeated_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("ctc_merge_repeated", &ctc_merge_repeated_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ignore_longer_outputs_than_inputs",
                                     &ignore_longer_));
  }
  explicit CTCLossOp(OpKernelConstruction* ctx) : CTCLossOp(ctx, false) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(3);
    OP_REQUIRES_OK(ctx, ctc::CheckLogitsAndLengths(inputs, seq_len,
                                                   /*allow_empty=*/true));
    const int64_t max_time = inputs.shape().dim(0);
    const int64_t batch = inputs.shape().dim(1);
    const int64_t num_classes = inputs.shape().dim(2);
    OP_REQUIRES(ctx, batch != 0,
                absl::InvalidArgumentError("batch_size must not be 0"));
    OP_REQUIRES(ctx, num_classes > 0 && num_classes <= (int64_t{1} << 30),
                absl::InvalidArgumentError(absl::StrCat(
                    "num_classes (inputs' last dimension) must be in [1, "
                    "2^30], got ",
                    num_classes)));
    std::vector<std::vector<int>> labels;
    OP_REQUIRES_OK(ctx, GroupLabels(ctx->input(1), ctx->input(2), batch,
                                    &labels));
    const int32_t* len = seq_len.data<int32_t>();
    const int classes = static_cast<int>(num_classes);
    const int blank = blank_first_ ? 0 : classes - 1;
    std::vector<std::vector<int>> l_primes(batch);
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES_OK(ctx,
                     ExtendedLabels(labels[b], b, classes, blank_first_,
                                    preprocess_collapse_repeated_,
                                    &l_primes[b]));
      if (!ignore_longer_ &&
          static_cast<int64_t>(labels[b].size()) > len[b]) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Not enough time for target transition sequence (required: ",
            labels[b].size(), ", available: ", len[b], ") in batch entry ", b,
            "; set ignore_longer_outputs_than_inputs to give such entries "
            "a zero loss instead")));
        return;
      }
    }
    Tensor* loss = nullptr;
    Tensor* gradient = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, inputs.shape(), &gradient));
    T* loss_data = loss->data<T>();
    T* grad = gradient->data<T>();
    std::fill(loss_data, loss_data + batch, T(0));
    std::fill(grad, grad + gradient->NumElements(), T(0));
    const T* logits = inputs.data<T>();
    // Entries are independent: each shard writes its own loss and its own
    // gradient rows, so the bits do not depend on the thread count.
    const int64_t cost = std::max<int64_t>(1, max_time) * num_classes * 40;
    ParallelForShards(ctx, batch, cost, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        if (len[b] == 0 ||
            (ignore_longer_ &&
             static_cast<int64_t>(labels[b].size()) > len[b])) {
          continue;  // zero loss and gradient, as TensorFlow
        }
        Entry(logits, batch, classes, blank, b, len[b], l_primes[b],
              &loss_data[b], grad);
      }
    });
  }

 private:
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;

  // Loss and gradient of batch entry b over its `steps` time steps.
  void Entry(const T* logits, int64_t batch, int classes, int blank,
             int64_t b, int steps, const std::vector<int>& lp, T* loss,
             T* grad) const {
    const int U = static_cast<int>(lp.size());
    const int K = classes;
    // y[t * K + k]: softmax of step t's logits, as Eigen computes it from
    // the row (its exp and its sum's order).
    std::vector<T> y(static_cast<size_t>(steps) * K), log_y(y.size());
    for (int t = 0; t < steps; ++t) {
      Eigen::Map<const Array> row(logits + (t * batch + b) * K, K);
      const T max_coeff = row.maxCoeff();
      const Array e = (row - max_coeff).exp();
      Eigen::Map<Array>(y.data() + static_cast<size_t>(t) * K, K) =
          e / e.sum();
    }
    for (size_t i = 0; i < y.size(); ++i) log_y[i] = std::log(y[i]);
    auto ly = [&](int k, int t) { return log_y[static_cast<size_t>(t) * K + k]; };

    const int Tn = steps;
    std::vector<T> alpha(static_cast<size_t>(U) * Tn, LogZero<T>());
    std::vector<T> beta(alpha.size(), LogZero<T>());
    auto A = [&](int u, int t) -> T& { return alpha[static_cast<size_t>(u) * Tn + t]; };
    auto B = [&](int u, int t) -> T& { return beta[static_cast<size_t>(u) * Tn + t]; };
    const bool merge = ctc_merge_repeated_;

    // Forward (GravesTh eq. 7.5-7.9): states that can still reach the end
    // in the remaining steps, and that the steps so far can have reached.
    A(0, 0) = ly(blank, 0);
    if (U > 1) A(1, 0) = ly(lp[1], 0);
    for (int t = 1; t < Tn; ++t) {
      for (int u = std::max(0, U - 2 * (Tn - t)); u < std::min(U, 2 * (t + 1));
           ++u) {
        T sum = LogZero<T>();
        if (merge || lp[u] == blank) sum = A(u, t - 1);
        if (u > 0) sum = LogSumExp(sum, A(u - 1, t - 1));
        if (u > 1 && lp[u] != blank && !(merge && lp[u] == lp[u - 2])) {
          sum = LogSumExp(sum, A(u - 2, t - 1));
        }
        A(u, t) = ly(lp[u], t) + sum;
      }
    }
    // Backward (eq. 7.13-7.15).
    for (int u = std::max(0, U - 2); u < U; ++u) B(u, Tn - 1) = 0;
    if (U == 1 && Tn >= 2) {
      // No label at all (every one padding): TensorFlow's initialization
      // above starts at u = U - 2 = -1, and its column-major matrix of one
      // row takes (-1, T-1) for (0, T-2). Its loss is thus
      // -log(y_blank(0) ... y_blank(T-2) * (1 + y_blank(T-1)))
      // rather than the product of the blanks; dflow gives the same value.
      B(0, Tn - 2) = 0;
    }
    for (int t = Tn - 2; t >= 0; --t) {
      for (int u = std::max(0, U - 2 * (Tn - t)); u < std::min(U, 2 * (t + 1));
           ++u) {
        if (merge || lp[u] == blank) {
          B(u, t) = LogSumExp(B(u, t), B(u, t + 1) + ly(lp[u], t + 1));
        }
        if (u + 1 < U) {
          B(u, t) = LogSumExp(B(u, t), B(u + 1, t + 1) + ly(lp[u + 1], t + 1));
        }
        if (u + 2 < U && lp[u] != blank && !(merge && lp[u] == lp[u + 2])) {
          B(u, t) = LogSumExp(B(u, t), B(u + 2, t + 1) + ly(lp[u + 2], t + 1));
        }
      }
    }
    T log_p = LogZero<T>();
    for (int u = 0; u < U; ++u) log_p = LogSumExp(log_p, A(u, 0) + B(u, 0));
    *loss = -log_p;

    // Gradient (eq. 7.28-7.34): y minus the posterior of each class; with
    // no valid path at all, y itself (TensorFlow's choice).
    std::vector<T> prob_sum(K);
    for (int t = 0; t < Tn; ++t) {
      T* g = grad + (static_cast<int64_t>(t) * batch + b) * K;
      const T* yt = y.data() + static_cast<size_t>(t) * K;
      if (log_p == LogZero<T>()) {
        std::copy(yt, yt + K, g);
        continue;
      }
      std::fill(prob_sum.begin(), prob_sum.end(), LogZero<T>());
      for (int u = 0; u < U; ++u) {
        prob_sum[lp[u]] = LogSumExp(prob_sum[lp[u]], A(u, t) + B(u, t));
      }
      for (int k = 0; k < K; ++k) {
        // Single precision, as TensorFlow's expf.
        g[k] = yt[k] - std::exp(static_cast<float>(prob_sum[k] - log_p));
      }
    }
  }

  bool preprocess_collapse_repeated_ = false;
  bool ctc_merge_repeated_ = true;
  bool ignore_longer_ = false;
  bool blank_first_ = false;
};

class CTCLossV2Op : public CTCLossOp<float> {
 public:
  explicit CTCLossV2Op(OpKernelConstruction* ctx)
      : CTCLossOp<float>(ctx, /*blank_first=*/true) {}
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("CTCLoss").Device(kDeviceCpu).TypeConstraint<float>("T"),
    CTCLossOp<float>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("CTCLoss").Device(kDeviceCpu).TypeConstraint<double>("T"),
    CTCLossOp<double>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CTCLossV2").Device(kDeviceCpu),
                      CTCLossV2Op);

}  // namespace
}  // namespace dflow
