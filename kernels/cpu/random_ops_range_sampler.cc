// The candidate samplers' distributions (random_ops_range_sampler.h).
#include "kernels/cpu/random_ops_range_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dflow {
namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

// How often `p` is expected among the batch: p * batch_size when every try
// was kept, else the chance of being drawn in num_tries tries, 1 - (1 -
// p)^num_tries, in float as TensorFlow computes it.
float ExpectedCount(float p, int batch_size, int num_tries) {
  if (num_tries == batch_size) return p * static_cast<float>(batch_size);
  return -std::expm1(static_cast<float>(num_tries) * std::log1p(-p));
}

}  // namespace

void RangeSampler::SampleBatch(PhiloxWords* words, bool unique,
                               absl::Span<int64_t> batch,
                               absl::Span<float> batch_expected_count,
                               absl::Span<const int64_t> extras,
                               absl::Span<float> extras_expected_count) const {
  const int batch_size = static_cast<int>(batch.size());
  int num_tries = 0;
  if (unique) {
    std::unordered_set<int64_t> used(batch_size);
    int picked = 0;
    while (picked < batch_size) {
      ++num_tries;
      const int64_t value = Sample(words);
      if (used.insert(value).second) batch[picked++] = value;
    }
  } else {
    for (int i = 0; i < batch_size; ++i) batch[i] = Sample(words);
    num_tries = batch_size;
  }
  for (int i = 0; i < batch_size; ++i) {
    batch_expected_count[i] =
        ExpectedCount(Probability(batch[i]), batch_size, num_tries);
  }
  for (size_t i = 0; i < extras.size(); ++i) {
    extras_expected_count[i] =
        ExpectedCount(Probability(extras[i]), batch_size, num_tries);
  }
}

void AllRangeSampler::SampleBatch(
    PhiloxWords*, bool, absl::Span<int64_t> batch,
    absl::Span<float> batch_expected_count, absl::Span<const int64_t>,
    absl::Span<float> extras_expected_count) const {
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i] = static_cast<int64_t>(i);
    batch_expected_count[i] = 1;
  }
  std::fill(extras_expected_count.begin(), extras_expected_count.end(), 1.0f);
}

LogUniformRangeSampler::LogUniformRangeSampler(int64_t range)
    : RangeSampler(range), log_range_(std::log1p(static_cast<double>(range))) {}

int64_t LogUniformRangeSampler::Sample(PhiloxWords* words) const {
  const int64_t value =
      static_cast<int64_t>(std::exp(words->RandDouble() * log_range_)) - 1;
  // exp(u log(range + 1)) - 1 < range; the modulo only guards rounding.
  return value % range_;
}

float LogUniformRangeSampler::Probability(int64_t value) const {
  const double v = static_cast<double>(value);
  return static_cast<float>(std::log((v + 2.0) / (v + 1.0)) / log_range_);
}

UnigramRangeSampler::UnigramRangeSampler(int64_t range)
    : RangeSampler(range), weights_(range, 0), tree_(range + 1, 0) {
  while (top_bit_ * 2 <= range) top_bit_ *= 2;
  for (int64_t v = 0; v < range; ++v) Add(v, 1);
}

void UnigramRangeSampler::Add(int64_t value, int32_t delta) {
  weights_[value] += delta;
  total_ += delta;
  for (int64_t i = value + 1; i <= range_; i += i & -i) tree_[i] += delta;
}

int64_t UnigramRangeSampler::Sample(PhiloxWords* words) const {
  int32_t rest =
      static_cast<int32_t>(words->Uniform(static_cast<uint32_t>(total_)));
  int64_t pos = 0;
  for (int64_t step = top_bit_; step > 0; step >>= 1) {
    if (pos + step <= range_ && tree_[pos + step] <= rest) {
      pos += step;
      rest -= tree_[pos];
    }
  }
  return pos;
}

float UnigramRangeSampler::Probability(int64_t value) const {
  return static_cast<float>(Weight(value)) / static_cast<float>(total_);
}

void UnigramRangeSampler::Update(absl::Span<const int64_t> values) {
  // The total weight stays an int32, as TensorFlow's does.
  const int64_t room = int64_t{kInt32Max} - total_;
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(values.size()),
                                      room);
  for (int64_t i = 0; i < n; ++i) Add(values[i], 1);
}

absl::StatusOr<std::unique_ptr<FixedUnigramRangeSampler>>
FixedUnigramRangeSampler::Make(int64_t range,
                               const std::vector<float>& unigrams,
                               float distortion, int64_t num_reserved_ids,
                               int64_t num_shards, int64_t shard) {
  std::unique_ptr<FixedUnigramRangeSampler> s(
      new FixedUnigramRangeSampler(range));
  for (int64_t id = 0; id < num_reserved_ids; ++id) {
    if (id % num_shards == shard) s->weights_.push_back(0.0f);
  }
  // TensorFlow numbers the unigrams from the count of reserved weights
  // kept, not from num_reserved_ids.
  int64_t id = static_cast<int64_t>(s->weights_.size());
  for (float w : unigrams) {
    if (id % num_shards == shard) {
      w = std::pow(w, distortion);
      s->total_weight_ += w;
      s->weights_.push_back(w);
    }
    ++id;
  }
  const int64_t n = static_cast<int64_t>(s->weights_.size());
  if (n != range) {
    return absl::InvalidArgumentError(absl::StrCat(
        "range_max is ", range, " but the unigrams give ", n,
        " weights (num_reserved_ids ", num_reserved_ids, ", ",
        unigrams.size(), " unigrams, shard ", shard, " of ", num_shards,
        "); they must be equal"));
  }
  double sum = 0;
  for (float w : s->weights_) {
    if (!(w >= 0) || std::isinf(w)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unigram weights (after distortion) must be finite and >= 0, got ",
          w));
    }
    sum += w;
    if (w > 0) ++s->positive_;
  }
  if (s->positive_ == 0) {
    return absl::InvalidArgumentError(
        "unigrams must have a positive weight to sample from");
  }
  // Walker's alias table, built as TensorFlow's DistributionSampler does
  // (w * n in float, then divided by the double sum; the lists used as
  // stacks), so that the same floats select the same values.
  std::vector<double> pr(n);
  s->alias_.assign(n, {0.0f, -1});
  std::vector<int> high, low;
  for (int64_t i = 0; i < n; ++i) {
    const double p = (s->weights_[i] * static_cast<float>(n)) / sum;
    pr[i] = p;
    (p < 1.0 ? low : high).push_back(static_cast<int>(i));
  }
  while (!high.empty() && !low.empty()) {
    const int l = low.back();
    low.pop_back();
    const int h = high.back();
    high.pop_back();
    s->alias_[l].second = h;
    const double remaining = pr[h] - (1.0 - pr[l]);
    pr[h] = remaining;
    (remaining < 1.0 ? low : high).push_back(h);
  }
  for (int64_t i = 0; i < n; ++i) {
    s->alias_[i].first = static_cast<float>(pr[i]);
  }
  // Rounding leaves values near probability 1 on either list: keep them.
  for (const std::vector<int>* left : {&high, &low}) {
    for (int i : *left) s->alias_[i] = {1.0f, i};
  }
  return s;
}

int64_t FixedUnigramRangeSampler::Sample(PhiloxWords* words) const {
  const float r = words->RandFloat();
  const int n = static_cast<int>(alias_.size());
  const int bucket = static_cast<int>(words->Uniform(static_cast<uint32_t>(n)));
  return r < alias_[bucket].first ? bucket : alias_[bucket].second;
}

float FixedUnigramRangeSampler::Probability(int64_t value) const {
  if (value < 0 || value >= static_cast<int64_t>(weights_.size())) return 0;
  return weights_[value] / total_weight_;
}

}  // namespace dflow
