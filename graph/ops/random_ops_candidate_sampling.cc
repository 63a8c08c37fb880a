// Schemas, shape functions and wrappers of TensorFlow's candidate samplers
// and ComputeAccidentalHits (core/ops/candidate_sampling_ops.cc): the ops
// tf.nn.sampled_softmax_loss and tf.nn.nce_loss write to pick negative
// classes from [0, range_max) and to mask the true classes among them.
// Every sampler takes true_classes [batch, num_true] (int64) and returns
// sampled_candidates [num_sampled], true_expected_count [batch, num_true]
// and sampled_expected_count [num_sampled].
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/random_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::InputWithRank;

absl::Status CandidateSamplerShape(InferenceContext* c) {
  int64_t num_sampled = 0, num_true = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("num_sampled", &num_sampled));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("num_true", &num_true));
  TensorShape classes;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 2, &classes));
  int64_t cols;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      classes.dim(1), num_true,
      absl::StrCat("true_classes' columns and num_true (", num_true, ")"),
      &cols));
  c->set_output(0, TensorShape({num_sampled}));
  c->set_output(1, TensorShape({classes.dim(0), num_true}));
  c->set_output(2, TensorShape({num_sampled}));
  return absl::OkStatus();
}

#define DFLOW_CANDIDATE_SAMPLER(name, doc)         \
  DFLOW_REGISTER_OP(name)                          \
      .Input("true_classes: int64")                \
      .Output("sampled_candidates: int64")         \
      .Output("true_expected_count: float")        \
      .Output("sampled_expected_count: float")     \
      .Attr("num_true: int >= 1")                  \
      .Attr("num_sampled: int >= 1")               \
      .Attr("unique: bool")                        \
      .Attr("range_max: int >= 1")                 \
      .Attr("seed: int = 0")                       \
      .Attr("seed2: int = 0")                      \
      .SetIsStateful()                             \
      .SetShapeFn(CandidateSamplerShape)           \
      .Doc(doc)

DFLOW_CANDIDATE_SAMPLER("UniformCandidateSampler",
                        "Candidates uniform on [0, range_max).");
DFLOW_CANDIDATE_SAMPLER("LogUniformCandidateSampler",
                        "Candidates with P(k) = log((k+2)/(k+1)) / "
                        "log(range_max+1) (Zipfian vocabularies sorted by "
                        "frequency; nce_loss's and sampled_softmax_loss's "
                        "default).");
DFLOW_CANDIDATE_SAMPLER("LearnedUnigramCandidateSampler",
                        "Candidates in proportion to 1 + how often each "
                        "class was a true class in earlier steps.");
DFLOW_CANDIDATE_SAMPLER("ThreadUnsafeUnigramCandidateSampler",
                        "LearnedUnigramCandidateSampler without its lock.");

#undef DFLOW_CANDIDATE_SAMPLER

DFLOW_REGISTER_OP("AllCandidateSampler")
    .Input("true_classes: int64")
    .Output("sampled_candidates: int64")
    .Output("true_expected_count: float")
    .Output("sampled_expected_count: float")
    .Attr("num_true: int >= 1")
    .Attr("num_sampled: int >= 1")
    .Attr("unique: bool")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetIsStateful()
    .SetShapeFn(CandidateSamplerShape)
    .Doc("Every class of [0, num_sampled), each with expected count 1.");

DFLOW_REGISTER_OP("FixedUnigramCandidateSampler")
    .Input("true_classes: int64")
    .Output("sampled_candidates: int64")
    .Output("true_expected_count: float")
    .Output("sampled_expected_count: float")
    .Attr("num_true: int >= 1")
    .Attr("num_sampled: int >= 1")
    .Attr("unique: bool")
    .Attr("range_max: int >= 1")
    .Attr("vocab_file: string = ''")
    .Attr("distortion: float = 1")
    .Attr("num_reserved_ids: int = 0")
    .Attr("num_shards: int >= 1 = 1")
    .Attr("shard: int >= 0 = 0")
    .Attr("unigrams: list(float) = []")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetIsStateful()
    .SetShapeFn(CandidateSamplerShape)
    .Doc("Candidates in proportion to fixed unigram counts raised to "
         "`distortion` (dflow takes them from `unigrams`; `vocab_file` is "
         "refused).");

DFLOW_REGISTER_OP("ComputeAccidentalHits")
    .Input("true_classes: int64")
    .Input("sampled_candidates: int64")
    .Output("indices: int32")
    .Output("ids: int64")
    .Output("weights: float")
    .Attr("num_true: int")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn([](InferenceContext* c) {
      int64_t num_true = 0;
      DFLOW_RETURN_IF_ERROR(c->GetAttr("num_true", &num_true));
      TensorShape classes, sampled;
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 2, &classes));
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &sampled));
      int64_t cols;
      DFLOW_RETURN_IF_ERROR(c->MergeDim(
          classes.dim(1), num_true,
          absl::StrCat("true_classes' columns and num_true (", num_true, ")"),
          &cols));
      for (int i = 0; i < 3; ++i) c->set_output(i, TensorShape({-1}));
      return absl::OkStatus();
    })
    .Doc("Where true classes occur among the sampled candidates: row "
         "indices, candidate positions and weights of -FLT_MAX to add to "
         "those logits.");

ops::CandidateSample Sample(const Operation& op) {
  OutputList out = AllOutputs(op, 3);
  return {out[0], out[1], out[2]};
}

Operation BuildSampler(const Scope& scope, const char* name,
                       Input true_classes, int64_t num_true,
                       int64_t num_sampled, bool unique, int64_t range_max,
                       const ops::RandomAttrs& attrs) {
  OpBuilder b(scope, name);
  b.Input(true_classes)
      .Attr("num_true", num_true)
      .Attr("num_sampled", num_sampled)
      .Attr("unique", unique)
      .Attr("seed", attrs.seed)
      .Attr("seed2", attrs.seed2);
  if (range_max > 0) b.Attr("range_max", range_max);
  return b.Finalize();
}

}  // namespace

namespace ops {

#define DFLOW_SAMPLER_WRAPPER(name)                                           \
  CandidateSample name(const Scope& scope, Input true_classes,               \
                       int64_t num_true, int64_t num_sampled, bool unique,   \
                       int64_t range_max, const RandomAttrs& attrs) {        \
    return Sample(BuildSampler(scope, #name, true_classes, num_true,         \
                               num_sampled, unique, range_max, attrs));      \
  }

DFLOW_SAMPLER_WRAPPER(UniformCandidateSampler)
DFLOW_SAMPLER_WRAPPER(LogUniformCandidateSampler)
DFLOW_SAMPLER_WRAPPER(LearnedUnigramCandidateSampler)
DFLOW_SAMPLER_WRAPPER(ThreadUnsafeUnigramCandidateSampler)

#undef DFLOW_SAMPLER_WRAPPER

CandidateSample AllCandidateSampler(const Scope& scope, Input true_classes,
                                    int64_t num_true, int64_t num_sampled,
                                    bool unique, const RandomAttrs& attrs) {
  return Sample(BuildSampler(scope, "AllCandidateSampler", true_classes,
                             num_true, num_sampled, unique, 0, attrs));
}

CandidateSample FixedUnigramCandidateSampler(
    const Scope& scope, Input true_classes, int64_t num_true,
    int64_t num_sampled, bool unique, int64_t range_max,
    const std::vector<float>& unigrams, const FixedUnigramAttrs& fixed,
    const RandomAttrs& attrs) {
  OpBuilder b(scope, "FixedUnigramCandidateSampler");
  b.Input(true_classes)
      .Attr("num_true", num_true)
      .Attr("num_sampled", num_sampled)
      .Attr("unique", unique)
      .Attr("range_max", range_max)
      .Attr("unigrams", absl::MakeConstSpan(unigrams))
      .Attr("distortion", fixed.distortion)
      .Attr("num_reserved_ids", fixed.num_reserved_ids)
      .Attr("num_shards", fixed.num_shards)
      .Attr("shard", fixed.shard)
      .Attr("seed", attrs.seed)
      .Attr("seed2", attrs.seed2);
  return Sample(b.Finalize());
}

AccidentalHits ComputeAccidentalHits(const Scope& scope, Input true_classes,
                                     Input sampled_candidates,
                                     int64_t num_true,
                                     const RandomAttrs& attrs) {
  Operation op = OpBuilder(scope, "ComputeAccidentalHits")
                     .Input(true_classes)
                     .Input(sampled_candidates)
                     .Attr("num_true", num_true)
                     .Attr("seed", attrs.seed)
                     .Attr("seed2", attrs.seed2)
                     .Finalize();
  OutputList out = AllOutputs(op, 3);
  return {out[0], out[1], out[2]};
}

}  // namespace ops
}  // namespace dflow
