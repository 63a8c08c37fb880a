// The MatMul/Conv2D+BiasAdd(+Relu) fusion: what it rewrites, what it
// leaves alone. (That _FusedMatMul and _FusedConv2D compute what the three
// kernels compute, and
// that a session gives the same bits with the pass on and off, is checked
// by tests/kernels/fused_kernels_test.cc.)
#include "compiler/fuse_bias_activation.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

struct Layer {
  Output a, b, bias, product, biased, relu;
};

// relu = Relu(BiasAdd(MatMul(a [4,3], b [3,5]), bias [5])), read by "out".
Layer Build(const Scope& root, bool relu = true, DataType type = DT_FLOAT) {
  Layer l;
  l.a = ops::Placeholder(root.WithOpName("a"), type,
                         ops::PlaceholderAttrs().Shape({4, 3}));
  l.b = ops::Placeholder(root.WithOpName("b"), type,
                         ops::PlaceholderAttrs().Shape({3, 5}));
  l.bias = ops::Placeholder(root.WithOpName("bias"), type,
                            ops::PlaceholderAttrs().Shape({5}));
  l.product = ops::MatMul(root.WithOpName("matmul"), l.a, l.b);
  l.biased = ops::BiasAdd(root.WithOpName("bias_add"), l.product, l.bias);
  Output last = l.biased;
  if (relu) last = l.relu = ops::Relu(root.WithOpName("relu"), l.biased);
  ops::Identity(root.WithOpName("out"), last);
  return l;
}

PassContext Cpu(const OptimizationOptions& options,
                absl::flat_hash_set<std::string> protected_nodes = {}) {
  PassContext ctx;
  ctx.options = &options;
  ctx.device = "/job:localhost/replica:0/task:0/device:CPU:0";
  ctx.device_type = "CPU";
  ctx.protected_nodes = std::move(protected_nodes);
  return ctx;
}

std::vector<std::string> InputNames(const Node* n) {
  std::vector<std::string> names;
  for (int i = 0; i < n->num_inputs(); ++i) {
    names.push_back(n->input_edge(i)->src->name());
  }
  return names;
}

PassResult RunPass(const PassContext& ctx, Graph* g) {
  absl::StatusOr<PassResult> r = FuseBiasActivation(ctx, g);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(g->TopologicalOrder().ok());
  return r.ok() ? *r : PassResult{};
}

TEST(FuseBiasActivationTest, FusesMatMulBiasAddReluKeepingTheReluAndItsEdges) {
  Scope root = Scope::NewRootScope();
  auto before = ops::NoOp(root.WithOpName("before"));
  Layer l = Build(root.WithControlDependencies({before}));
  ops::NoOp(root.WithOpName("after").WithControlDependencies(l.relu));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  const int nodes = g->num_nodes();
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), g);
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(r.what, "1 MatMul+BiasAdd+Relu fused");
  EXPECT_EQ(g->num_nodes(), nodes - 2);
  EXPECT_EQ(g->FindNode("matmul"), nullptr);
  EXPECT_EQ(g->FindNode("bias_add"), nullptr);
  Node* fused = g->FindNode("relu");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), kFusedMatMulOp);
  EXPECT_THAT(InputNames(fused), ElementsAre("a", "b", "bias"));
  std::string activation;
  ASSERT_TRUE(fused->GetAttr("activation", &activation).ok());
  EXPECT_EQ(activation, "Relu");
  DataType type = DT_INVALID;
  ASSERT_TRUE(fused->GetAttr("T", &type).ok());
  EXPECT_EQ(type, DT_FLOAT);
  // The control input (on every fused node) arrives once; the control
  // and data outputs of the Relu survive.
  std::vector<std::string> control_in;
  for (const Edge* e : fused->in_edges()) {
    if (e->IsControl()) control_in.push_back(e->src->name());
  }
  EXPECT_THAT(control_in, ElementsAre("before"));
  std::vector<std::string> out;
  for (const Edge* e : fused->out_edges()) out.push_back(e->dst->name());
  EXPECT_THAT(out, UnorderedElementsAre("after", "out"));
  // The static shape is inferred for later passes.
  ASSERT_EQ(fused->output_shapes().size(), 1u);
  EXPECT_EQ(fused->output_shape(0), TensorShape({4, 5}));
}

TEST(FuseBiasActivationTest, FusesWithoutReluAndKeepsTransposesAndDouble) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_DOUBLE,
                            ops::PlaceholderAttrs().Shape({3, 4}));
  auto b = ops::Placeholder(root.WithOpName("b"), DT_DOUBLE,
                            ops::PlaceholderAttrs().Shape({5, 3}));
  auto bias = ops::Placeholder(root.WithOpName("bias"), DT_DOUBLE);
  auto p = ops::MatMul(root.WithOpName("matmul").WithDevice("/cpu:0"), a, b,
                       ops::MatMulAttrs().TransposeA(true).TransposeB(true));
  auto y = ops::BiasAdd(root.WithOpName("y").WithDevice("/cpu:0"), p, bias);
  ops::Identity(root.WithOpName("out"), y);
  ASSERT_TRUE(root.ok()) << root.status();
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), root.graph());
  EXPECT_EQ(r.what, "1 MatMul+BiasAdd fused");
  Node* fused = root.graph()->FindNode("y");
  ASSERT_EQ(fused->op(), kFusedMatMulOp);
  bool ta = false, tb = false;
  std::string activation = "?";
  ASSERT_TRUE(fused->GetAttr("transpose_a", &ta).ok());
  ASSERT_TRUE(fused->GetAttr("transpose_b", &tb).ok());
  ASSERT_TRUE(fused->GetAttr("activation", &activation).ok());
  EXPECT_TRUE(ta);
  EXPECT_TRUE(tb);
  EXPECT_EQ(activation, "");
  EXPECT_EQ(fused->requested_device(), "/device:CPU:0");
}

TEST(FuseBiasActivationTest, ReluWithSeveralReadersStillFuses) {
  // ReluGrad reads the Relu's output in training graphs: it is the fused
  // node's output, so that does not matter.
  Scope root = Scope::NewRootScope();
  Layer l = Build(root);
  ops::Identity(root.WithOpName("second_reader"), l.relu);
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), root.graph()).changes, 1);
  EXPECT_EQ(root.graph()->FindNode("relu")->op(), kFusedMatMulOp);
}

TEST(FuseBiasActivationTest, ProductWithAnotherReaderIsLeftAlone) {
  Scope root = Scope::NewRootScope();
  Layer l = Build(root);
  ops::Identity(root.WithOpName("fetch_product"), l.product);
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), root.graph());
  EXPECT_EQ(r.changes, 0);
  EXPECT_EQ(r.what, "0 MatMul+BiasAdd fused");
  EXPECT_EQ(root.graph()->FindNode("matmul")->op(), "MatMul");
  EXPECT_EQ(root.graph()->FindNode("relu")->op(), "Relu");
}

TEST(FuseBiasActivationTest, ProductWithAControlEdgeOutIsLeftAlone) {
  Scope root = Scope::NewRootScope();
  Layer l = Build(root);
  ops::NoOp(root.WithOpName("after").WithControlDependencies(l.product));
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), root.graph()).changes, 0);
}

TEST(FuseBiasActivationTest, BiasAddWithAnotherReaderFusesWithoutTheRelu) {
  Scope root = Scope::NewRootScope();
  Layer l = Build(root);
  ops::Identity(root.WithOpName("fetch_biased"), l.biased);
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), root.graph());
  EXPECT_EQ(r.what, "1 MatMul+BiasAdd fused");
  Node* fused = root.graph()->FindNode("bias_add");
  ASSERT_EQ(fused->op(), kFusedMatMulOp);
  EXPECT_EQ(root.graph()->FindNode("relu")->op(), "Relu");
  EXPECT_EQ(root.graph()->FindNode("relu")->input_edge(0)->src, fused);
}

TEST(FuseBiasActivationTest, ProtectedIntermediatesKeepTheirNodes) {
  {
    Scope root = Scope::NewRootScope();
    Build(root);
    OptimizationOptions options;
    EXPECT_EQ(RunPass(Cpu(options, {"matmul"}), root.graph()).changes, 0);
    EXPECT_EQ(root.graph()->FindNode("matmul")->op(), "MatMul");
  }
  {
    // A protected bias add can be the last fused node: it keeps its name.
    Scope root = Scope::NewRootScope();
    Build(root);
    OptimizationOptions options;
    EXPECT_EQ(RunPass(Cpu(options, {"bias_add"}), root.graph()).changes, 1);
    EXPECT_EQ(root.graph()->FindNode("bias_add")->op(), kFusedMatMulOp);
    EXPECT_EQ(root.graph()->FindNode("relu")->op(), "Relu");
  }
}

TEST(FuseBiasActivationTest, OtherDeviceTypesAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  Build(root);
  OptimizationOptions options;
  PassContext ctx = Cpu(options);
  ctx.device_type = "GPU";
  PassResult r = RunPass(ctx, root.graph());
  EXPECT_EQ(r.changes, 0);
  EXPECT_THAT(r.what, HasSubstr("GPU"));
  EXPECT_EQ(root.graph()->FindNode("relu")->op(), "Relu");
}

TEST(FuseBiasActivationTest, NodesOnDifferentDevicesAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  auto bias = ops::Placeholder(root.WithOpName("bias"), DT_FLOAT);
  auto p = ops::MatMul(root.WithOpName("matmul").WithDevice("/cpu:1"), a, b);
  ops::BiasAdd(root.WithOpName("y").WithDevice("/cpu:0"), p, bias);
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), root.graph()).changes, 0);
}

TEST(FuseBiasActivationTest, IntegersAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  Build(root, /*relu=*/true, DT_INT32);
  ASSERT_TRUE(root.ok()) << root.status();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), root.graph()).changes, 0);
}

TEST(FuseBiasActivationTest, AddOfAVectorOfTheColumnsIsABiasAdd) {
  // The seed MLP's layer: Relu(Add(MatMul(x, W), b)), b [5] (either side).
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::PlaceholderAttrs().Shape({2, 3}));
  auto w = ops::Const(root.WithOpName("w"), Tensor(DT_FLOAT, {3, 5}));
  auto b = ops::Const(root.WithOpName("b"), Tensor(DT_FLOAT, {5}));
  auto p1 = ops::MatMul(root.WithOpName("m1"), x, w);
  ops::Relu(root.WithOpName("r1"), ops::Add(root.WithOpName("add1"), p1, b));
  auto p2 = ops::MatMul(root.WithOpName("m2"), x, w);
  ops::AddV2(root.WithOpName("add2"), b, p2);
  // Not a bias: a [2,5] operand, and an operand of unknown shape.
  auto full = ops::Const(root.WithOpName("full"), Tensor(DT_FLOAT, {2, 5}));
  ops::Add(root.WithOpName("add3"), ops::MatMul(root.WithOpName("m3"), x, w),
           full);
  auto unknown = ops::Placeholder(root.WithOpName("unknown"), DT_FLOAT);
  ops::Add(root.WithOpName("add4"), ops::MatMul(root.WithOpName("m4"), x, w),
           unknown);
  ASSERT_TRUE(root.ok()) << root.status();
  OptimizationOptions options;
  Graph* g = root.graph();
  PassResult r = RunPass(Cpu(options), g);
  EXPECT_EQ(r.what, "1 MatMul+BiasAdd+Relu, 1 MatMul+BiasAdd fused");
  EXPECT_EQ(g->FindNode("r1")->op(), kFusedMatMulOp);
  EXPECT_THAT(InputNames(g->FindNode("r1")), ElementsAre("x", "w", "b"));
  EXPECT_EQ(g->FindNode("add2")->op(), kFusedMatMulOp);
  EXPECT_THAT(InputNames(g->FindNode("add2")), ElementsAre("x", "w", "b"));
  EXPECT_EQ(g->FindNode("add3")->op(), "Add");
  EXPECT_EQ(g->FindNode("add4")->op(), "Add");
}

// Conv2D -> BiasAdd -> Relu -> Conv2D -> BiasAdd, as a CNN's layers.
TEST(FuseBiasActivationTest, FusesFloatNhwcConvolutionsKeepingTheirAttrs) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::PlaceholderAttrs().Shape({2, 8, 8, 3}));
  auto w1 = ops::Placeholder(root.WithOpName("w1"), DT_FLOAT);
  auto w2 = ops::Placeholder(root.WithOpName("w2"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  auto conv1 = ops::Conv2D(root.WithOpName("conv1"), x, w1, {1, 2, 2, 1},
                           "SAME", ops::Conv2DAttrs().Dilations({1, 1, 1, 1}));
  auto h = ops::Relu(root.WithOpName("h"),
                     ops::BiasAdd(root.WithOpName("h_bias"), conv1, b));
  auto conv2 =
      ops::Conv2D(root.WithOpName("conv2"), h, w2, {1, 1, 1, 1}, "VALID");
  auto y = ops::BiasAdd(root.WithOpName("y"), conv2, b);
  ops::Identity(root.WithOpName("out"), y);
  ASSERT_TRUE(root.ok()) << root.status();
  OptimizationOptions options;
  Graph* g = root.graph();
  PassResult r = RunPass(Cpu(options), g);
  EXPECT_EQ(r.what, "1 Conv2D+BiasAdd+Relu, 1 Conv2D+BiasAdd fused");
  Node* first = g->FindNode("h");
  ASSERT_EQ(first->op(), kFusedConv2DOp);
  EXPECT_THAT(InputNames(first), ElementsAre("x", "w1", "b"));
  std::vector<int64_t> strides;
  std::string padding, activation;
  ASSERT_TRUE(first->GetAttr("strides", &strides).ok());
  ASSERT_TRUE(first->GetAttr("padding", &padding).ok());
  ASSERT_TRUE(first->GetAttr("activation", &activation).ok());
  EXPECT_THAT(strides, ElementsAre(1, 2, 2, 1));
  EXPECT_EQ(padding, "SAME");
  EXPECT_EQ(activation, "Relu");
  Node* second = g->FindNode("y");
  ASSERT_EQ(second->op(), kFusedConv2DOp);
  EXPECT_THAT(InputNames(second), ElementsAre("h", "w2", "b"));
  ASSERT_TRUE(second->GetAttr("padding", &padding).ok());
  ASSERT_TRUE(second->GetAttr("activation", &activation).ok());
  EXPECT_EQ(padding, "VALID");
  EXPECT_EQ(activation, "");
  ASSERT_EQ(first->output_shapes().size(), 1u);
  EXPECT_EQ(first->output_shape(0), TensorShape({2, 4, 4, -1}));
}

// oneDNN's fused convolution is float NHWC: NCHW and double stay apart.
TEST(FuseBiasActivationTest, NchwAndDoubleConvolutionsAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  auto nchw = ops::Conv2D(root.WithOpName("nchw"), x, w, {1, 1, 1, 1}, "SAME",
                          ops::Conv2DAttrs().DataFormat("NCHW"));
  ops::Identity(root.WithOpName("out1"),
                ops::BiasAdd(root.WithOpName("nchw_bias"), nchw, b,
                             ops::BiasAddAttrs().DataFormat("NCHW")));
  auto xd = ops::Placeholder(root.WithOpName("xd"), DT_DOUBLE);
  auto wd = ops::Placeholder(root.WithOpName("wd"), DT_DOUBLE);
  auto bd = ops::Placeholder(root.WithOpName("bd"), DT_DOUBLE);
  auto dconv =
      ops::Conv2D(root.WithOpName("double"), xd, wd, {1, 1, 1, 1}, "SAME");
  ops::Identity(root.WithOpName("out2"),
                ops::BiasAdd(root.WithOpName("double_bias"), dconv, bd));
  ASSERT_TRUE(root.ok()) << root.status();
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), root.graph());
  EXPECT_EQ(r.changes, 0);
  EXPECT_EQ(root.graph()->FindNode("nchw")->op(), "Conv2D");
  EXPECT_EQ(root.graph()->FindNode("double")->op(), "Conv2D");
}

TEST(FuseBiasActivationTest, ChainedLayersBothFuse) {
  // Layer 2 reads layer 1's Relu, which layer 1's fusion replaces.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  auto h = ops::Relu(root.WithOpName("h"),
                     ops::BiasAdd(root, ops::MatMul(root, x, w), b));
  auto y = ops::Relu(root.WithOpName("y"),
                     ops::BiasAdd(root, ops::MatMul(root, h, w), b));
  ops::Identity(root.WithOpName("out"), y);
  OptimizationOptions options;
  Graph* g = root.graph();
  EXPECT_EQ(RunPass(Cpu(options), g).changes, 2);
  EXPECT_EQ(g->FindNode("y")->op(), kFusedMatMulOp);
  EXPECT_EQ(g->FindNode("y")->input_edge(0)->src, g->FindNode("h"));
  EXPECT_EQ(g->FindNode("h")->op(), kFusedMatMulOp);
}

}  // namespace
}  // namespace dflow
