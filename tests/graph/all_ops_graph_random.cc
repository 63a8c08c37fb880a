// The random sampling ops of graph/ops/random_ops.h for the every-op graph:
// parameterized distributions, stateless ops (seed and key/counter), the
// shuffles and the candidate samplers.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildRandomSamplingOps(const Scope& root) {
  const Scope s = root.NewSubScope("random_sampling");
  const ops::RandomAttrs seeded = ops::RandomAttrs().Seed(3).Seed2(4);
  Output shape = ops::Const(s, {2, 3});
  Output alpha = ops::Const(s, {0.5f, 1.0f, 2.0f});
  Output logits = ops::Const(s, {0.1f, 0.2f, 0.7f, 1.0f, 2.0f, 3.0f}, {2, 3});
  Output seed = ops::Const(s, {int64_t{1}, int64_t{2}});
  ops::RandomGamma(s, shape, alpha, seeded);
  ops::RandomPoissonV2(s, shape, alpha, DT_INT64, seeded);
  ops::Multinomial(s, logits, 4, DT_INT32, seeded);
  ops::ParameterizedTruncatedNormal(s, shape, 0.0f, 1.0f, -1.0f, 2.0f,
                                    seeded);
  ops::StatelessMultinomial(s, logits, 4, seed);
  ops::StatelessRandomGammaV2(s, shape, seed, alpha);
  ops::StatelessRandomPoisson(s, shape, seed, alpha, DT_FLOAT);
  ops::StatelessRandomBinomial(s, shape, seed, ops::Const(s, 5.0f), 0.5f);
  ops::StatelessParameterizedTruncatedNormal(s, shape, seed, 0.0f, 1.0f,
                                             -1.0f, 2.0f);
  ops::StatelessRandomUniform(s, shape, seed);
  ops::StatelessRandomNormal(s, shape, seed);
  ops::StatelessTruncatedNormal(s, shape, seed);
  ops::StatelessRandomUniformInt(s, shape, seed, 0, 10);
  ops::StatelessRandomUniformFullInt(s, shape, seed, DT_INT64);

  ops::KeyCounterAlg kca = ops::StatelessRandomGetKeyCounterAlg(s, seed);
  Output alg = ops::StatelessRandomGetAlg(s);
  ops::StatelessRandomUniformIntV2(s, shape, kca.key, kca.counter, kca.alg,
                                   0, 10);
  ops::StatelessRandomUniformFullIntV2(s, shape, kca.key, kca.counter, alg,
                                       DT_UINT32);
  ops::StatelessRandomGammaV3(s, shape, kca.key, kca.counter, kca.alg, alpha);
  ops::StatelessShuffle(s, logits, kca.key, kca.counter, kca.alg);
  ops::RandomShuffle(s, logits, seeded);
  ops::RandomIndexShuffle(s, int64_t{3}, ops::Const(s, {1, 2, 3}),
                          int64_t{9});

  Output state = ops::VarHandleOp(s.WithOpName("generator_state"), DT_INT64,
                                 TensorShape({3}));
  Output skipped = ops::RngReadAndSkip(
      s, state, 1, ops::Const(s, Tensor::Scalar<uint64_t>(4)));
  ops::StatefulRandomBinomial(s.WithControlDependencies(skipped), state,
                              int64_t{1}, shape, ops::Const(s, 5.0f), 0.5f);

  Output classes = ops::Const(s, {int64_t{1}, int64_t{4}, int64_t{7}},
                              {3, 1});
  ops::CandidateSample uniform =
      ops::UniformCandidateSampler(s, classes, 1, 4, true, 10, seeded);
  ops::LogUniformCandidateSampler(s, classes, 1, 4, true, 10, seeded);
  ops::LearnedUnigramCandidateSampler(s, classes, 1, 4, false, 10, seeded);
  ops::ThreadUnsafeUnigramCandidateSampler(s, classes, 1, 4, true, 10);
  ops::AllCandidateSampler(s, classes, 1, 10, true);
  ops::FixedUnigramCandidateSampler(s, classes, 1, 4, true, 10,
                                    {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  ops::ComputeAccidentalHits(s, classes, uniform.sampled_candidates, 1);
}

}  // namespace dflow
