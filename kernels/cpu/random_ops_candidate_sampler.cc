// The candidate samplers (UniformCandidateSampler,
// LogUniformCandidateSampler, LearnedUnigramCandidateSampler,
// ThreadUnsafeUnigramCandidateSampler, FixedUnigramCandidateSampler,
// AllCandidateSampler) and ComputeAccidentalHits on the CPU: the ops
// tf.nn.sampled_softmax_loss and tf.nn.nce_loss write, with TensorFlow's
// candidates and expected counts for a given seed.
//
// Each run reserves 512 * num_sampled blocks of the op's stream (TensorFlow
// reserves 2048 32-bit words per candidate) and reads words from the start
// of that range (random_ops_words.h); a run that needs more (unique
// sampling that keeps drawing repeats) reads on into the next run's blocks,
// as TensorFlow's does. The learned unigram samplers then count the run's
// true classes into their weights. A lock makes each run's sampling and
// update one step, so concurrent runs of a node see whole updates (the
// thread-unsafe variant is as safe).
//
// FixedUnigramCandidateSampler takes its weights from the `unigrams` attr;
// a `vocab_file` is refused (dflow reads no vocabulary files here).
#include <cfloat>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/cpu/random_ops_range_sampler.h"
#include "kernels/cpu/random_ops_words.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class CandidateSamplerOp : public OpKernel {
 public:
  explicit CandidateSamplerOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
    ctx->SetStatus(ctx->GetAttr("num_sampled", &num_sampled_));
    ctx->SetStatus(ctx->GetAttr("unique", &unique_));
    if (num_true_ < 1 || num_sampled_ < 1 || num_sampled_ > INT32_MAX) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "num_true (", num_true_, ") and num_sampled (", num_sampled_,
          ") must be positive int32s")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    OP_REQUIRES(ctx,
                true_classes.shape().rank() == 2 &&
                    true_classes.shape().dim(1) == num_true_,
                absl::InvalidArgumentError(absl::StrCat(
                    "true_classes must be a [batch_size, num_true = ",
                    num_true_, "] matrix, got shape ",
                    true_classes.shape().ToString())));
    OP_REQUIRES(ctx, sampler_ != nullptr,
                absl::InternalError("candidate sampler not set"));
    const int64_t batch_size = true_classes.shape().dim(0);
    absl::Span<const int64_t> true_values(true_classes.data<int64_t>(),
                                          true_classes.NumElements());
    if (unique_) {
      OP_REQUIRES(
          ctx, num_sampled_ <= sampler_->DistinctValues(),
          absl::InvalidArgumentError(absl::StrCat(
              "num_sampled (", num_sampled_, ") is larger than the ",
              sampler_->DistinctValues(),
              " classes the sampler can draw (range_max ", sampler_->range(),
              "); with unique=True the candidates must be distinct")));
    }
    // TensorFlow 2.21 refuses true classes outside the sampler's range
    // (AllCandidateSampler's is [0, num_sampled)).
    for (int64_t v : true_values) {
      OP_REQUIRES(ctx, v >= 0 && v < sampler_->range(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "true class ", v, " is outside the sampler's range [0, ",
                      sampler_->range(), ")")));
    }
    Tensor* sampled = nullptr;
    Tensor* true_expected = nullptr;
    Tensor* sampled_expected = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num_sampled_}),
                                             &sampled));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            1, TensorShape({batch_size, num_true_}),
                            &true_expected));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({num_sampled_}),
                                             &sampled_expected));
    PhiloxRandom gen =
        stream_.ReserveWords(2048 * static_cast<uint64_t>(num_sampled_));
    PhiloxWords words(&gen);
    absl::MutexLock lock(&mu_);
    sampler_->SampleBatch(
        &words, unique_,
        absl::MakeSpan(sampled->data<int64_t>(), num_sampled_),
        absl::MakeSpan(sampled_expected->data<float>(), num_sampled_),
        true_values,
        absl::MakeSpan(true_expected->data<float>(),
                       true_expected->NumElements()));
    if (sampler_->NeedsUpdates()) sampler_->Update(true_values);
  }

 protected:
  void set_sampler(std::unique_ptr<RangeSampler> sampler) {
    sampler_ = std::move(sampler);
  }
  int64_t num_sampled() const { return num_sampled_; }

 private:
  int64_t num_true_ = 1;
  int64_t num_sampled_ = 1;
  bool unique_ = false;
  PhiloxReservations stream_;
  absl::Mutex mu_;
  std::unique_ptr<RangeSampler> sampler_;
};

// The samplers whose only parameter is range_max.
template <class Sampler>
class SimpleCandidateSamplerOp : public CandidateSamplerOp {
 public:
  explicit SimpleCandidateSamplerOp(OpKernelConstruction* ctx)
      : CandidateSamplerOp(ctx) {
    int64_t range_max = 0;
    ctx->SetStatus(ctx->GetAttr("range_max", &range_max));
    if (range_max < 1 ||
        (std::is_same_v<Sampler, UnigramRangeSampler> &&
         range_max >= INT32_MAX)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "range_max must be >= 1",
          std::is_same_v<Sampler, UnigramRangeSampler>
              ? " and below 2^31 - 1 for a unigram sampler"
              : "",
          ", got ", range_max)));
      return;
    }
    set_sampler(std::make_unique<Sampler>(range_max));
  }
};

class AllCandidateSamplerOp : public CandidateSamplerOp {
 public:
  explicit AllCandidateSamplerOp(OpKernelConstruction* ctx)
      : CandidateSamplerOp(ctx) {
    set_sampler(std::make_unique<AllRangeSampler>(num_sampled()));
  }
};

class FixedUnigramCandidateSamplerOp : public CandidateSamplerOp {
 public:
  explicit FixedUnigramCandidateSamplerOp(OpKernelConstruction* ctx)
      : CandidateSamplerOp(ctx) {
    int64_t range_max = 0, num_reserved_ids = 0, num_shards = 1, shard = 0;
    std::string vocab_file;
    std::vector<float> unigrams;
    float distortion = 1;
    for (absl::Status s :
         {ctx->GetAttr("range_max", &range_max),
          ctx->GetAttr("vocab_file", &vocab_file),
          ctx->GetAttr("unigrams", &unigrams),
          ctx->GetAttr("distortion", &distortion),
          ctx->GetAttr("num_reserved_ids", &num_reserved_ids),
          ctx->GetAttr("num_shards", &num_shards),
          ctx->GetAttr("shard", &shard)}) {
      if (!s.ok()) {
        ctx->SetStatus(s);
        return;
      }
    }
    if (!vocab_file.empty()) {
      ctx->SetStatus(absl::UnimplementedError(absl::StrCat(
          "FixedUnigramCandidateSampler with vocab_file '", vocab_file,
          "' is not supported: pass the counts as `unigrams` instead")));
      return;
    }
    if (num_shards < 1 || shard < 0 || shard >= num_shards) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "shard (", shard, ") must be in [0, num_shards = ", num_shards,
          ")")));
      return;
    }
    if (unigrams.empty()) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "FixedUnigramCandidateSampler needs `unigrams` (or, in "
          "TensorFlow, a vocab_file)"));
      return;
    }
    absl::StatusOr<std::unique_ptr<FixedUnigramRangeSampler>> sampler =
        FixedUnigramRangeSampler::Make(range_max, unigrams, distortion,
                                       num_reserved_ids, num_shards, shard);
    if (!sampler.ok()) {
      ctx->SetStatus(sampler.status());
      return;
    }
    set_sampler(*std::move(sampler));
  }
};

class ComputeAccidentalHitsOp : public OpKernel {
 public:
  explicit ComputeAccidentalHitsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    const Tensor& sampled = ctx->input(1);
    OP_REQUIRES(ctx,
                true_classes.shape().rank() == 2 &&
                    true_classes.shape().dim(1) == num_true_,
                absl::InvalidArgumentError(absl::StrCat(
                    "true_classes must be a [batch_size, num_true = ",
                    num_true_, "] matrix, got shape ",
                    true_classes.shape().ToString())));
    OP_REQUIRES(ctx, sampled.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "sampled_candidates must be a vector (a candidate "
                    "sampler's output), got shape ",
                    sampled.shape().ToString())));
    // Position of each candidate; a repeated candidate maps to its last.
    std::unordered_map<int64_t, int64_t> position;
    const int64_t* cand = sampled.data<int64_t>();
    for (int64_t i = 0; i < sampled.NumElements(); ++i) position[cand[i]] = i;
    std::vector<int32_t> indices;
    std::vector<int64_t> ids;
    const int64_t batch = true_classes.shape().dim(0);
    const int64_t* classes = true_classes.data<int64_t>();
    for (int64_t i = 0; i < batch; ++i) {
      for (int64_t j = 0; j < num_true_; ++j) {
        auto it = position.find(classes[i * num_true_ + j]);
        if (it == position.end()) continue;
        indices.push_back(static_cast<int32_t>(i));
        ids.push_back(it->second);
      }
    }
    const int64_t n = static_cast<int64_t>(indices.size());
    Tensor* out_indices = nullptr;
    Tensor* out_ids = nullptr;
    Tensor* out_weights = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}),
                                             &out_indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &out_ids));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(2, TensorShape({n}), &out_weights));
    for (int64_t k = 0; k < n; ++k) {
      out_indices->data<int32_t>()[k] = indices[k];
      out_ids->data<int64_t>()[k] = ids[k];
      out_weights->data<float>()[k] = -FLT_MAX;
    }
  }

 private:
  int64_t num_true_ = 1;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("UniformCandidateSampler").Device(kDeviceCpu),
    SimpleCandidateSamplerOp<UniformRangeSampler>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LogUniformCandidateSampler").Device(kDeviceCpu),
    SimpleCandidateSamplerOp<LogUniformRangeSampler>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LearnedUnigramCandidateSampler").Device(kDeviceCpu),
    SimpleCandidateSamplerOp<UnigramRangeSampler>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ThreadUnsafeUnigramCandidateSampler").Device(kDeviceCpu),
    SimpleCandidateSamplerOp<UnigramRangeSampler>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("AllCandidateSampler").Device(kDeviceCpu),
    AllCandidateSamplerOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FixedUnigramCandidateSampler").Device(kDeviceCpu),
    FixedUnigramCandidateSamplerOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ComputeAccidentalHits").Device(kDeviceCpu),
    ComputeAccidentalHitsOp);

}  // namespace
}  // namespace dflow
