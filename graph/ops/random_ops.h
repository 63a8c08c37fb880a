// Random ops: tensors of a given shape filled from a distribution
// (TensorFlow's RandomStandardNormal, TruncatedNormal, RandomUniform,
// RandomUniformInt). They
// are stateful: every run draws new values, so the compiler never folds or
// merges them.
#ifndef DFLOW_GRAPH_OPS_RANDOM_OPS_H_
#define DFLOW_GRAPH_OPS_RANDOM_OPS_H_

#include <cstdint>

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

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_RANDOM_OPS_H_
