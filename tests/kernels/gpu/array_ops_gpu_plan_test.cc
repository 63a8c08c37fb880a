// The strided-copy plans of the GPU array ops (kernels/gpu/array_ops_gpu.h):
// host code, tested without a GPU.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/gpu/array_ops_gpu.h"

namespace dflow {
namespace {

TEST(ArrayOpsGpuPlanTest, RowMajorStrides) {
  EXPECT_EQ(RowMajorStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(RowMajorStrides({}), (std::vector<int64_t>{}));
}

TEST(ArrayOpsGpuPlanTest, AContiguousCopyMergesToOneDimension) {
  const std::vector<int64_t> dims = {2, 3, 4};
  auto plan = MakeGpuStridedCopy(dims, RowMajorStrides(dims),
                                 RowMajorStrides(dims), 5, 7, {}, "test");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rank, 1);
  EXPECT_EQ(plan->dims[0], 24);
  EXPECT_EQ(plan->src_strides[0], 1);
  EXPECT_EQ(plan->dst_strides[0], 1);
  EXPECT_EQ(plan->src_offset, 5);
  EXPECT_EQ(plan->dst_offset, 7);
  EXPECT_EQ(plan->num_elements, 24);
}

TEST(ArrayOpsGpuPlanTest, ATransposeKeepsItsDimensionsAndDropsOnes) {
  // [2,1,3] -> perm [2,0,1]: output [3,2,1] reading input strides [1,3,3].
  auto plan = MakeGpuStridedCopy({3, 2, 1}, {1, 3, 3}, {2, 1, 1}, 0, 0, {},
                                 "Transpose");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->rank, 2);
  EXPECT_EQ(plan->dims[0], 3);
  EXPECT_EQ(plan->dims[1], 2);
  EXPECT_EQ(plan->src_strides[0], 1);
  EXPECT_EQ(plan->src_strides[1], 3);
  EXPECT_EQ(plan->dst_strides[0], 2);
  EXPECT_EQ(plan->dst_strides[1], 1);
  EXPECT_EQ(plan->num_elements, 6);
}

TEST(ArrayOpsGpuPlanTest, AConcatBlockKeepsTheRowStride) {
  // Rows of 4 elements into rows of 10, at column 3.
  auto plan = MakeGpuStridedCopy({5, 4}, {4, 1}, {10, 1}, 0, 3, {}, "ConcatV2");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->rank, 2);
  EXPECT_EQ(plan->dst_strides[0], 10);
  EXPECT_EQ(plan->dst_offset, 3);
}

TEST(ArrayOpsGpuPlanTest, RepeatedDimensionsAreNotMerged) {
  // Tile [2,3] by [1,2]: output [2,6], the source repeats along dim 1.
  auto plan =
      MakeGpuStridedCopy({2, 6}, {3, 1}, {6, 1}, 0, 0, {0, 3}, "Tile");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->rank, 2);
  EXPECT_EQ(plan->src_mod[0], 0);
  EXPECT_EQ(plan->src_mod[1], 3);
}

TEST(ArrayOpsGpuPlanTest, TooManyDimensionsIsAnError) {
  // A full reversal of nine dimensions of size 2 merges nothing.
  std::vector<int64_t> dims(9, 2), src(9), dst = RowMajorStrides(dims);
  for (int d = 0; d < 9; ++d) src[d] = int64_t{1} << d;
  auto plan = MakeGpuStridedCopy(dims, src, dst, 0, 0, {}, "Transpose");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("Transpose"), std::string::npos);
  EXPECT_NE(plan.status().message().find("at most 8"), std::string::npos);
}

// The host copy maps indices as the GPU kernel does: plans checked end to
// end on small tensors.
std::vector<int32_t> Copy(const GpuStridedCopy& plan,
                          const std::vector<int32_t>& src, size_t dst_size) {
  std::vector<int32_t> dst(dst_size, -1);
  HostStridedCopy(4, plan, src.data(), dst.data());
  return dst;
}

std::vector<int32_t> Iota(int n) {
  std::vector<int32_t> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(ArrayOpsGpuPlanTest, HostCopyTransposes) {
  // x [2,3] -> x^T [3,2].
  auto plan = MakeGpuStridedCopy({3, 2}, {1, 3}, {2, 1}, 0, 0, {}, "t");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Copy(*plan, Iota(6), 6),
            (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(ArrayOpsGpuPlanTest, HostCopyTiles) {
  // [2,2] tiled [2,2] -> [4,4].
  auto plan =
      MakeGpuStridedCopy({4, 4}, {2, 1}, {4, 1}, 0, 0, {2, 2}, "Tile");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Copy(*plan, Iota(4), 16),
            (std::vector<int32_t>{0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2,
                                  3}));
}

TEST(ArrayOpsGpuPlanTest, HostCopyWritesABlockAtAnOffset) {
  // A [2,2] block into columns 1..2 of a [2,4] output.
  auto plan = MakeGpuStridedCopy({2, 2}, {2, 1}, {4, 1}, 0, 1, {}, "Concat");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Copy(*plan, Iota(4), 8),
            (std::vector<int32_t>{-1, 0, 1, -1, -1, 2, 3, -1}));
}

TEST(ArrayOpsGpuPlanTest, HostCopyReadsNegativeStrides) {
  // x[::-1] of 5 elements, and x[3:0:-2].
  auto rev = MakeGpuStridedCopy({5}, {-1}, {1}, 4, 0, {}, "StridedSlice");
  ASSERT_TRUE(rev.ok());
  EXPECT_EQ(Copy(*rev, Iota(5), 5), (std::vector<int32_t>{4, 3, 2, 1, 0}));
  auto step = MakeGpuStridedCopy({2}, {-2}, {1}, 3, 0, {}, "StridedSlice");
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(Copy(*step, Iota(5), 2), (std::vector<int32_t>{3, 1}));
}

TEST(ArrayOpsGpuPlanTest, MismatchedRanksAreAnError) {
  auto plan = MakeGpuStridedCopy({2, 3}, {3}, {3, 1}, 0, 0, {}, "Slice");
  EXPECT_FALSE(plan.ok());
}

}  // namespace
}  // namespace dflow
