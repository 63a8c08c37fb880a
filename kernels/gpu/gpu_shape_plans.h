// Host-side shape logic of the GPU launchers, computed before a launch and
// tested without a GPU (tests/kernels/gpu/gpu_shape_plans_test.cc):
//
// - BroadcastPlan: NumPy broadcasting of up to three operands, collapsed
//   (dimensions of size 1 everywhere dropped, neighbours that broadcast
//   alike merged) to at most kGpuMaxRank dimensions, with each operand's
//   element strides (0 where it repeats). A plain struct: the binary and
//   select kernels take it by value.
// - ReducePlan and ReduceSchedule: a reduction over any set of axes as
//   alternating kept/reduced runs, then as a fixed sequence of
//   [outer, reduce, inner] passes (the last reduced run first, long runs
//   cut into chunks whose partial results a further pass combines). The
//   schedule depends on the shape alone, so every run combines elements in
//   the same order: results are reproducible bit for bit.
// - XentPlan: the [batch, classes] broadcast of SoftmaxCrossEntropyWithLogits.
//
// Error messages are the CPU kernels' (kernels/cpu/kernel_util.cc,
// reduction_ops.cc, softmax_ops.cc), so a graph fails the same way on
// either device.
#ifndef DFLOW_KERNELS_GPU_GPU_SHAPE_PLANS_H_
#define DFLOW_KERNELS_GPU_GPU_SHAPE_PLANS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace dflow {

inline constexpr int kGpuMaxRank = 8;
inline constexpr int kGpuMaxOperands = 3;

struct BroadcastPlan {
  // Collapsed rank, 1..kGpuMaxRank, and output dimensions (row-major).
  int rank = 1;
  int num_operands = 0;
  int64_t dims[kGpuMaxRank] = {};
  // strides[i][d]: elements of operand i to step for one step along
  // collapsed dimension d; 0 where operand i repeats along d.
  int64_t strides[kGpuMaxOperands][kGpuMaxRank] = {};
  int64_t num_elements = 0;
  // Operand i holds exactly the output's elements in the output's order
  // (no dimension repeats it): it is read at the output index.
  bool same[kGpuMaxOperands] = {};
  // Operand i holds one element.
  bool scalar[kGpuMaxOperands] = {};

  // Every output index and operand offset fits in int32 (kernels then use
  // 32-bit index arithmetic, much cheaper on GPUs than 64-bit division).
  bool fits_int32() const { return num_elements <= INT32_MAX; }
};

// The broadcast of `shapes` (2 or 3 operands, each fully defined). Sets
// *output_shape to the broadcast shape (rank = the largest rank).
// InvalidArgument "Incompatible shapes: [2,3] vs. [4] (output dimension 1
// is 3 in the first and 4 in the second; ...)" when some aligned pair
// differs and neither is 1; Unimplemented when the collapsed rank exceeds
// kGpuMaxRank.
absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(
    absl::Span<const std::vector<int64_t>> shapes,
    std::vector<int64_t>* output_shape);

// A reduction over a set of axes, collapsed: size-1 dimensions dropped,
// neighbours that are both reduced (or both kept) merged, so kept and
// reduced runs alternate.
struct ReducePlan {
  std::vector<int64_t> run_dims;
  std::vector<bool> run_reduced;
  int64_t in_elements = 0;
  int64_t out_elements = 0;
  // Input elements combined into each output element.
  int64_t reduce_count = 1;
  // The output shape without the reduced dimensions, and with them as 1s.
  std::vector<int64_t> output_shape;
  std::vector<int64_t> output_shape_keep_dims;

  // No element is combined with another (every reduced dimension has size
  // 1): the output is the input.
  bool is_identity() const {
    for (bool r : run_reduced) {
      if (r) return false;
    }
    return true;
  }
};

// `axes` as the op's reduction_indices: each in [-rank, rank), negative
// counting from the end, no repeats (CPU messages: "Invalid reduction
// dimension (...)", "... Axes contains duplicate dimension: d").
absl::StatusOr<ReducePlan> MakeReducePlan(absl::Span<const int64_t> shape,
                                          absl::Span<const int64_t> axes);
// The same from a flag per dimension (already valid).
ReducePlan MakeReducePlanFromMask(absl::Span<const int64_t> shape,
                                  const std::vector<bool>& reduce);

// One pass of a reduction: the [outer, reduce, inner] view of buffer `src`
// becomes [outer, chunks, inner] in buffer `dst`, chunk c combining reduce
// indices [c * chunk, min(reduce, (c + 1) * chunk)).
struct ReducePass {
  enum Buffer : int {
    kInput = 0,
    kOutput = 1,
    kWorkspace0 = 2,
    kWorkspace1 = 3
  };
  int64_t outer = 1;
  int64_t reduce = 1;
  int64_t inner = 1;
  int64_t chunk = 1;
  int64_t chunks() const {
    return reduce == 0 ? 0 : (reduce + chunk - 1) / chunk;
  }
  int src = kInput;
  int dst = kOutput;
};

struct ReduceSchedule {
  std::vector<ReducePass> passes;
  // Elements (of the accumulator type) of the two workspace buffers.
  int64_t workspace_elements[2] = {0, 0};
};

// Chunk lengths: a contiguous row combines at most kRowChunk elements per
// pass, a column (inner > 1: one thread walks the reduce dimension) at
// most kColumnChunk, so no thread adds up long sequences (float rounding
// error grows with the length of a sequential sum).
inline constexpr int64_t kReduceRowChunk = 8192;
inline constexpr int64_t kReduceColumnChunk = 256;

// The passes of `plan` (which must have out_elements > 0, reduce_count > 0
// and at least one reduced run). The first pass reads kInput, the last
// writes kOutput; passes between use the workspaces alternately.
ReduceSchedule PlanReducePasses(const ReducePlan& plan);

// SoftmaxCrossEntropyWithLogits' operands seen as [rows, classes]:
// element (r, c) of each is at r * row_stride + c * col_stride.
struct XentPlan {
  int64_t rows = 0;
  int64_t classes = 0;
  int64_t logits_row_stride = 0;
  int64_t logits_col_stride = 0;
  int64_t labels_row_stride = 0;
  int64_t labels_col_stride = 0;
};

// logits and labels must broadcast (NumPy rules) to a rank-2 shape.
absl::StatusOr<XentPlan> MakeXentPlan(absl::Span<const int64_t> logits,
                                      absl::Span<const int64_t> labels);

// "[2,3]", for messages.
std::string ShapeString(absl::Span<const int64_t> dims);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_GPU_SHAPE_PLANS_H_
