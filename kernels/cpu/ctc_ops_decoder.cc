// CTCGreedyDecoder and CTCBeamSearchDecoder on the CPU, as TensorFlow 2.21
// decodes: the greedy decoder takes each step's most likely class (the
// first of equal ones), drops blanks and, with merge_repeated, repeats; its
// "log probability" is minus the sum of those steps' largest logits (not
// softmax-normalized: TensorFlow's definition). The beam search keeps the
// beam_width best prefixes (ctc_ops_beam_search.h) and returns the
// top_paths best with their log probabilities. Each path is a SparseTensor
// [batch, longest] of int64 labels.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/ctc_ops_beam_search.h"
#include "kernels/cpu/ctc_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class CTCGreedyDecoderOp : public OpKernel {
 public:
  explicit CTCGreedyDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("merge_repeated", &merge_repeated_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("blank_index", &blank_index_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctc::CheckLogitsAndLengths(inputs, seq_len,
                                                   /*allow_empty=*/false));
    const int64_t batch = inputs.shape().dim(1);
    const int64_t classes = inputs.shape().dim(2);
    const int64_t blank = blank_index_ < 0 ? classes + blank_index_
                                           : blank_index_;
    OP_REQUIRES(ctx, blank >= 0 && blank < classes,
                absl::InvalidArgumentError(absl::StrCat(
                    "blank_index expected to be between ", -classes, " and ",
                    classes - 1, " but was ", blank_index_)));
    Tensor* log_prob = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({batch, 1}),
                                             &log_prob));
    const T* x = inputs.data<T>();
    const int32_t* len = seq_len.data<int32_t>();
    std::vector<std::vector<int>> sequences(batch);
    for (int64_t b = 0; b < batch; ++b) {
      T score = T(0);
      int prev = -1;
      for (int t = 0; t < len[b]; ++t) {
        const T* row = x + (t * batch + b) * classes;
        int best = 0;
        for (int k = 1; k < classes; ++k) {
          if (row[k] > row[best]) best = k;
        }
        score += -row[best];
        if (best != blank && !(merge_repeated_ && best == prev)) {
          sequences[b].push_back(best);
        }
        prev = best;
      }
      log_prob->data<T>()[b] = score;
    }
    OP_REQUIRES_OK(ctx, ctc::StoreDecoded(ctx, sequences, 0, 1, 2));
  }

 private:
  bool merge_repeated_ = false;
  int64_t blank_index_ = -1;
};

template <typename T>
class CTCBeamSearchDecoderOp : public OpKernel {
 public:
  explicit CTCBeamSearchDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("merge_repeated", &merge_repeated_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("beam_width", &beam_width_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("top_paths", &top_paths_));
    OP_REQUIRES(ctx, beam_width_ >= 1 && beam_width_ <= (1 << 20),
                absl::InvalidArgumentError(absl::StrCat(
                    "beam_width must be in [1, 2^20], got ", beam_width_)));
    OP_REQUIRES(ctx, top_paths_ >= 1 && top_paths_ <= beam_width_,
                absl::InvalidArgumentError(absl::StrCat(
                    "requested more paths than the beam width: top_paths ",
                    top_paths_, " > beam_width ", beam_width_)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctc::CheckLogitsAndLengths(inputs, seq_len,
                                                   /*allow_empty=*/false));
    const int64_t batch = inputs.shape().dim(1);
    const int64_t classes = inputs.shape().dim(2);
    OP_REQUIRES(ctx, classes <= (int64_t{1} << 30),
                absl::InvalidArgumentError(absl::StrCat(
                    "num_classes must be at most 2^30, got ", classes)));
    const int paths = static_cast<int>(top_paths_);
    Tensor* log_prob = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            3 * paths, TensorShape({batch, paths}), &log_prob));
    const T* x = inputs.data<T>();
    const int32_t* len = seq_len.data<int32_t>();
    // best[p][b]: path p of batch entry b.
    std::vector<std::vector<std::vector<int>>> best(
        paths, std::vector<std::vector<int>>(batch));
    ctc::BeamSearch<T> search(static_cast<int>(classes),
                              static_cast<int>(beam_width_));
    std::vector<std::vector<int>> found;
    std::vector<T> log_probs;
    for (int64_t b = 0; b < batch; ++b) {
      search.Reset();
      for (int t = 0; t < len[b]; ++t) {
        search.Step(x + (t * batch + b) * classes);
      }
      OP_REQUIRES(
          ctx, search.num_leaves() >= static_cast<size_t>(paths),
          absl::InvalidArgumentError(absl::StrCat(
              "Less leaves in the beam search than requested: batch entry ", b,
              " (sequence_length ", len[b], ") has ", search.num_leaves(),
              " candidate paths, top_paths is ", paths)));
      search.TopPaths(paths, merge_repeated_, &found, &log_probs);
      for (int p = 0; p < paths; ++p) {
        best[p][b] = std::move(found[p]);
        log_prob->data<T>()[b * paths + p] = log_probs[p];
      }
    }
    for (int p = 0; p < paths; ++p) {
      OP_REQUIRES_OK(ctx, ctc::StoreDecoded(ctx, best[p], p, paths + p,
                                            2 * paths + p));
    }
  }

 private:
  bool merge_repeated_ = true;
  int64_t beam_width_ = 1;
  int64_t top_paths_ = 1;
};

#define DFLOW_REGISTER_CTC_DECODERS(T)                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("CTCGreedyDecoder")           \
                            .Device(kDeviceCpu)                        \
                            .TypeConstraint<T>("T"),                   \
                        CTCGreedyDecoderOp<T>);                        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("CTCBeamSearchDecoder")       \
                            .Device(kDeviceCpu)                        \
                            .TypeConstraint<T>("T"),                   \
                        CTCBeamSearchDecoderOp<T>);

DFLOW_REGISTER_CTC_DECODERS(float)
DFLOW_REGISTER_CTC_DECODERS(double)
#undef DFLOW_REGISTER_CTC_DECODERS

}  // namespace
}  // namespace dflow
