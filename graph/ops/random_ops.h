// Random ops: tensors of a given shape filled from a distribution
// (TensorFlow's RandomStandardNormal, TruncatedNormal, RandomUniform,
// RandomUniformInt, RandomGamma, RandomPoissonV2, Multinomial,
// ParameterizedTruncatedNormal), permutations, the stateless versions of
// all of these (a seed or a Philox key and counter as inputs: same inputs,
// same values) and the candidate samplers of sampled losses. The stateful
// ones draw new values every run, so the compiler never folds or merges
// them; each kernel reproduces TensorFlow's numbers for a given seed.
#ifndef DFLOW_GRAPH_OPS_RANDOM_OPS_H_
#define DFLOW_GRAPH_OPS_RANDOM_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// Seeds of a random op. Both zero: a fresh random seed per op instance;
// otherwise the sequence is determined by (seed, seed2).
struct RandomAttrs {
  int64_t seed = 0;
  int64_t seed2 = 0;
  RandomAttrs& Seed(int64_t v) {
    seed = v;
    return *this;
  }
  RandomAttrs& Seed2(int64_t v) {
    seed2 = v;
    return *this;
  }
};

// Each takes the output shape as an int32/int64 vector (`{784, 100}` works)
// and the output dtype (half, bfloat16, float or double).

// Normal distribution, mean 0 and standard deviation 1.
Output RandomStandardNormal(const Scope& scope, Input shape, DataType dtype,
                            const RandomAttrs& attrs = {});
// Normal distribution with values beyond two standard deviations redrawn.
Output TruncatedNormal(const Scope& scope, Input shape, DataType dtype,
                       const RandomAttrs& attrs = {});
// Uniform distribution on [0, 1).
Output RandomUniform(const Scope& scope, Input shape, DataType dtype,
                     const RandomAttrs& attrs = {});

// Integers uniform on [minval, maxval) (int32 or int64 scalars of one
// type, minval < maxval), as TensorFlow draws them: (32 or 64 random bits
// mod (maxval - minval)) + minval. tf.image.random_crop's offsets.
Output RandomUniformInt(const Scope& scope, Input shape, Input minval,
                        Input maxval, const RandomAttrs& attrs = {});

// --- Stateless random ops (TensorFlow's V2: a key and a counter). ---

// The Philox key [1] and counter [2] (uint64) that TensorFlow derives from
// a [2] int32/int64 seed; feed them to the ops below with alg = 1 (Philox)
// or 3 (auto-select, Philox on CPU and GPU).
struct KeyCounter {
  Output key;
  Output counter;
};
KeyCounter StatelessRandomGetKeyCounter(const Scope& scope, Input seed);
Output StatelessRandomUniformV2(const Scope& scope, Input shape, Input key,
                                Input counter, Input alg,
                                DataType dtype = DT_FLOAT);
Output StatelessRandomNormalV2(const Scope& scope, Input shape, Input key,
                               Input counter, Input alg,
                               DataType dtype = DT_FLOAT);
Output StatelessTruncatedNormalV2(const Scope& scope, Input shape, Input key,
                                  Input counter, Input alg,
                                  DataType dtype = DT_FLOAT);

// More key/counter ops: integers on [minval, maxval) (int32, int64, uint32
// or uint64 bounds), integers over the dtype's whole range, Gamma(alpha)
// (alpha half/float/double; the shape ends with alpha's), and the key,
// counter and algorithm of a seed in one op.
Output StatelessRandomUniformIntV2(const Scope& scope, Input shape,
                                   Input key, Input counter, Input alg,
                                   Input minval, Input maxval);
Output StatelessRandomUniformFullIntV2(const Scope& scope, Input shape,
                                       Input key, Input counter, Input alg,
                                       DataType dtype = DT_UINT64);
Output StatelessRandomGammaV3(const Scope& scope, Input shape, Input key,
                              Input counter, Input alg, Input alpha);
struct KeyCounterAlg {
  Output key;
  Output counter;
  Output alg;
};
KeyCounterAlg StatelessRandomGetKeyCounterAlg(const Scope& scope,
                                              Input seed);
// The algorithm auto-select (3) stands for: Philox (1).
Output StatelessRandomGetAlg(const Scope& scope);

// --- Distributions with parameters (stateful, seeded by RandomAttrs). ---

// Gamma(alpha, 1) for every alpha, shape + alpha's shape (half, float or
// double), by Marsaglia and Tsang's method as TensorFlow draws it.
Output RandomGamma(const Scope& scope, Input shape, Input alpha,
                   const RandomAttrs& attrs = {});
// Poisson(rate) for every rate, shape + rate's shape, in `dtype` (half,
// float, double, int32 or int64): Knuth's method below rate 10, Hormann's
// transformed rejection above.
Output RandomPoissonV2(const Scope& scope, Input shape, Input rate,
                       DataType dtype = DT_INT64,
                       const RandomAttrs& attrs = {});
// [batch, num_samples] class indices from logits [batch, classes]
// (unnormalized log-probabilities; int32 num_samples >= 0).
Output Multinomial(const Scope& scope, Input logits, Input num_samples,
                   DataType output_dtype = DT_INT64,
                   const RandomAttrs& attrs = {});
// Normal(means[i], stdevs[i]) truncated to [minvals[i], maxvals[i]] for row
// i of `shape` (parameters scalars or vectors of length shape[0]).
Output ParameterizedTruncatedNormal(const Scope& scope, Input shape,
                                    Input means, Input stdevs, Input minvals,
                                    Input maxvals,
                                    const RandomAttrs& attrs = {});

// --- Stateless ops with a [2] int32/int64 seed (version 1). ---

Output StatelessMultinomial(const Scope& scope, Input logits,
                            Input num_samples, Input seed,
                            DataType output_dtype = DT_INT64);
Output StatelessRandomGammaV2(const Scope& scope, Input shape, Input seed,
                              Input alpha);
// The shape ends with lam's; lam and the output half, float, double, int32
// or int64.
Output StatelessRandomPoisson(const Scope& scope, Input shape, Input seed,
                              Input lam, DataType dtype);
// The shape ends with the broadcast shape of counts and probs (half, float
// or double).
Output StatelessRandomBinomial(const Scope& scope, Input shape, Input seed,
                               Input counts, Input probs,
                               DataType dtype = DT_INT64);
// The shape ends with the broadcast shape of the four parameters.
Output StatelessParameterizedTruncatedNormal(const Scope& scope, Input shape,
                                             Input seed, Input means,
                                             Input stddevs, Input minvals,
                                             Input maxvals);
Output StatelessRandomUniform(const Scope& scope, Input shape, Input seed,
                              DataType dtype = DT_FLOAT);
Output StatelessRandomNormal(const Scope& scope, Input shape, Input seed,
                             DataType dtype = DT_FLOAT);
Output StatelessTruncatedNormal(const Scope& scope, Input shape, Input seed,
                                DataType dtype = DT_FLOAT);
Output StatelessRandomUniformInt(const Scope& scope, Input shape, Input seed,
                                 Input minval, Input maxval);
Output StatelessRandomUniformFullInt(const Scope& scope, Input shape,
                                     Input seed, DataType dtype = DT_UINT64);

// --- Permutations. ---

// `value` with its first dimension permuted (any dtype).
Output RandomShuffle(const Scope& scope, Input value,
                     const RandomAttrs& attrs = {});
Output StatelessShuffle(const Scope& scope, Input value, Input key,
                        Input counter, Input alg);
// index -> its image under the permutation of [0, max_index] that a [3]
// seed selects (or per element with vectors and an [n, 3] seed).
Output RandomIndexShuffle(const Scope& scope, Input index, Input seed,
                          Input max_index, int64_t rounds = 4);

// --- tf.random.Generator: state in an int64 resource variable. ---

// The state ([3]: counter low, counter high, key for Philox, alg 1 or 3)
// before its counter moves on by 256 * delta (uint64) blocks.
Output RngReadAndSkip(const Scope& scope, Input resource, Input alg,
                      Input delta);
// The older ops of tf.random.Generator: `op` one of StatefulUniform,
// StatefulStandardNormalV2, StatefulTruncatedNormal, StatefulUniformFullInt
// (algorithm an int64 scalar: 1 Philox), drawing from the state and moving
// it on by 256 blocks per element.
Output StatefulRandom(const Scope& scope, const std::string& op,
                      Input resource, Input algorithm, Input shape,
                      DataType dtype);
Output StatefulUniformInt(const Scope& scope, Input resource, Input algorithm,
                          Input shape, Input minval, Input maxval);
// Moves the state's counter on by 256 * delta blocks.
Operation RngSkip(const Scope& scope, Input resource, Input algorithm,
                  Input delta);
// Integers from the OS's entropy (not reproducible).
Output NonDeterministicInts(const Scope& scope, Input shape,
                            DataType dtype = DT_INT64);
// Binomial draws from the state (algorithm: int64 scalar, Philox), which
// moves on past the blocks they may use.
Output StatefulRandomBinomial(const Scope& scope, Input resource,
                              Input algorithm, Input shape, Input counts,
                              Input probs, DataType dtype = DT_INT64);

// --- Candidate samplers (tf.nn.sampled_softmax_loss, tf.nn.nce_loss). ---

// true_classes: int64 [batch, num_true]. sampled_candidates: int64
// [num_sampled] from [0, range_max) (distinct when `unique`);
// true_expected_count [batch, num_true] and sampled_expected_count
// [num_sampled]: how often each would be drawn in num_sampled tries (with
// `unique`, the probability of being among the distinct ones).
struct CandidateSample {
  Output sampled_candidates;
  Output true_expected_count;
  Output sampled_expected_count;
};
CandidateSample UniformCandidateSampler(const Scope& scope,
                                        Input true_classes, int64_t num_true,
                                        int64_t num_sampled, bool unique,
                                        int64_t range_max,
                                        const RandomAttrs& attrs = {});
CandidateSample LogUniformCandidateSampler(const Scope& scope,
                                           Input true_classes,
                                           int64_t num_true,
                                           int64_t num_sampled, bool unique,
                                           int64_t range_max,
                                           const RandomAttrs& attrs = {});
// Weights 1 + the times each class was a true class of an earlier run.
CandidateSample LearnedUnigramCandidateSampler(
    const Scope& scope, Input true_classes, int64_t num_true,
    int64_t num_sampled, bool unique, int64_t range_max,
    const RandomAttrs& attrs = {});
CandidateSample ThreadUnsafeUnigramCandidateSampler(
    const Scope& scope, Input true_classes, int64_t num_true,
    int64_t num_sampled, bool unique, int64_t range_max,
    const RandomAttrs& attrs = {});
// [0, num_sampled) in order, expected counts 1.
CandidateSample AllCandidateSampler(const Scope& scope, Input true_classes,
                                    int64_t num_true, int64_t num_sampled,
                                    bool unique,
                                    const RandomAttrs& attrs = {});
struct FixedUnigramAttrs {
  float distortion = 1.0f;
  int64_t num_reserved_ids = 0;
  int64_t num_shards = 1;
  int64_t shard = 0;
};
// Weights unigrams[i]^distortion (range_max of them, after num_reserved_ids
// zero weights, this shard's share).
CandidateSample FixedUnigramCandidateSampler(
    const Scope& scope, Input true_classes, int64_t num_true,
    int64_t num_sampled, bool unique, int64_t range_max,
    const std::vector<float>& unigrams, const FixedUnigramAttrs& fixed = {},
    const RandomAttrs& attrs = {});

// The true classes found among sampled_candidates: row indices (int32),
// positions in sampled_candidates (int64) and weights -FLT_MAX.
struct AccidentalHits {
  Output indices;
  Output ids;
  Output weights;
};
AccidentalHits ComputeAccidentalHits(const Scope& scope, Input true_classes,
                                     Input sampled_candidates,
                                     int64_t num_true,
                                     const RandomAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_RANDOM_OPS_H_
