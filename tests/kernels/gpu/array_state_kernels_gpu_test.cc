// The GPU implementations of the array, shape and variable ops
// (kernels/gpu:array_kernels_gpu, :state_kernels_gpu): every implementation
// matches a definition, the implemented op/dtype pairs are built in CUDA
// builds and the ones left to the definitions are not (these run
// everywhere); and a graph of them on /gpu:0 (variables initialized,
// updated in place, viewed, read) agrees with the same graph on /cpu:0
// (needs a GPU; skips without one). Transpose, Tile, ConcatV2, Pack,
// Slice, StridedSlice(Grad), Split, SplitV, Pad, Fill and OnesLike run in
// the same graph.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"
#include "tests/kernels/gpu/cwise_gpu_test_util.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace testing_gpu {
namespace {

TEST(ArrayStateKernelsGpuTest, ImplementationsMatchTheirDefinitions) {
  absl::Status s = KernelRegistry::Global()->Validate();
  EXPECT_TRUE(s.ok()) << s;
}

bool Built(const Node* n) {
  return KernelRegistry::Global()->IsKernelBuilt(*n, kDeviceGpu);
}
bool Built(const Output& o) { return Built(o.node()); }

TEST(ArrayStateKernelsGpuTest, ImplementedDtypesAreBuilt) {
  if (!BuiltWithCuda()) GTEST_SKIP() << "a build without CUDA";
  Scope root = Scope::NewRootScope();
  auto i32 = ops::Placeholder(root, DT_INT32);
  auto i64 = ops::Placeholder(root, DT_INT64);
  for (DataType t : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT64,
                     DT_BOOL, DT_COMPLEX64, DT_INT8, DT_UINT8, DT_INT32}) {
    SCOPED_TRACE(DataTypeName(t));
    auto x = ops::Placeholder(root, t);
    EXPECT_TRUE(Built(ops::Identity(root, x)));
    EXPECT_TRUE(Built(ops::StopGradient(root, x)));
    EXPECT_TRUE(Built(ops::Reshape(root, x, i32)));
    EXPECT_TRUE(Built(ops::Reshape(root, x, i64)));
    EXPECT_TRUE(Built(ops::ExpandDims(root, x, i32)));
    EXPECT_TRUE(Built(ops::Squeeze(root, x)));
    EXPECT_TRUE(Built(ops::Shape(root, x)));
    EXPECT_TRUE(Built(ops::Size(root, x)));
    EXPECT_TRUE(Built(ops::Rank(root, x)));
    auto h = ops::VarHandleOp(root, t, TensorShape({2}));
    EXPECT_TRUE(Built(h));
    EXPECT_TRUE(Built(ops::ReadVariableOp(root, h, t)));
    EXPECT_TRUE(Built(ops::AssignVariableOp(root, h, x).node()));
  }
  for (DataType t : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT64}) {
    SCOPED_TRACE(DataTypeName(t));
    auto x = ops::Placeholder(root, t);
    auto v = ops::Variable(root, TensorShape({2}), t);
    EXPECT_TRUE(Built(v));
    EXPECT_TRUE(Built(ops::Assign(root, v, x)));
    EXPECT_TRUE(Built(ops::AssignAdd(root, v, x)));
    EXPECT_TRUE(Built(ops::AssignSub(root, v, x)));
    auto h = ops::VarHandleOp(root, t, TensorShape({2}));
    EXPECT_TRUE(Built(ops::AssignAddVariableOp(root, h, x).node()));
    EXPECT_TRUE(Built(ops::AssignSubVariableOp(root, h, x).node()));
    EXPECT_TRUE(Built(ops::ZerosLike(root, x)));
    EXPECT_TRUE(Built(ops::AddN(root, {x, x, x})));
  }
  EXPECT_TRUE(Built(ops::AddN(root, {i32, i32})));
  EXPECT_TRUE(Built(ops::Cast(root, i32, DT_FLOAT)));
  EXPECT_TRUE(Built(ops::NoOp(root).node()));
  for (DataType t : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT64,
                     DT_BOOL, DT_COMPLEX64, DT_COMPLEX128, DT_INT8}) {
    SCOPED_TRACE(DataTypeName(t));
    auto x = ops::Placeholder(root, t);
    EXPECT_TRUE(Built(ops::Transpose(root, x, i32)));
    EXPECT_TRUE(Built(ops::Tile(root, x, i64)));
    EXPECT_TRUE(Built(ops::ConcatV2(root, {x, x}, i32)));
    EXPECT_TRUE(Built(ops::Pack(root, {x, x})));
    EXPECT_TRUE(Built(ops::Slice(root, x, i32, i32)));
    EXPECT_TRUE(Built(ops::Fill(root, i32, x)));
    EXPECT_TRUE(Built(ops::Split(root, i32, x, 2)[0]));
    EXPECT_TRUE(Built(ops::SplitV(root, x, i64, i32, 2)[0]));
    EXPECT_TRUE(Built(ops::StridedSlice(root, x, i32, i32, i32)));
    EXPECT_TRUE(Built(ops::Unstack(root, x, 2)[0]));
    EXPECT_TRUE(Built(ops::StridedSliceGrad(root, i64, i64, i64, i64, x)));
    // Pad has no int64 GPU definition.
    EXPECT_EQ(Built(ops::Pad(root, x, i32)), t != DT_INT64);
  }
  EXPECT_TRUE(Built(ops::Fill(root, i64, i32)));
  EXPECT_TRUE(Built(ops::Transpose(root, i32, i32)));
  EXPECT_TRUE(Built(ops::OnesLike(root, ops::Placeholder(root, DT_FLOAT))));
  EXPECT_TRUE(Built(ops::ZerosLike(root, i32)));
  EXPECT_TRUE(Built(ops::OnesLike(root, i32)));
  EXPECT_TRUE(Built(ops::InvertPermutation(root, i64)));
  EXPECT_TRUE(Built(ops::Range(root, i32, i32, i32)));
  EXPECT_FALSE(Built(ops::Range(root, i64, i64, i64)));
  EXPECT_TRUE(Built(ops::ConcatOffset(root, i32, {i32, i32})[0]));
  EXPECT_TRUE(Built(ops::BroadcastGradientArgs(root, i32, i32).r0));
  EXPECT_TRUE(Built(ops::Placeholder(root, DT_FLOAT)));
  EXPECT_TRUE(Built(ops::PlaceholderWithDefault(root, i32, TensorShape({2}))));
  // The int32 definitions keeping everything on the host (and the ops
  // whose every argument is on the host).
  EXPECT_TRUE(Built(ops::ConcatV2(root, {i32, i32}, i32)));
  EXPECT_TRUE(Built(ops::Pack(root, {i32, i32})));
  EXPECT_TRUE(Built(ops::Slice(root, i32, i32, i32)));
  EXPECT_TRUE(Built(ops::StridedSlice(root, i32, i32, i32, i32)));
  EXPECT_TRUE(Built(ops::StridedSliceGrad(root, i32, i32, i32, i32, i32)));
  EXPECT_TRUE(Built(ops::Pad(root, i32, i32)));
  EXPECT_TRUE(Built(ops::Unstack(root, i32, 2)[0]));
  // Left to the definitions: complex variable updates and the ops not
  // written yet (OneHot, Range on the device).
  auto c = ops::Placeholder(root, DT_COMPLEX64);
  EXPECT_FALSE(
      Built(ops::AssignAdd(root, ops::Variable(root, TensorShape({2}),
                                               DT_COMPLEX64),
                           c)));
  ASSERT_TRUE(root.status().ok()) << root.status();
}

// A variable initialized from random numbers, updated in place, and looked
// at through views and shape ops, all on `device`: run in three steps
// (initialize, update, read), fetched by name.
GraphDef VariableGraph(const std::string& device) {
  Scope root = Scope::NewRootScope();
  Scope d = root.WithDevice(device);
  ops::RandomAttrs seeds;
  seeds.seed = 3;
  seeds.seed2 = 5;
  Output shape = ops::Const(root, {4, 6});
  Output init_value = ops::RandomUniform(d, shape, DT_FLOAT, seeds);
  seeds.seed2 = 6;
  Output delta = ops::RandomStandardNormal(d, shape, DT_FLOAT, seeds);
  Output v = ops::Variable(d.WithOpName("v"), TensorShape({4, 6}), DT_FLOAT);
  ops::Assign(d.WithOpName("init"), v, init_value);
  ops::AssignAdd(d.WithOpName("add"), v, delta);
  Output h = ops::VarHandleOp(d.WithOpName("h"), DT_FLOAT, TensorShape({4, 6}));
  ops::AssignVariableOp(d.WithOpName("init_h"), h, delta);
  ops::AssignSubVariableOp(d.WithOpName("sub_h"), h, init_value);
  Output value = ops::Identity(d.WithOpName("value"), v);
  ops::Reshape(d.WithOpName("reshaped"), value, ops::Const(root, {3, -1}));
  Output expanded =
      ops::ExpandDims(d.WithOpName("expanded"), value, ops::Const(root, 1));
  ops::Squeeze(d.WithOpName("squeezed"), expanded);
  ops::Shape(d.WithOpName("shape_of"), expanded);
  ops::Size(d.WithOpName("size_of"), expanded);
  ops::Rank(d.WithOpName("rank_of"), expanded);
  ops::ZerosLike(d.WithOpName("zeros"), value);
  Output cube = ops::Reshape(d, value, ops::Const(root, {2, 3, 4}));
  ops::Transpose(d.WithOpName("transposed"), cube, ops::Const(root, {2, 0, 1}));
  ops::Tile(d.WithOpName("tiled"), cube, ops::Const(root, {2, 1, 3}));
  Output zeros = ops::ZerosLike(d, value);
  ops::ConcatV2(d.WithOpName("concat"), {value, zeros, value},
                ops::Const(root, 1));
  ops::Pack(d.WithOpName("packed"), {value, zeros});
  ops::Slice(d.WithOpName("sliced"), cube, ops::Const(root, {1, 1, 1}),
             ops::Const(root, {1, -1, 2}));
  ops::Fill(d.WithOpName("filled"), ops::Const(root, {3, 5}),
            ops::Const(d, 2.5f));
  ops::OnesLike(d.WithOpName("ones"), cube);
  ops::Split(d.WithOpName("split"), ops::Const(root, 2), cube, 2);
  ops::SplitV(d.WithOpName("splitv"), cube, ops::Const(root, {1, -1}),
              ops::Const(root, 1), 2);
  ops::StridedSliceAttrs shrink;
  shrink.shrink_axis_mask = 1;
  shrink.end_mask = 4;
  Output strided = ops::StridedSlice(
      d.WithOpName("strided"), cube, ops::Const(root, {1, 2, -1}),
      ops::Const(root, {2, 0, 0}), ops::Const(root, {1, -1, -2}), shrink);
  ops::StridedSliceGrad(d.WithOpName("strided_grad"), ops::Const(root, {2, 3, 4}),
                        ops::Const(root, {1, 2, -1}), ops::Const(root, {2, 0, 0}),
                        ops::Const(root, {1, -1, -2}), strided, shrink);
  ops::Unpack(d.WithOpName("unpacked"), cube, 2);
  // Six inputs: a group of four, then one of two added to it.
  ops::AddN(d.WithOpName("sum6"),
            {value, delta, init_value, value, delta, value});
  // Cast: float -> half -> float, float -> int32 (toward zero, saturating),
  // float -> bool, and a truncating float -> bfloat16.
  Output scaled = ops::Mul(d, delta, ops::Const(d, 1e9f));
  ops::Cast(d.WithOpName("as_float"),
            ops::Cast(d, value, DT_HALF), DT_FLOAT);
  ops::Cast(d.WithOpName("as_int"), scaled, DT_INT32);
  ops::Cast(d.WithOpName("as_bool"), ops::Relu(d, delta), DT_BOOL);
  ops::CastAttrs truncate;
  truncate.truncate = true;
  ops::Cast(d.WithOpName("as_bf16"), delta, DT_BFLOAT16, truncate);
  // int32 values on a GPU stay in host memory: the host copies.
  Output ints = ops::Const(d, {1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  ops::ConcatV2(d.WithOpName("concat_i32"), {ints, ints}, ops::Const(root, 0));
  ops::StridedSlice(d.WithOpName("strided_i32"), ints, ops::Const(root, {1, 2}),
                    ops::Const(root, {-3, -4}), ops::Const(root, {-1, -1}));
  ops::Pad(d.WithOpName("padded"), cube,
           ops::Const(root, {0, 1, 2, 0, 1, 1}, TensorShape({3, 2})));
  ops::StopGradient(d.WithOpName("stopped"),
                    ops::ReadVariableOp(d.WithOpName("read_h"), h, DT_FLOAT));
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

const std::vector<std::string>& Fetches() {
  static const auto* fetches = new std::vector<std::string>{
      "value",    "reshaped", "expanded", "squeezed", "shape_of",
      "size_of",  "rank_of",  "zeros",    "stopped",  "transposed",
      "tiled",    "concat",   "packed",   "sliced",   "filled",
      "ones",     "split:0",  "split:1",  "splitv:0", "splitv:1",
      "padded",   "strided",  "strided_grad", "unpacked:0", "unpacked:1",
      "concat_i32", "strided_i32", "sum6", "as_float", "as_int", "as_bool",
      "as_bf16"};
  return *fetches;
}

// Builds VariableGraph(device) in a session with one GPU and runs its three
// steps, returning the last step's fetches.
absl::Status RunVariableGraph(const std::string& device,
                              std::vector<Tensor>* out) {
  SessionOptions options;
  options.device_count = {{"GPU", 1}};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(VariableGraph(device), options);
  if (!session.ok()) return session.status();
  std::vector<Tensor> ignored;
  absl::Status s = (*session)->Run({}, {"init"}, {"init_h"}, &ignored);
  if (s.ok()) s = (*session)->Run({}, {"add"}, {"sub_h"}, &ignored);
  if (s.ok()) s = (*session)->Run({}, Fetches(), {}, out);
  return s;
}

// The graph the GPU test compares is valid (runs everywhere).
TEST(ArrayStateKernelsGpuTest, TheComparedGraphRunsOnTheCpu) {
  std::vector<Tensor> out;
  absl::Status s = RunVariableGraph("/cpu:0", &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), Fetches().size());
  EXPECT_EQ(out[1].shape(), TensorShape({3, 8}));          // reshaped
  EXPECT_EQ(out[9].shape(), TensorShape({4, 2, 3}));       // transposed
  EXPECT_EQ(out[10].shape(), TensorShape({4, 3, 12}));     // tiled
  EXPECT_EQ(out[11].shape(), TensorShape({4, 18}));        // concat
  EXPECT_EQ(out[13].shape(), TensorShape({1, 2, 2}));      // sliced
  EXPECT_EQ(out[20].shape(), TensorShape({3, 5, 6}));      // padded
  EXPECT_EQ(out[22].shape(), TensorShape({2, 3, 4}));      // strided_grad
  EXPECT_EQ(out[23].shape(), TensorShape({3, 4}));         // unpacked:0
  EXPECT_EQ(out[25].shape(), TensorShape({4, 3}));         // concat_i32
  EXPECT_EQ(out[26].shape(), TensorShape({2, 3}));         // strided_i32
}

TEST(ArrayStateKernelsGpuTest, VariablesAndViewsOnTheGpuAgreeWithTheCpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  std::vector<std::vector<Tensor>> results;
  for (const std::string device : {"/cpu:0", "/gpu:0"}) {
    std::vector<Tensor> out;
    absl::Status s = RunVariableGraph(device, &out);
    ASSERT_TRUE(s.ok()) << device << ": " << s;
    results.push_back(out);
  }
  for (size_t i = 0; i < Fetches().size(); ++i) {
    ExpectBitwiseEqual(results[1][i], results[0][i], Fetches()[i]);
  }
}

}  // namespace
}  // namespace testing_gpu
}  // namespace dflow
