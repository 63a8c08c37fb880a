// The TensorArray kernels through a Session: write/read/size, scatter and
// gather, clear_after_read, write-once, dtype and shape checks, bounds and
// dynamic_size, and the gradient array (found again by source, writes that
// add up, zeros where no gradient was written).
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct ArrayOptions {
  int32_t size = 3;
  DataType dtype = DT_FLOAT;
  bool clear_after_read = true;
  bool dynamic_size = false;
  TensorShape element_shape = TensorShape::Unknown();
};

// A TensorArrayV3 named `name`: output 0 the handle, 1 the flow.
Operation NewArray(const Scope& s, const ArrayOptions& o = {},
                   const std::string& name = "ta") {
  return OpBuilder(s.WithOpName(name), "TensorArrayV3")
      .Input(ops::Const(s, o.size))
      .Attr("dtype", o.dtype)
      .Attr("clear_after_read", o.clear_after_read)
      .Attr("dynamic_size", o.dynamic_size)
      .Attr("element_shape", o.element_shape)
      .Finalize();
}

// Writes `value` at `index`; returns the flow out.
Output Write(const Scope& s, const std::string& name, Output handle,
             int32_t index, Input value, Output flow) {
  return OpBuilder(s.WithOpName(name), "TensorArrayWriteV3")
      .Input(handle)
      .Input(ops::Const(s, index))
      .Input(value)
      .Input(flow)
      .Finalize()
      .output(0);
}

Output Read(const Scope& s, const std::string& name, Output handle,
            int32_t index, Output flow, DataType dtype = DT_FLOAT) {
  return OpBuilder(s.WithOpName(name), "TensorArrayReadV3")
      .Input(handle)
      .Input(ops::Const(s, index))
      .Input(flow)
      .Attr("dtype", dtype)
      .Finalize()
      .output(0);
}

Output Gather(const Scope& s, const std::string& name, Output handle,
              const std::vector<int32_t>& indices, Output flow,
              TensorShape element_shape = TensorShape::Unknown()) {
  return OpBuilder(s.WithOpName(name), "TensorArrayGatherV3")
      .Input(handle)
      .Input(ops::Const(
          s, Tensor::FromVector<int32_t>(
                 indices, TensorShape({static_cast<int64_t>(indices.size())}))))
      .Input(flow)
      .Attr("dtype", DT_FLOAT)
      .Attr("element_shape", element_shape)
      .Finalize()
      .output(0);
}

Output Size(const Scope& s, const std::string& name, Output handle,
            Output flow) {
  return OpBuilder(s.WithOpName(name), "TensorArraySizeV3")
      .Input(handle)
      .Input(flow)
      .Finalize()
      .output(0);
}

absl::Status RunFetch(Session* session, const std::vector<std::string>& names,
                      std::vector<Tensor>* out) {
  return session->Run({}, names, {}, out);
}

TEST(TensorArrayTest, WriteReadSizeAndGather) {
  Scope root = Scope::NewRootScope();
  ArrayOptions o;
  o.clear_after_read = false;
  Operation ta = NewArray(root, o);
  Output h = ta.output(0);
  Output f =
      Write(root, "w0", h, 0, ops::Const(root, {1.0f, 2.0f}), ta.output(1));
  f = Write(root, "w1", h, 1, ops::Const(root, {3.0f, 4.0f}), f);
  f = Write(root, "w2", h, 2, ops::Const(root, {5.0f, 6.0f}), f);
  Output r = Read(root, "read", h, 1, f);
  Size(root, "size", h, f);
  // Read first: its output flows into nothing, so order by control.
  OpBuilder(root.WithOpName("gather"), "TensorArrayGatherV3")
      .Input(h)
      .Input(ops::Const(root, {2, 0, 1}))
      .Input(f)
      .Attr("dtype", DT_FLOAT)
      .ControlInput(r.op())
      .Finalize();
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(
      RunFetch(session.get(), {"read", "size", "gather", "w2"}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(3, 4));
  EXPECT_EQ(out[1].flat<int32_t>()[0], 3);
  EXPECT_EQ(out[2].shape(), TensorShape({3, 2}));
  EXPECT_THAT(out[2].flat<float>(), ElementsAre(5, 6, 1, 2, 3, 4));
  EXPECT_EQ(out[3].shape(), TensorShape({}));  // the flow: a float scalar
}

TEST(TensorArrayTest, ScatterThenRead) {
  Scope root = Scope::NewRootScope();
  Operation ta = NewArray(root);
  Output f =
      OpBuilder(root.WithOpName("scatter"), "TensorArrayScatterV3")
          .Input(ta.output(0))
          .Input(ops::Const(root, {2, 0, 1}))
          .Input(ops::Const(root, Tensor::FromVector<float>(
                                      {1, 2, 3, 4, 5, 6}, TensorShape({3, 2}))))
          .Input(ta.output(1))
          .Finalize()
          .output(0);
  Read(root, "read2", ta.output(0), 2, f);
  Read(root, "read0", ta.output(0), 0, f);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunFetch(session.get(), {"read2", "read0"}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(1, 2));
  EXPECT_THAT(out[1].flat<float>(), ElementsAre(3, 4));
}

TEST(TensorArrayTest, SecondReadAfterClearIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation ta = NewArray(root);
  Output f =
      Write(root, "w", ta.output(0), 0, ops::Const(root, 1.0f), ta.output(1));
  Output first = Read(root, "first", ta.output(0), 0, f);
  OpBuilder(root.WithOpName("second"), "TensorArrayReadV3")
      .Input(ta.output(0))
      .Input(ops::Const(root, 0))
      .Input(f)
      .Attr("dtype", DT_FLOAT)
      .ControlInput(first.op())
      .Finalize();
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = RunFetch(session.get(), {"second"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("second")) << s;
  EXPECT_THAT(s.message(), HasSubstr("clear_after_read"));
}

TEST(TensorArrayTest, ReadOfAnUnwrittenIndexIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation ta = NewArray(root);
  Read(root, "read", ta.output(0), 1, ta.output(1));
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = RunFetch(session.get(), {"read"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("no write reached")) << s;
}

TEST(TensorArrayTest, SecondWriteIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation ta = NewArray(root);
  Output f =
      Write(root, "w1", ta.output(0), 0, ops::Const(root, 1.0f), ta.output(1));
  Write(root, "w2", ta.output(0), 0, ops::Const(root, 2.0f), f);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = RunFetch(session.get(), {"w2"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("already written")) << s;
}

TEST(TensorArrayTest, DtypeAndShapeMismatchesAreErrors) {
  Scope root = Scope::NewRootScope();
  ArrayOptions o;
  o.element_shape = TensorShape({2});
  Operation ta = NewArray(root, o);
  Write(root, "int_write", ta.output(0), 0, ops::Const(root, 7), ta.output(1));
  Write(root, "shape_write", ta.output(0), 0, ops::Const(root, {1.0f}),
        ta.output(1));
  Output f = Write(root, "good_write", ta.output(0), 1,
                   ops::Const(root, {1.0f, 2.0f}), ta.output(1));
  Read(root, "int_read", ta.output(0), 1, f, DT_INT32);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = RunFetch(session.get(), {"int_write"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("cannot write a int32")) << s;
  s = RunFetch(session.get(), {"shape_write"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("shape [1]")) << s;
  s = RunFetch(session.get(), {"int_read"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("set dtype")) << s;
}

TEST(TensorArrayTest, WritePastTheEndGrowsOnlyWhenDynamic) {
  Scope root = Scope::NewRootScope();
  Operation fixed = NewArray(root, {}, "fixed");
  Write(root, "fixed_write", fixed.output(0), 3, ops::Const(root, 1.0f),
        fixed.output(1));
  ArrayOptions o;
  o.dynamic_size = true;
  Operation grows = NewArray(root, o, "grows");
  Output f = Write(root, "grows_write", grows.output(0), 5,
                   ops::Const(root, 1.0f), grows.output(1));
  Size(root, "size", grows.output(0), f);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = RunFetch(session.get(), {"fixed_write"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("not dynamic_size")) << s;
  ASSERT_TRUE(RunFetch(session.get(), {"size"}, &out).ok());
  EXPECT_EQ(out[0].flat<int32_t>()[0], 6);
}

TEST(TensorArrayTest, GatherOfNoIndicesUsesTheElementShape) {
  Scope root = Scope::NewRootScope();
  Operation ta = NewArray(root);
  Gather(root, "gather", ta.output(0), {}, ta.output(1), TensorShape({2}));
  Gather(root, "unknown", ta.output(0), {}, ta.output(1));
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunFetch(session.get(), {"gather"}, &out).ok());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 2}));
  absl::Status s = RunFetch(session.get(), {"unknown"}, &out);
  EXPECT_THAT(s.message(), HasSubstr("fully defined")) << s;
}

// The gradient array: two TensorArrayGradV3 of one source find the same
// array, writes to one index add up, and an index whose source element was
// written reads as zeros until a gradient reaches it.
TEST(TensorArrayTest, GradArrayAddsWritesAndReadsZeros) {
  Scope root = Scope::NewRootScope();
  ArrayOptions o;
  o.size = 2;
  Operation ta = NewArray(root, o);
  Output f = Write(root, "w0", ta.output(0), 0, ops::Const(root, {1.0f, 1.0f}),
                   ta.output(1));
  f = Write(root, "w1", ta.output(0), 1, ops::Const(root, {1.0f, 1.0f}), f);
  auto grad = [&](const std::string& name) {
    return OpBuilder(root.WithOpName(name), "TensorArrayGradV3")
        .Input(ta.output(0))
        .Input(f)
        .Attr("source", "gradients")
        .Finalize();
  };
  Operation g1 = grad("grad1");
  Operation g2 = grad("grad2");
  Output gf = Write(root, "gw1", g1.output(0), 0,
                    ops::Const(root, {1.0f, 2.0f}), g1.output(1));
  gf =
      Write(root, "gw2", g2.output(0), 0, ops::Const(root, {10.0f, 20.0f}), gf);
  Gather(root, "gather", g1.output(0), {0, 1}, gf);
  Size(root, "size", g2.output(0), gf);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunFetch(session.get(), {"size"}, &out).ok());
  EXPECT_EQ(out[0].flat<int32_t>()[0], 2);
  ASSERT_TRUE(RunFetch(session.get(), {"gather"}, &out).ok());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(11, 22, 0, 0));
}

TEST(TensorArrayTest, UseAfterCloseIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation ta = NewArray(root);
  Operation close = OpBuilder(root.WithOpName("close"), "TensorArrayCloseV3")
                        .Input(ta.output(0))
                        .Finalize();
  OpBuilder(root.WithOpName("size"), "TensorArraySizeV3")
      .Input(ta.output(0))
      .Input(ta.output(1))
      .ControlInput(close)
      .Finalize();
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = RunFetch(session.get(), {"size"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(s.message(), HasSubstr("was closed"));
}

}  // namespace
}  // namespace dflow
