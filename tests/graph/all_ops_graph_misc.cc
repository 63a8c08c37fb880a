// The everyday ops TensorFlow's Python API and older graphs write that the
// other parts leave out (the "misc" family: LinSpace, UnravelIndex,
// UniqueV2, NthElement, the v1 TopK/InTopK, Mod, ...) for the every-op
// graph.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildMiscOps(const Scope& root) {
  const Scope s = root.NewSubScope("misc");
  Output m = ops::Const(s, {3.0f, 1.0f, 2.0f, 3.0f, 1.0f, 2.0f}, {2, 3});
  ops::LinSpace(s, ops::Const(s, 0.0f), ops::Const(s, 1.0f),
                ops::Const(s, 5));
  ops::UnravelIndex(s, ops::Const(s, {1, 5}), ops::Const(s, {2, 3}));
  ops::UniqueV2(s, m, ops::Const(s, {int64_t{1}}));
  ops::UniqueWithCountsV2(s, m, ops::Const(s, {int64_t{0}}));
  ops::NthElement(s, m, ops::Const(s, 1), /*reverse=*/true);
  ops::TopK(s, m, 2);
  ops::InTopK(s, m, ops::Const(s, {0, 2}), 1);
  ops::Mod(s, m, ops::Const(s, 2.0f));

  Output images = ops::Const(s, {1.0f, 2.0f, 3.0f, 4.0f}, {1, 2, 2, 1});
  Output shift = ops::Const(s, {1.0f, 0.0f, 0.5f, 0.0f, 1.0f, 0.0f, 0.0f,
                                0.0f}, {1, 8});
  ops::ImageProjectiveTransformV2(s, images, shift, ops::Const(s, {2, 2}),
                                  "BILINEAR", "REFLECT");
  ops::ImageProjectiveTransformV3(s, images, shift, ops::Const(s, {3, 2}),
                                  ops::Const(s, 0.5f), "NEAREST");
  Output offsets = ops::Const(s, {0.1f, -0.2f}, {1, 2});
  ops::ExtractGlimpse(s, images, ops::Const(s, {1, 1}), offsets);
  ops::ExtractGlimpseV2(s, images, ops::Const(s, {3, 3}), offsets,
                        ops::ExtractGlimpseAttrs().UniformNoise(false).Noise(
                            "zero"));

  Output pool_in = ops::Const(s, {1.0f, 5.0f, 2.0f, 4.0f, 3.0f, 0.0f, 7.0f,
                                  6.0f, 8.0f}, {1, 3, 3, 1});
  Output ksize = ops::Const(s, {1, 2, 2, 1});
  Output strides = ops::Const(s, {1, 1, 1, 1});
  Output pooled = ops::MaxPoolV2(s, pool_in, ksize, strides, "VALID");
  Output dpool = ops::MaxPoolGradV2(s, pool_in, pooled, pooled, ksize, strides,
                                    "VALID");
  ops::MaxPoolGradGrad(s, pool_in, pooled, dpool, {1, 2, 2, 1}, {1, 1, 1, 1},
                       "VALID");
  ops::MaxPoolGradGradV2(s, pool_in, pooled, dpool, ksize, strides, "VALID");

  Output diag = ops::Const(s, {1.0f, 2.0f, 3.0f});
  Output sq = ops::MatrixDiag(s, diag);
  ops::MatrixDiagPart(s, sq);
  ops::MatrixSetDiag(s, sq, diag);
  Output zero = ops::Const(s, 0);
  Output minus1 = ops::Const(s, -1);
  Output sq2 = ops::MatrixDiagV2(s, diag, zero, minus1, minus1,
                                 ops::Const(s, 0.0f));
  ops::MatrixDiagPartV2(s, sq2, zero, ops::Const(s, 0.0f));
  ops::MatrixSetDiagV2(s, sq2, diag, zero);

  ops::ConjugateTranspose(s, sq, ops::Const(s, {1, 0}));
  Output rows = ops::Const(s, {2});
  Output row = ops::Const(s, {7.0f, 8.0f, 9.0f}, {1, 3});
  ops::InplaceAdd(s, sq, rows, row);
  ops::InplaceSub(s, sq, rows, row);
  ops::InplaceUpdate(s, sq, rows, row);
  ops::ParallelConcat(s, {row, row}, TensorShape({2, 3}));
  ops::GuaranteeConst(s, diag);
  ops::Timestamp(s);
  ops::CheckNumericsV2(s, diag, "diag");

  Output state = ops::VarHandleOp(s.WithOpName("generator_state"), DT_INT64,
                                  TensorShape({3}));
  Output philox = ops::Const(s, int64_t{1});
  Output draw_shape = ops::Const(s, {int64_t{2}, int64_t{3}});
  for (const char* op : {"StatefulUniform", "StatefulStandardNormalV2",
                         "StatefulTruncatedNormal"}) {
    ops::StatefulRandom(s, op, state, philox, draw_shape, DT_FLOAT);
  }
  ops::StatefulRandom(s, "StatefulUniformFullInt", state, philox, draw_shape,
                      DT_UINT64);
  ops::StatefulUniformInt(s, state, philox, draw_shape, ops::Const(s, 0),
                          ops::Const(s, 10));
  ops::RngSkip(s, state, philox, ops::Const(s, int64_t{4}));
  ops::NonDeterministicInts(s, draw_shape);
}

}  // namespace dflow
