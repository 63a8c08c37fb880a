// The distributions over [0, range) the candidate samplers draw from
// (TensorFlow's RangeSampler family, kernels/range_sampler.h), each drawing
// with TensorFlow's words and arithmetic so that a seed gives TensorFlow's
// candidates and expected counts:
//   UniformRangeSampler     Uniform64(range); P = float(1 / range)
//   LogUniformRangeSampler  int64(exp(u * log(range + 1))) - 1 (mod range)
//                           for a double u; P(k) = log((k+2)/(k+1)) /
//                           log(range + 1)
//   UnigramRangeSampler     weights starting at 1, +1 for every true class
//                           seen (Update), drawn by an exactly uniform
//                           integer below the total weight
//   FixedUnigramRangeSampler weights unigrams^distortion drawn by Walker's
//                           alias method (a float against the bucket's
//                           probability, then a bucket Uniform(n))
//   AllRangeSampler         0, 1, ..., range - 1
#ifndef DFLOW_KERNELS_CPU_RANDOM_OPS_RANGE_SAMPLER_H_
#define DFLOW_KERNELS_CPU_RANDOM_OPS_RANGE_SAMPLER_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kernels/cpu/random_ops_words.h"

namespace dflow {

class RangeSampler {
 public:
  explicit RangeSampler(int64_t range) : range_(range) {}
  virtual ~RangeSampler() = default;

  int64_t range() const { return range_; }

  // One value of [0, range).
  virtual int64_t Sample(PhiloxWords* words) const = 0;
  // Its probability (TensorFlow's float arithmetic).
  virtual float Probability(int64_t value) const = 0;
  // Values a batch of samples can hold without repeats (unique=true needs
  // batch <= this; less than range when some values have no weight).
  virtual int64_t DistinctValues() const { return range_; }
  virtual bool NeedsUpdates() const { return false; }
  virtual void Update(absl::Span<const int64_t> values) {}

  // Fills `batch` (distinct values when `unique`) and the expected counts
  // of the batch and of `extras`: p * batch size, or with `unique`
  // 1 - (1 - p)^tries for the tries it took, in float as TensorFlow.
  virtual void SampleBatch(PhiloxWords* words, bool unique,
                           absl::Span<int64_t> batch,
                           absl::Span<float> batch_expected_count,
                           absl::Span<const int64_t> extras,
                           absl::Span<float> extras_expected_count) const;

 protected:
  const int64_t range_;
};

class AllRangeSampler : public RangeSampler {
 public:
  using RangeSampler::RangeSampler;
  int64_t Sample(PhiloxWords*) const override { return 0; }
  float Probability(int64_t) const override { return 1; }
  void SampleBatch(PhiloxWords* words, bool unique, absl::Span<int64_t> batch,
                   absl::Span<float> batch_expected_count,
                   absl::Span<const int64_t> extras,
                   absl::Span<float> extras_expected_count) const override;
};

class UniformRangeSampler : public RangeSampler {
 public:
  explicit UniformRangeSampler(int64_t range)
      : RangeSampler(range), inv_range_(static_cast<float>(1.0 / range)) {}
  int64_t Sample(PhiloxWords* words) const override {
    return static_cast<int64_t>(words->Uniform64(range_));
  }
  float Probability(int64_t) const override { return inv_range_; }

 private:
  const float inv_range_;
};

class LogUniformRangeSampler : public RangeSampler {
 public:
  explicit LogUniformRangeSampler(int64_t range);
  int64_t Sample(PhiloxWords* words) const override;
  float Probability(int64_t value) const override;

 private:
  const double log_range_;
};

// Integer weights in a Fenwick tree: O(log n) updates and picks, where the
// value picked for w in [0, total) is the first whose prefix sum exceeds w
// (TensorFlow's WeightedPicker picks the same).
class UnigramRangeSampler : public RangeSampler {
 public:
  explicit UnigramRangeSampler(int64_t range);
  int64_t Sample(PhiloxWords* words) const override;
  float Probability(int64_t value) const override;
  bool NeedsUpdates() const override { return true; }
  void Update(absl::Span<const int64_t> values) override;

 private:
  int32_t Weight(int64_t value) const { return weights_[value]; }
  void Add(int64_t value, int32_t delta);

  std::vector<int32_t> weights_;
  std::vector<int32_t> tree_;  // Fenwick tree over weights_, 1-based
  int32_t total_ = 0;
  int64_t top_bit_ = 1;  // the highest power of two <= range
};

class FixedUnigramRangeSampler : public RangeSampler {
 public:
  // Fails when the weights do not number `range` or none is positive.
  static absl::StatusOr<std::unique_ptr<FixedUnigramRangeSampler>> Make(
      int64_t range, const std::vector<float>& unigrams, float distortion,
      int64_t num_reserved_ids, int64_t num_shards, int64_t shard);

  int64_t Sample(PhiloxWords* words) const override;
  float Probability(int64_t value) const override;
  int64_t DistinctValues() const override { return positive_; }

 private:
  explicit FixedUnigramRangeSampler(int64_t range) : RangeSampler(range) {}

  std::vector<float> weights_;
  float total_weight_ = 0;
  int64_t positive_ = 0;
  // Walker's alias table: per bucket, the probability of keeping it and
  // the value taken otherwise.
  std::vector<std::pair<float, int>> alias_;
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_RANDOM_OPS_RANGE_SAMPLER_H_
