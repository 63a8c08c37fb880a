// The tf.sparse and tf.sets ops of graph/ops/sparse_ops*.cc on a graph
// TensorFlow 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_sparse_more_reference.py): SparseAdd (with a
// threshold, unsorted, empty), concat, reorder, slice, split, the dense
// products and sums (every adjoint), softmax, reductions, maximum/minimum,
// the crosses (FarmHash bit for bit), the set operations, SparseMatMul and
// the gradients tf.gradients writes through them. Then the bad inputs: each
// an InvalidArgument saying what is wrong, never a crash.
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

constexpr char kDir[] = "tests/testdata/tf_sparse_more/";

TEST(SparseMoreOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 150u);
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
    // Integers (indices, hashes, int values) exactly; sums of floats may
    // add in another order than TensorFlow's (and exp may differ in the
    // last bit).
    const bool is_float = want.dtype == "float32" || want.dtype == "float64";
    const double tol = want.dtype == "float32" ? 1e-5 : 1e-12;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      if (!is_float) {
        // int64 through a double: exact for the hashes too, compared as
        // the same double conversion of both.
        EXPECT_EQ(Element(got, i), want.values[i]) << "element " << i;
        continue;
      }
      const double w = want.values[i];
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
Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }

TEST(SparseMoreOpsTest, SparseAddRefusesBadOperands) {
  Scope root = Scope::NewRootScope();
  OutputList s = ops::SparseAdd(
      root, Ph(root, DT_INT64), Ph(root, DT_FLOAT), Ph(root, DT_INT64),
      Ph(root, DT_INT64), Ph(root, DT_FLOAT), Ph(root, DT_INT64),
      Ph(root, DT_FLOAT));
  const Tensor idx = I64({0, 1, 1, 0}, TensorShape({2, 2}));
  const Tensor shape = I64({2, 2}, TensorShape({2}));
  const Tensor zero = Tensor::Scalar(0.0f);
  ExpectInvalid(RunError(s[0], {idx, F({1, 2}), shape, idx, F({1, 2}),
                                I64({2, 3}, TensorShape({2})), zero}),
                "a and b must have the same dense shape");
  ExpectInvalid(RunError(s[0], {I64({0, 1, 2, 0}, TensorShape({2, 2})),
                                F({1, 2}), shape, idx, F({1, 2}), shape,
                                zero}),
                "a: indices[1] = [2, 0] is out of bounds");
  ExpectInvalid(RunError(s[0], {idx, F({1, 2, 3}), shape, idx, F({1, 2}),
                                shape, zero}),
                "must have one row per value");
  ExpectInvalid(RunError(s[0], {idx, F({1, 2}), I64({2, -2}, TensorShape({2})),
                                idx, F({1, 2}), I64({2, -2}, TensorShape({2})),
                                zero}),
                "is negative");
  ExpectInvalid(RunError(s[0], {idx, F({1, 2}), I64({2, 2, 2}, TensorShape({3})),
                                idx, F({1, 2}), shape, zero}),
                "one column per dimension");
}

TEST(SparseMoreOpsTest, SliceSplitConcatRefuseBadArguments) {
  Scope root = Scope::NewRootScope();
  const Tensor idx = I64({0, 1, 1, 0}, TensorShape({2, 2}));
  const Tensor shape = I64({2, 2}, TensorShape({2}));
  OutputList sl = ops::SparseSlice(root, Ph(root, DT_INT64), Ph(root, DT_FLOAT),
                                   Ph(root, DT_INT64), Ph(root, DT_INT64),
                                   Ph(root, DT_INT64));
  ExpectInvalid(RunError(sl[0], {idx, F({1, 2}), shape,
                                 I64({-1, 0}, TensorShape({2})),
                                 I64({1, 1}, TensorShape({2}))}),
                "must be non-negative");
  ExpectInvalid(RunError(sl[0], {idx, F({1, 2}), shape,
                                 I64({0}, TensorShape({1})),
                                 I64({1, 1}, TensorShape({2}))}),
                "start and size must be vectors of the rank 2");
  OutputList sp = ops::SparseSplit(root, Ph(root, DT_INT64), Ph(root, DT_INT64),
                                   Ph(root, DT_FLOAT), Ph(root, DT_INT64), 3);
  ExpectInvalid(RunError(sp[0], {Tensor::Scalar(int64_t{1}), idx, F({1, 2}),
                                 shape}),
                "num_split 3 must be in [1, 2]");
  ExpectInvalid(RunError(sp[0], {Tensor::Scalar(int64_t{2}), idx, F({1, 2}),
                                 shape}),
                "split_dim 2 is out of range");
  OutputList cc = ops::SparseConcat(
      root, {Ph(root, DT_INT64), Ph(root, DT_INT64)},
      {Ph(root, DT_FLOAT), Ph(root, DT_FLOAT)},
      {Ph(root, DT_INT64), Ph(root, DT_INT64)}, 1);
  ExpectInvalid(RunError(cc[0], {idx, idx, F({1, 2}), F({1, 2}), shape,
                                 I64({3, 2}, TensorShape({2}))}),
                "outside concat_dim 1");
  OutputList g = ops::SparseAddGrad(root, Ph(root, DT_FLOAT),
                                    Ph(root, DT_INT64), Ph(root, DT_INT64),
                                    Ph(root, DT_INT64));
  ExpectInvalid(RunError(g[0], {F({1, 2, 3}), idx, idx, idx}),
                "one value per row of sum_indices");
  Output sg = ops::SparseSliceGrad(root, Ph(root, DT_FLOAT),
                                   Ph(root, DT_INT64), Ph(root, DT_INT64),
                                   Ph(root, DT_INT64));
  ExpectInvalid(RunError(sg, {F({1}), idx, I64({0, 0}, TensorShape({2})),
                              I64({5, 5}, TensorShape({1, 2}))}),
                "is not among input_indices");
}

TEST(SparseMoreOpsTest, DenseOperandsMustFit) {
  Scope root = Scope::NewRootScope();
  const Tensor idx = I64({0, 1, 1, 0}, TensorShape({2, 2}));
  const Tensor shape = I64({2, 2}, TensorShape({2}));
  Output mm = ops::SparseTensorDenseMatMul(root, Ph(root, DT_INT64),
                                           Ph(root, DT_FLOAT),
                                           Ph(root, DT_INT64),
                                           Ph(root, DT_FLOAT));
  ExpectInvalid(RunError(mm, {idx, F({1, 2}), shape,
                              Tensor::FromVector<float>({1, 2, 3},
                                                        TensorShape({3, 1}))}),
                "inner dimension does not match");
  ExpectInvalid(RunError(mm, {I64({0, 1, 1, 7}, TensorShape({2, 2})),
                              F({1, 2}), shape,
                              Tensor::FromVector<float>({1, 2},
                                                        TensorShape({2, 1}))}),
                "a_indices[1] = [1, 7] is out of bounds");
  Output cw = ops::SparseDenseCwiseMul(root, Ph(root, DT_INT64),
                                       Ph(root, DT_FLOAT), Ph(root, DT_INT64),
                                       Ph(root, DT_FLOAT));
  ExpectInvalid(RunError(cw, {idx, F({1, 2}), shape, F({1, 2, 3})}),
                "does not broadcast to the sparse shape");
  Output dv = ops::SparseDenseCwiseDiv(root, Ph(root, DT_INT64),
                                       Ph(root, DT_INT32), Ph(root, DT_INT64),
                                       Ph(root, DT_INT32));
  ExpectInvalid(RunError(dv, {idx, Tensor::FromVector<int32_t>({1, 2}), shape,
                              Tensor::FromVector<int32_t>({1, 0})}),
                "cannot divide by zero");
  Output add = ops::SparseTensorDenseAdd(root, Ph(root, DT_INT64),
                                         Ph(root, DT_FLOAT), Ph(root, DT_INT64),
                                         Ph(root, DT_FLOAT));
  ExpectInvalid(RunError(add, {idx, F({1, 2}), shape, F({1, 2})}),
                "a_shape and b must have the same shape");
  Output red = ops::SparseReduceSum(root, Ph(root, DT_INT64),
                                    Ph(root, DT_FLOAT), Ph(root, DT_INT64),
                                    Ph(root, DT_INT32));
  ExpectInvalid(RunError(red, {idx, F({1, 2}), shape,
                               Tensor::FromVector<int32_t>({2})}),
                "Invalid reduction dimension 2");
  Output sm = ops::SparseSoftmax(root, Ph(root, DT_INT64), Ph(root, DT_FLOAT),
                                 Ph(root, DT_INT64));
  ExpectInvalid(RunError(sm, {I64({0, 1}, TensorShape({2, 1})), F({1, 2}),
                              I64({2}, TensorShape({1}))}),
                "rank >= 2");
  OutputList v2 = ops::SparseSegmentSumGradV2(
      root, Ph(root, DT_FLOAT), Ph(root, DT_INT32), Ph(root, DT_INT32),
      Ph(root, DT_INT32));
  ExpectInvalid(RunError(v2[0], {F({1, 2}), Tensor::FromVector<int32_t>({0, 9}),
                                 Tensor::FromVector<int32_t>({0, 1}),
                                 Tensor::Scalar(int32_t{4})}),
                "indices[1] = 9 is out of range [0, 4)");
  OutputList fg = ops::SparseFillEmptyRowsGrad(root, Ph(root, DT_INT64),
                                               Ph(root, DT_FLOAT));
  ExpectInvalid(RunError(fg[0], {I64({0, 3}, TensorShape({2})), F({1, 2})}),
                "reverse_index_map[1] = 3 is out of range");
}

TEST(SparseMoreOpsTest, CrossesAndSetsRefuseBadInputs) {
  Scope root = Scope::NewRootScope();
  Output d1 = Ph(root, DT_STRING), d2 = Ph(root, DT_STRING);
  OutputList cr = ops::SparseCrossV2(root, {}, {}, {}, {d1, d2},
                                     Ph(root, DT_STRING));
  Tensor a(DT_STRING, TensorShape({2, 1}));
  Tensor b(DT_STRING, TensorShape({3, 1}));
  ExpectInvalid(RunError(cr[0], {a, b, Tensor::Scalar("_")}),
                "Expected batch size 2 got 3");
  Tensor flat(DT_STRING, TensorShape({2}));
  ExpectInvalid(RunError(cr[0], {flat, a, Tensor::Scalar("_")}),
                "should be a matrix");
  OutputList ss = ops::SparseToSparseSetOperation(
      root, Ph(root, DT_INT64), Ph(root, DT_INT64), Ph(root, DT_INT64),
      Ph(root, DT_INT64), Ph(root, DT_INT64), Ph(root, DT_INT64),
      "intersection");
  const Tensor shape = I64({2, 2}, TensorShape({2}));
  const Tensor vals = I64({1, 2}, TensorShape({2}));
  ExpectInvalid(RunError(ss[0], {I64({1, 0, 0, 1}, TensorShape({2, 2})), vals,
                                 shape, I64({0, 0, 1, 1}, TensorShape({2, 2})),
                                 vals, shape}),
                "set1: indices[1] = [0, 1] is out of order");
  ExpectInvalid(RunError(ss[0], {I64({0, 0, 1, 1}, TensorShape({2, 2})), vals,
                                 shape, I64({0, 0, 1, 1}, TensorShape({2, 2})),
                                 vals, I64({3, 2}, TensorShape({2}))}),
                "must have the same shape but for the last dimension");
  OutputList bad = ops::DenseToDenseSetOperation(root, Ph(root, DT_INT32),
                                                 Ph(root, DT_INT32), "xor");
  EXPECT_FALSE(RunError(bad[0], {Tensor::FromVector<int32_t>({1}, TensorShape({1, 1})),
                                 Tensor::FromVector<int32_t>({1}, TensorShape({1, 1}))})
                   .ok());
}

}  // namespace
}  // namespace dflow
