// Tests of the GPU launchers' host-side shape logic (kernels/gpu/
// gpu_shape_plans.h): broadcast plans checked element by element against
// NumPy's indexing, reduction axes and their collapsed runs, the pass
// schedule simulated on the host against a naive reduction, and the
// cross-entropy broadcast. Runs everywhere (no GPU needed).
#include "kernels/gpu/gpu_shape_plans.h"

#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Shape = std::vector<int64_t>;

int64_t NumElements(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

// What the device kernels compute: operand offsets of output element i.
std::vector<int64_t> PlanOffsets(const BroadcastPlan& p, int64_t i) {
  std::vector<int64_t> off(p.num_operands, 0);
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t c = i % p.dims[d];
    i /= p.dims[d];
    for (int k = 0; k < p.num_operands; ++k) off[k] += c * p.strides[k][d];
  }
  return off;
}

// NumPy's rule: the operand's element at the output's multi-index with
// broadcast dimensions pinned to 0.
int64_t NumpyOffset(const Shape& operand, const Shape& out, int64_t i) {
  const int pad = static_cast<int>(out.size() - operand.size());
  int64_t offset = 0;
  int64_t stride = 1;
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    const int64_t c = i % out[d];
    i /= out[d];
    if (d < pad) continue;
    const int64_t size = operand[d - pad];
    if (size != 1) offset += c * stride;
    stride *= size;
  }
  return offset;
}

void ExpectPlanMatchesNumpy(const std::vector<Shape>& shapes) {
  Shape out;
  absl::StatusOr<BroadcastPlan> p = MakeBroadcastPlan(shapes, &out);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->num_elements, NumElements(out));
  for (int64_t i = 0; i < p->num_elements; ++i) {
    const std::vector<int64_t> off = PlanOffsets(*p, i);
    for (size_t k = 0; k < shapes.size(); ++k) {
      ASSERT_EQ(off[k], NumpyOffset(shapes[k], out, i))
          << "operand " << k << ", output element " << i;
    }
  }
  for (size_t k = 0; k < shapes.size(); ++k) {
    EXPECT_EQ(p->scalar[k], NumElements(shapes[k]) == 1) << k;
    if (p->same[k]) {
      EXPECT_EQ(NumElements(shapes[k]), p->num_elements) << k;
      for (int64_t i = 0; i < p->num_elements; ++i) {
        ASSERT_EQ(PlanOffsets(*p, i)[k], i);
      }
    }
  }
}

TEST(BroadcastPlanTest, EqualShapesAreOneFlatDimension) {
  Shape out;
  auto p = MakeBroadcastPlan({{2, 3, 4}, {2, 3, 4}}, &out);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->rank, 1);
  EXPECT_EQ(p->dims[0], 24);
  EXPECT_TRUE(p->same[0] && p->same[1]);
  EXPECT_THAT(out, ElementsAre(2, 3, 4));
}

TEST(BroadcastPlanTest, BiasLikeBroadcastCollapses) {
  Shape out;
  auto p = MakeBroadcastPlan({{8, 32, 32, 16}, {16}}, &out);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->rank, 2);
  EXPECT_EQ(p->dims[0], 8192);
  EXPECT_EQ(p->dims[1], 16);
  EXPECT_EQ(p->strides[0][0], 16);
  EXPECT_EQ(p->strides[0][1], 1);
  EXPECT_EQ(p->strides[1][0], 0);
  EXPECT_EQ(p->strides[1][1], 1);
  EXPECT_TRUE(p->same[0]);
  EXPECT_FALSE(p->same[1]);
}

TEST(BroadcastPlanTest, ScalarIsRankOneWithStrideZero) {
  Shape out;
  auto p = MakeBroadcastPlan({{5, 7}, {}}, &out);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->rank, 1);
  EXPECT_EQ(p->strides[1][0], 0);
  EXPECT_TRUE(p->scalar[1]);
  EXPECT_THAT(out, ElementsAre(5, 7));
  auto q = MakeBroadcastPlan({{1, 1}, {1}}, &out);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->num_elements, 1);
  EXPECT_THAT(out, ElementsAre(1, 1));
}

TEST(BroadcastPlanTest, LeadingOnesDoNotBreakSameness) {
  Shape out;
  auto p = MakeBroadcastPlan({{1, 3}, {3}}, &out);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->same[0] && p->same[1]);
  EXPECT_THAT(out, ElementsAre(1, 3));
}

TEST(BroadcastPlanTest, MatchesNumpyOnManyShapes) {
  const std::vector<std::vector<Shape>> cases = {
      {{2, 1, 3}, {1, 4, 1}},
      {{3, 1}, {1, 5}},
      {{4, 1, 5, 1}, {3, 1, 6}},
      {{2, 3, 4, 5}, {3, 1, 5}},
      {{7}, {3, 1}},
      {{1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1}},
      {{0, 3}, {1, 3}},
      {{2, 1}, {1, 3}, {2, 3}},  // select: cond, x, y
      {{}, {2, 3}, {3}},
      {{2, 1, 4}, {}, {1, 3, 1}},
  };
  for (const auto& shapes : cases) {
    SCOPED_TRACE(::testing::PrintToString(shapes));
    ExpectPlanMatchesNumpy(shapes);
  }
}

TEST(BroadcastPlanTest, RandomShapesMatchNumpy) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = rng() % 6;
    const int operands = 2 + rng() % 2;
    Shape full(rank);
    for (int64_t& d : full) d = 1 + rng() % 4;
    std::vector<Shape> shapes(operands);
    for (Shape& s : shapes) {
      const int r = rng() % (rank + 1);
      s.assign(full.end() - r, full.end());
      for (int64_t& d : s) {
        if (rng() % 3 == 0) d = 1;
      }
    }
    SCOPED_TRACE(::testing::PrintToString(shapes));
    ExpectPlanMatchesNumpy(shapes);
  }
}

TEST(BroadcastPlanTest, IncompatibleShapesNameBoth) {
  Shape out;
  auto p = MakeBroadcastPlan({{2, 3}, {4}}, &out);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(),
              HasSubstr("Incompatible shapes: [2,3] vs. [4] (output dimension "
                        "1 is 3 in the first and 4 in the second"));
  auto q = MakeBroadcastPlan({{2}, {2}, {3}}, &out);
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.status().message(), HasSubstr("[2] vs. [2] vs. [3]"));
}

TEST(BroadcastPlanTest, TooManyCollapsedDimensionsIsUnimplemented) {
  // Alternating repeats cannot merge: 9 collapsed dimensions.
  Shape out;
  auto p = MakeBroadcastPlan(
      {{2, 1, 2, 1, 2, 1, 2, 1, 2}, {1, 2, 1, 2, 1, 2, 1, 2, 1}}, &out);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(p.status().message(), HasSubstr("reshape"));
  // Rank 9 that collapses is fine.
  EXPECT_TRUE(MakeBroadcastPlan({{2, 2, 2, 2, 2, 2, 2, 2, 2}, {2}}, &out).ok());
}

// --- Reductions. ---

TEST(ReducePlanTest, AxesCanonicalised) {
  auto p = MakeReducePlan({8, 32, 32, 16}, {0, -3, 2});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->run_dims, ElementsAre(8192, 16));
  EXPECT_THAT(p->run_reduced, ElementsAre(true, false));
  EXPECT_EQ(p->reduce_count, 8192);
  EXPECT_EQ(p->out_elements, 16);
  EXPECT_THAT(p->output_shape, ElementsAre(16));
  EXPECT_THAT(p->output_shape_keep_dims, ElementsAre(1, 1, 1, 16));
}

TEST(ReducePlanTest, SizeOneDimensionsDropAndNeighboursMerge) {
  auto p = MakeReducePlan({4, 1, 5, 6, 1, 7}, {1, 2, 3});
  ASSERT_TRUE(p.ok());
  EXPECT_THAT(p->run_dims, ElementsAre(4, 30, 7));
  EXPECT_THAT(p->run_reduced, ElementsAre(false, true, false));
  auto q = MakeReducePlan({3, 1, 4}, {1});
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->is_identity());
  EXPECT_THAT(q->output_shape, ElementsAre(3, 4));
  auto none = MakeReducePlan({3, 4}, {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->is_identity());
  auto scalar = MakeReducePlan({}, {});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->out_elements, 1);
  EXPECT_TRUE(scalar->is_identity());
}

TEST(ReducePlanTest, EmptyDimensions) {
  auto p = MakeReducePlan({3, 0, 2}, {1});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->reduce_count, 0);
  EXPECT_EQ(p->out_elements, 6);
  auto q = MakeReducePlan({0, 5}, {1});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->out_elements, 0);
}

TEST(ReducePlanTest, BadAxesFailWithTheCpuMessages) {
  auto p = MakeReducePlan({2, 3}, {2});
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(),
              HasSubstr("Invalid reduction dimension (2 for input with 2 "
                        "dimension(s)): input shape [2,3], axes must be in "
                        "[-2, 2)"));
  auto q = MakeReducePlan({2, 3}, {1, -1});
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.status().message(),
              HasSubstr("Axes contains duplicate dimension: 1"));
}

// Runs a schedule on the host with wrapping integer sums, as the device
// passes do, and returns the output.
std::vector<uint64_t> SimulateSchedule(const ReduceSchedule& s,
                                       const std::vector<uint64_t>& input,
                                       int64_t out_elements) {
  std::vector<uint64_t> buffers[4];
  buffers[ReducePass::kInput] = input;
  buffers[ReducePass::kOutput].assign(out_elements, ~uint64_t{0});
  buffers[ReducePass::kWorkspace0].assign(s.workspace_elements[0], 0);
  buffers[ReducePass::kWorkspace1].assign(s.workspace_elements[1], 0);
  for (const ReducePass& p : s.passes) {
    const std::vector<uint64_t>& src = buffers[p.src];
    std::vector<uint64_t>& dst = buffers[p.dst];
    const int64_t chunks = p.chunks();
    EXPECT_LE(p.outer * chunks * p.inner, static_cast<int64_t>(dst.size()));
    EXPECT_LE(p.outer * p.reduce * p.inner, static_cast<int64_t>(src.size()));
    EXPECT_LE(p.chunk, p.inner == 1 ? kReduceRowChunk : kReduceColumnChunk);
    for (int64_t o = 0; o < p.outer; ++o) {
      for (int64_t c = 0; c < chunks; ++c) {
        for (int64_t i = 0; i < p.inner; ++i) {
          uint64_t acc = 0;
          for (int64_t r = c * p.chunk;
               r < std::min(p.reduce, (c + 1) * p.chunk); ++r) {
            acc += src[(o * p.reduce + r) * p.inner + i];
          }
          dst[(o * chunks + c) * p.inner + i] = acc;
        }
      }
    }
  }
  return buffers[ReducePass::kOutput];
}

std::vector<uint64_t> NaiveSum(const Shape& shape,
                               const std::vector<bool>& mask,
                               const std::vector<uint64_t>& input) {
  Shape out_dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!mask[d]) out_dims.push_back(shape[d]);
  }
  std::vector<uint64_t> out(NumElements(out_dims), 0);
  for (int64_t i = 0; i < static_cast<int64_t>(input.size()); ++i) {
    int64_t rest = i, out_index = 0, out_stride = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int64_t c = rest % shape[d];
      rest /= shape[d];
      if (!mask[d]) {
        out_index += c * out_stride;
        out_stride *= shape[d];
      }
    }
    out[out_index] += input[i];
  }
  return out;
}

TEST(ReduceScheduleTest, SingleRowAndColumnPasses) {
  const ReduceSchedule rows =
      PlanReducePasses(*MakeReducePlan({100, 300}, {1}));
  ASSERT_EQ(rows.passes.size(), 1u);
  EXPECT_EQ(rows.passes[0].outer, 100);
  EXPECT_EQ(rows.passes[0].reduce, 300);
  EXPECT_EQ(rows.passes[0].inner, 1);
  EXPECT_EQ(rows.passes[0].src, ReducePass::kInput);
  EXPECT_EQ(rows.passes[0].dst, ReducePass::kOutput);
  const ReduceSchedule cols = PlanReducePasses(*MakeReducePlan({200, 30}, {0}));
  ASSERT_EQ(cols.passes.size(), 1u);
  EXPECT_EQ(cols.passes[0].inner, 30);
  EXPECT_EQ(cols.workspace_elements[0], 0);
}

TEST(ReduceScheduleTest, LongRunsAreChunked) {
  // A column reduction over 1000 rows: chunks of 256 (4), then 4 rows.
  const ReduceSchedule s = PlanReducePasses(*MakeReducePlan({1000, 3}, {0}));
  ASSERT_EQ(s.passes.size(), 2u);
  EXPECT_EQ(s.passes[0].chunk, kReduceColumnChunk);
  EXPECT_EQ(s.passes[0].chunks(), 4);
  EXPECT_EQ(s.passes[0].dst, ReducePass::kWorkspace0);
  EXPECT_EQ(s.passes[1].reduce, 4);
  EXPECT_EQ(s.passes[1].src, ReducePass::kWorkspace0);
  EXPECT_EQ(s.passes[1].dst, ReducePass::kOutput);
  EXPECT_EQ(s.workspace_elements[0], 12);
  // A full sum of 10^8 elements: 12208 row chunks, then 2, then 1.
  const ReduceSchedule big =
      PlanReducePasses(*MakeReducePlan({100000000}, {0}));
  ASSERT_EQ(big.passes.size(), 3u);
  EXPECT_EQ(big.passes[0].chunks(), 12208);
  EXPECT_EQ(big.passes[1].reduce, 12208);
  EXPECT_EQ(big.passes[2].reduce, 2);
}

TEST(ReduceScheduleTest, SeveralRunsLastFirst) {
  // NCHW bias gradient: reduce N and HW, keep C.
  const ReduceSchedule s =
      PlanReducePasses(*MakeReducePlan({4, 3, 5, 5}, {0, 2, 3}));
  ASSERT_EQ(s.passes.size(), 2u);
  EXPECT_EQ(s.passes[0].outer, 12);
  EXPECT_EQ(s.passes[0].reduce, 25);
  EXPECT_EQ(s.passes[0].inner, 1);
  EXPECT_EQ(s.passes[1].outer, 1);
  EXPECT_EQ(s.passes[1].reduce, 4);
  EXPECT_EQ(s.passes[1].inner, 3);
}

TEST(ReduceScheduleTest, SimulatedSchedulesSumLikeNaive) {
  std::mt19937 rng(11);
  const std::vector<std::pair<Shape, std::vector<int64_t>>> fixed = {
      {{20000}, {0}},           {{3, 20000}, {1}},      {{700, 5}, {0}},
      {{2, 600, 3, 2}, {1, 3}}, {{5, 4, 3, 2}, {0, 2}}, {{9000, 2}, {0}},
      {{2, 3, 4}, {0, 1, 2}},   {{17000, 1}, {0, 1}},
  };
  auto check = [&](const Shape& shape, const std::vector<int64_t>& axes) {
    SCOPED_TRACE(::testing::PrintToString(shape) + " over " +
                 ::testing::PrintToString(axes));
    absl::StatusOr<ReducePlan> plan = MakeReducePlan(shape, axes);
    ASSERT_TRUE(plan.ok());
    std::vector<uint64_t> input(plan->in_elements);
    for (uint64_t& v : input) v = rng();
    std::vector<bool> mask(shape.size(), false);
    for (int64_t a : axes) mask[a < 0 ? a + shape.size() : a] = true;
    const std::vector<uint64_t> want = NaiveSum(shape, mask, input);
    if (plan->is_identity()) {
      EXPECT_EQ(input, want);
      return;
    }
    EXPECT_EQ(
        SimulateSchedule(PlanReducePasses(*plan), input, plan->out_elements),
        want);
  };
  for (const auto& [shape, axes] : fixed) check(shape, axes);
  for (int trial = 0; trial < 200; ++trial) {
    Shape shape(1 + rng() % 4);
    for (int64_t& d : shape) d = 1 + rng() % 7;
    if (trial % 10 == 0) shape[rng() % shape.size()] = 300 + rng() % 300;
    std::vector<int64_t> axes;
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
      if (rng() % 2) axes.push_back(d);
    }
    if (axes.empty()) axes.push_back(0);
    check(shape, axes);
  }
}

// --- Cross-entropy. ---

TEST(XentPlanTest, SameAndBroadcastShapes) {
  auto p = MakeXentPlan({4, 10}, {4, 10});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->rows, 4);
  EXPECT_EQ(p->classes, 10);
  EXPECT_EQ(p->logits_row_stride, 10);
  EXPECT_EQ(p->labels_col_stride, 1);
  auto q = MakeXentPlan({4, 10}, {1, 10});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->labels_row_stride, 0);
  EXPECT_EQ(q->labels_col_stride, 1);
  auto r = MakeXentPlan({4, 1}, {10});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->classes, 10);
  EXPECT_EQ(r->logits_row_stride, 1);
  EXPECT_EQ(r->logits_col_stride, 0);
  EXPECT_EQ(r->labels_row_stride, 0);
}

TEST(XentPlanTest, Errors) {
  auto p = MakeXentPlan({4, 10}, {3, 10});
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(),
              HasSubstr("logits and labels must be broadcastable: "
                        "logits_size=[4,10] labels_size=[3,10]"));
  auto q = MakeXentPlan({2, 4, 10}, {2, 4, 10});
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.status().message(),
              HasSubstr("must be either 2-dimensional, or broadcasted"));
}

}  // namespace
}  // namespace dflow
