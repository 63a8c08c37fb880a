// Permutations (core/ops/random_ops.cc, stateless_random_ops_v2.cc,
// random_index_shuffle_ops.cc): RandomShuffle, a random permutation of a
// tensor's first dimension seeded like the other stateful random ops;
// StatelessShuffle, the same from a key and counter
// (tf.random.experimental.stateless_shuffle); and RandomIndexShuffle, the
// position of an index under a seeded permutation of [0, max_index]
// (tf.random.experimental.index_shuffle), which needs no state at all.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/random_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;

DFLOW_REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(0));
      return absl::OkStatus();
    })
    .Doc("Shuffles value along its first dimension.");

DFLOW_REGISTER_OP("StatelessShuffle")
    .Input("value: T")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      TensorShape unused;
      for (int i : {1, 2}) {
        DFLOW_RETURN_IF_ERROR(shape_fn_util::InputWithRank(*c, i, 1, &unused));
      }
      DFLOW_RETURN_IF_ERROR(shape_fn_util::InputWithRank(*c, 3, 0, &unused));
      c->set_output(0, c->input(0));
      return absl::OkStatus();
    })
    .Doc("Shuffles value along its first dimension, from a key and counter.");

DFLOW_REGISTER_OP("RandomIndexShuffle")
    .Input("index: dtype")
    .Input("seed: Tseed")
    .Input("max_index: dtype")
    .Output("output: dtype")
    .Attr("rounds: int = 4")
    .Attr("dtype: {int32, uint32, int64, uint64}")
    .Attr("Tseed: {int32, uint32, int64, uint64}")
    .SetShapeFn([](InferenceContext* c) {
      const TensorShape& index = c->input(0);
      const TensorShape& seed = c->input(1);
      const TensorShape& max_index = c->input(2);
      if (index.rank() > 1 || max_index.rank() > 1 ||
          (seed.rank() >= 0 && seed.rank() != 1 && seed.rank() != 2)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "index and max_index must be scalars or vectors and seed a [3] "
            "vector or [n, 3] matrix, got ",
            index.ToString(), ", ", max_index.ToString(), " and ",
            seed.ToString()));
      }
      if (seed.rank() >= 1 && seed.dim(seed.rank() - 1) >= 0 &&
          seed.dim(seed.rank() - 1) != 3) {
        return absl::InvalidArgumentError(absl::StrCat(
            "seed must have shape [3] or [n, 3], got ", seed.ToString()));
      }
      if (index.rank() == 0 && max_index.rank() == 0 && seed.rank() == 1) {
        c->set_output(0, TensorShape());
        return absl::OkStatus();
      }
      int64_t n = -1;
      if (index.rank() == 1) n = index.dim(0);
      if (n < 0 && max_index.rank() == 1) n = max_index.dim(0);
      if (n < 0 && seed.rank() == 2) n = seed.dim(0);
      c->set_output(0, TensorShape({n}));
      return absl::OkStatus();
    })
    .Doc("The image of index under a seeded permutation of [0, max_index].");

}  // namespace

namespace ops {

Output RandomShuffle(const Scope& scope, Input value,
                     const RandomAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "RandomShuffle")
                         .Input(value)
                         .Attr("seed", attrs.seed)
                         .Attr("seed2", attrs.seed2)
                         .Finalize());
}

Output StatelessShuffle(const Scope& scope, Input value, Input key,
                        Input counter, Input alg) {
  return FirstOutput(OpBuilder(scope, "StatelessShuffle")
                         .Input(value)
                         .Input(key)
                         .Input(counter)
                         .Input(alg)
                         .Finalize());
}

Output RandomIndexShuffle(const Scope& scope, Input index, Input seed,
                          Input max_index, int64_t rounds) {
  return FirstOutput(OpBuilder(scope, "RandomIndexShuffle")
                         .Input(index)
                         .Input(seed)
                         .Input(max_index)
                         .Attr("rounds", rounds)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
