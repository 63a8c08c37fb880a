// Einsum and StringFormat on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values and text (tools/tf_reference/make_einsum_reference.py):
// products, batch products with broadcast ellipses, transposes, traces,
// diagonals, sums, implicit outputs, three operands, float64 and int32, an
// empty contraction, and the gradients TensorFlow writes through Einsum;
// tf.strings.format of scalars, vectors, matrices, cubes, strings, bools,
// NaNs, empty tensors and every summarize. Then the bad inputs of Einsum,
// StringFormat, PrintV2, ReverseSequence and the TensorArray/TensorList
// split and concat: each an InvalidArgument saying what is wrong.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_einsum/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(EinsumTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 40u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Sums run in another order than TensorFlow's: a few ulps of the
    // values' size (inputs in [-2, 2], inner sizes <= 5). Integers exact.
    const double rel = want.dtype == "float32"   ? 1e-5
                       : want.dtype == "float64" ? 1e-13
                                                 : 0;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i];
      EXPECT_NEAR(Element(got, i), w, rel * std::max(1.0, std::fabs(w)))
          << "element " << i;
    }
  }
}

TEST(EinsumTest, StringFormatWritesTensorFlowsText) {
  absl::StatusOr<GraphDef> def =
      ReadGraphDefFile(std::string(kDir) + "graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  std::ifstream in(std::string(kDir) + "formats.txt");
  std::vector<std::string> names, wants;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> parts = absl::StrSplit(line, ' ');
    ASSERT_EQ(parts.size(), 2u) << line;
    names.push_back(parts[0]);
    wants.push_back(absl::HexStringToBytes(parts[1]));
  }
  ASSERT_GE(names.size(), 20u);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(*def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> outputs;
  ASSERT_TRUE((*session)->Run({}, names, {}, &outputs).ok());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(*outputs[i].data<std::string>(), wants[i]) << names[i];
  }
}

// --- Bad inputs. ---

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  return RunKernel(out.node(), in).status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

// The error of an Einsum of float inputs shaped as `inputs`: found when
// the graph is built (the shape function: equation errors) or run.
absl::Status EinsumError(const std::string& equation,
                         const std::vector<Tensor>& inputs) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> placeholders;
  for (size_t i = 0; i < inputs.size(); ++i) {
    placeholders.push_back(ops::Placeholder(root, DT_FLOAT));
  }
  Output einsum = ops::Einsum(root, placeholders, equation);
  if (!root.ok()) return root.status();
  return RunError(einsum, inputs);
}

TEST(EinsumTest, BadEquationsAndShapesSayWhat) {
  const Tensor m34(DT_FLOAT, TensorShape({3, 4}));
  const Tensor m54(DT_FLOAT, TensorShape({5, 4}));
  ExpectInvalid(EinsumError("ij,jk->ik", {m34, m54}),
                "label 'j' is 4 in one place and 5 in input 1");
  ExpectInvalid(EinsumError("ijk->ik", {m34}),
                "input 0 has rank 2 but its subscripts 'ijk' name 3");
  ExpectInvalid(EinsumError("i1->i", {m34}), "subscript '1' is not a letter");
  ExpectInvalid(EinsumError("ij->ik", {m34}),
                "output subscript 'k' is in no input");
  ExpectInvalid(EinsumError("ii->i", {m34}),
                "repeats label 'i' over dimensions of sizes 3 and 4");
  ExpectInvalid(EinsumError("ij->i", {m34, m34}),
                "has 1 operands but the op has 2 inputs");
  ExpectInvalid(EinsumError("...i...->i", {m34}), "two ellipses");
}

TEST(EinsumTest, RepeatedOutputLabelFillsADiagonal) {
  // TensorFlow's gradient of "ii->i" is "i->ii": a diagonal matrix.
  Scope root = Scope::NewRootScope();
  Output v = ops::Placeholder(root, DT_FLOAT);
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(ops::Einsum(root, {v}, "i->ii").node(),
                {Tensor::FromVector<float>({1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 3}));
  const std::vector<float> want = {1, 0, 0, 0, 2, 0, 0, 0, 3};
  for (int i = 0; i < 9; ++i) EXPECT_EQ((*out)[0].data<float>()[i], want[i]);
}

TEST(EinsumTest, StringFormatPrintAndReverseSequenceSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  ExpectInvalid(RunError(ops::StringFormat(root, {x}, "{} and {}"),
                         {Tensor(DT_FLOAT, TensorShape({2}))}),
                "the template has 2 placeholders ('{}') but the op has 1");
  Output text = ops::Placeholder(root, DT_STRING);
  ExpectInvalid(RunError(ops::PrintV2(root, text, "printer"),
                         {Tensor::Scalar<std::string>("hi")}),
                "output_stream 'printer' is not one of");
  Output lengths = ops::Placeholder(root, DT_INT64);
  const Tensor batch(DT_FLOAT, TensorShape({2, 3}));
  ExpectInvalid(RunError(ops::ReverseSequence(root, x, lengths, 1),
                         {batch, Tensor::FromVector<int64_t>({1, 4})}),
                "seq_lengths[1] is 4; it must be in [0, 3]");
  ExpectInvalid(RunError(ops::ReverseSequence(root, x, lengths, 1),
                         {batch, Tensor::FromVector<int64_t>({1, 2, 3})}),
                "seq_lengths must be a vector of 2 lengths");
  Scope bad = Scope::NewRootScope();
  ops::ReverseSequence(bad, ops::Placeholder(bad, DT_FLOAT),
                       ops::Placeholder(bad, DT_INT64), 0, 0);
  ExpectInvalid(bad.status(), "seq_dim and batch_dim are both 0");
}

TEST(EinsumTest, ListSplitAndConcatSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output lengths = ops::Placeholder(root, DT_INT64);
  Output split = OpBuilder(root, "TensorListSplit")
                     .Input(x)
                     .Input(ops::Const(root, -1))
                     .Input(lengths)
                     .Finalize()
                     .output(0);
  const Tensor unknown_shape = Tensor::Scalar<int32_t>(-1);
  ExpectInvalid(
      RunError(split, {Tensor(DT_FLOAT, TensorShape({5, 2})), unknown_shape,
                       Tensor::FromVector<int64_t>({2, 2})}),
      "split lengths add up to 4 but the tensor's 0th dimension "
      "is 5");
  ExpectInvalid(
      RunError(split, {Tensor(DT_FLOAT, TensorShape({5, 2})), unknown_shape,
                       Tensor::FromVector<int64_t>({6, -1})}),
      "lengths must be >= 0");
  Output scalars = OpBuilder(root, "TensorListFromTensor")
                       .Input(x)
                       .Input(ops::Const(root, -1))
                       .Finalize()
                       .output(0);
  Output joined = OpBuilder(root, "TensorListConcatV2")
                      .Input(scalars)
                      .Input(ops::Const(root, -1))
                      .Input(ops::Const(root, Tensor::FromVector<int64_t>(
                                                  {}, TensorShape({0}))))
                      .Attr("element_dtype", DT_FLOAT)
                      .Finalize()
                      .output(0);
  // A list of scalars, made and joined in one session.
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> outputs;
  const absl::Status s =
      (*session)->Run({{x.name(), Tensor::FromVector<float>({1, 2, 3})}},
                      {joined.name()}, {}, &outputs);
  ExpectInvalid(s, "TensorListConcat joins elements of rank >= 1");
}

}  // namespace
}  // namespace dflow
