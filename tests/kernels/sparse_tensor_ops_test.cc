// SparseToDense, SparseReshape and SparseFillEmptyRows (alone, and as
// tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse write
// them), MulNoNan
// (zeros against inf and nan, broadcasting, its gradients), Snapshot,
// EnsureShape and Empty, on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_sparse_tensor_ops_reference.py).
// Then the bad inputs: each is an InvalidArgument saying what is wrong,
// never a crash.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_sparse_tensor_ops/";

TEST(SparseTensorOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
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
    // The lookups' segment sums may add in another order than
    // TensorFlow's; the rest is exact.
    const double tol = want.dtype == "float32"   ? 1e-5
                       : want.dtype == "float64" ? 1e-12
                                                 : 0;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i];
      if (std::isnan(w) || std::isinf(w)) {
        const double g = Element(got, i);
        EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w) << "element " << i;
        continue;
      }
      EXPECT_NEAR(Element(got, i), w, tol * std::max(1.0, std::abs(w)))
          << "element " << i;
    }
  }
}

// --- Bad inputs. ---

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  return RunKernel(out.node(), in).status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

Tensor I64(std::vector<int64_t> v, TensorShape shape) {
  return Tensor::FromVector<int64_t>(v, shape);
}

TEST(SparseTensorOpsTest, SparseToDenseNamesTheBadIndex) {
  Scope root = Scope::NewRootScope();
  Output idx = Ph(root, DT_INT64), shape = Ph(root, DT_INT64),
         values = Ph(root, DT_FLOAT), fill = Ph(root, DT_FLOAT);
  Output dense = ops::SparseToDense(root, idx, shape, values, fill);
  const Tensor shape34 = I64({3, 4}, TensorShape({2}));
  const Tensor zero = Tensor::Scalar(0.0f);
  const Tensor two = Tensor::FromVector<float>({1, 2});
  ExpectInvalid(RunError(dense, {I64({0, 1, 3, 0}, TensorShape({2, 2})),
                                 shape34, two, zero}),
                "indices[1] = [3, 0] is out of bounds: need 0 <= index < "
                "[3,4]");
  ExpectInvalid(RunError(dense, {I64({1, 1, 0, 2}, TensorShape({2, 2})),
                                 shape34, two, zero}),
                "indices[1] = [0, 2] is out of order");
  ExpectInvalid(RunError(dense, {I64({1, 1, 1, 1}, TensorShape({2, 2})),
                                 shape34, two, zero}),
                "indices[1] = [1, 1] is repeated");
  ExpectInvalid(
      RunError(dense, {I64({0, 1, 1, 1}, TensorShape({2, 2})), shape34,
                       Tensor::FromVector<float>({1, 2, 3}), zero}),
      "sparse_values must be a scalar or have one value per index");
  ExpectInvalid(RunError(dense, {I64({0, 1, 1}, TensorShape({1, 3})), shape34,
                                 Tensor::FromVector<float>({1}), zero}),
                "but output_shape has 2");
}

TEST(SparseTensorOpsTest, SparseReshapeSaysWhatDoesNotFit) {
  Scope root = Scope::NewRootScope();
  OutputList r = ops::SparseReshape(root, Ph(root, DT_INT64),
                                    Ph(root, DT_INT64), Ph(root, DT_INT64));
  const Tensor idx = I64({0, 1, 2, 3}, TensorShape({2, 2}));
  const Tensor shape = I64({3, 4}, TensorShape({2}));
  ExpectInvalid(RunError(r[0], {idx, shape, I64({5, 2}, TensorShape({2}))}),
                "Input to reshape is a tensor with 12 dense values, but the "
                "requested shape has 10");
  ExpectInvalid(RunError(r[0], {idx, shape, I64({-1, 5}, TensorShape({2}))}),
                "requires a multiple of 5");
  ExpectInvalid(
      RunError(r[0], {idx, shape, I64({-1, -1, 3}, TensorShape({3}))}),
      "only one output dimension may be -1");
  ExpectInvalid(RunError(r[0], {I64({0, 1, 3, 3}, TensorShape({2, 2})), shape,
                                I64({12}, TensorShape({1}))}),
                "input_indices[1] = [3, 3] is out of bounds");
}

TEST(SparseTensorOpsTest, SparseFillEmptyRowsNamesTheBadRow) {
  Scope root = Scope::NewRootScope();
  OutputList f =
      ops::SparseFillEmptyRows(root, Ph(root, DT_INT64), Ph(root, DT_FLOAT),
                               Ph(root, DT_INT64), Ph(root, DT_FLOAT));
  ExpectInvalid(
      RunError(f[0], {I64({0, 1, 4, 0}, TensorShape({2, 2})),
                      Tensor::FromVector<float>({1, 2}),
                      I64({3, 3}, TensorShape({2})), Tensor::Scalar(0.0f)}),
      "indices[1] = [4, 0] is out of bounds: its row must be in [0, 3)");
  ExpectInvalid(
      RunError(f[0], {I64({0, 1}, TensorShape({1, 2})),
                      Tensor::FromVector<float>({1, 2}),
                      I64({3, 3}, TensorShape({2})), Tensor::Scalar(0.0f)}),
      "must have one row per value");
}

TEST(SparseTensorOpsTest, EnsureShapeAndEmptySayWhatIsWrong) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT);
  ExpectInvalid(RunError(ops::EnsureShape(root, x, TensorShape({-1, 5})),
                         {Tensor(DT_FLOAT, TensorShape({3, 4}))}),
                "Shape of tensor input [3,4] is not compatible with expected "
                "shape [?,5]");
  Output shape = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::Empty(root, shape, DT_FLOAT),
                         {Tensor::FromVector<int32_t>({2, -1})}),
                "shape[1] = -1 is negative");
  // At graph construction, as far as the shape is known.
  Scope checked = Scope::NewRootScope();
  ops::EnsureShape(checked, ops::Const(checked, Tensor(DT_FLOAT, {2, 3})),
                   TensorShape({2, 4}));
  EXPECT_THAT(std::string(checked.status().message()),
              HasSubstr("not compatible with the expected shape [2,4]"));
}

}  // namespace
}  // namespace dflow
