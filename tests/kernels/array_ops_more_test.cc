// BatchMatMul/V2/V3, ClipByValue, ArgMin, GatherNd, ScatterNd, ListDiff,
// BroadcastArgs and MatrixDiagV3/MatrixDiagPartV3 (tf.eye, tf.linalg.diag,
// diag_part) on a graph TensorFlow 2.21 wrote, against TensorFlow's
// values (tools/tf_reference/make_array_ops_reference.py): broadcast
// batches and adjoints, scalar and full clip bounds, ArgMin's ties, int32
// and int64 indices and shapes, duplicate scatter indices. Then the bad
// inputs: each is an InvalidArgument saying what is wrong, never a crash;
// and large and many-small batched products against a plain loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_array_ops_more/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(ArrayOpsMoreTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 60u);
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
    // Products sum in another order than TensorFlow's (its own BatchMatMul
    // and BatchMatMulV3 differ in the last bit): a few ulps of the sum of
    // |terms| (inputs are in [-2, 2], inner dimension 4). The rest exact.
    const bool product = absl::StartsWith(want.name, "out_BMM");
    const double tol = !product ? 0 : want.dtype == "float32" ? 1e-5 : 1e-13;
    // %.9g round-trips a float: rounded back to float, the value is
    // TensorFlow's exactly.
    const bool single = want.dtype == "float32";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      EXPECT_NEAR(Element(got, i), w, tol) << "element " << i;
    }
  }
}

// --- Bad inputs. ---

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

template <typename T>
Tensor Vec(const std::vector<T>& v, TensorShape shape) {
  return Tensor::FromVector<T>(v, shape);
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(ArrayOpsMoreTest, BatchMatMulShapeErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), y = Ph(root, DT_FLOAT);
  const Tensor x234(DT_FLOAT, TensorShape({2, 3, 4}));
  ExpectInvalid(RunError(ops::BatchMatMulV2(root, x, y),
                         {x234, Tensor(DT_FLOAT, TensorShape({2, 5, 6}))}),
                "Matrix size-incompatible: In[0]: [2,3,4], In[1]: [2,5,6]");
  ExpectInvalid(RunError(ops::BatchMatMulV2(root, x, y),
                         {x234, Tensor(DT_FLOAT, TensorShape({3, 4, 5}))}),
                "compatible batch dimensions");
  ExpectInvalid(RunError(ops::BatchMatMul(root, x, y),
                         {x234, Tensor(DT_FLOAT, TensorShape({1, 4, 5}))}),
                "equal batch dimensions");
  ExpectInvalid(RunError(ops::BatchMatMulV2(root, x, y),
                         {Tensor(DT_FLOAT, TensorShape({4})), x234}),
                "In[0] ndims must be >= 2");
}

TEST(ArrayOpsMoreTest, GatherNdAndScatterNdNameTheBadIndex) {
  Scope root = Scope::NewRootScope();
  Output p = Ph(root, DT_FLOAT), i64 = Ph(root, DT_INT64);
  const Tensor params(DT_FLOAT, TensorShape({3, 4}));
  ExpectInvalid(
      RunError(ops::GatherNd(root, p, i64),
               {params, Vec<int64_t>({1, 2, 3, 0}, TensorShape({2, 2}))}),
      "indices[1] = [3, 0] does not index into param shape [3,4]");
  ExpectInvalid(RunError(ops::GatherNd(root, p, i64),
                         {params, Vec<int64_t>({1, -1}, TensorShape({1, 2}))}),
                "indices[0] = [1, -1]");
  ExpectInvalid(RunError(ops::GatherNd(root, p, i64),
                         {params, Vec<int64_t>({0, 0, 0}, TensorShape({3}))}),
                "indices.shape[-1] must be <= params.rank");

  Output i32 = Ph(root, DT_INT32), u = Ph(root, DT_FLOAT),
         sh = Ph(root, DT_INT32);
  Output scatter = ops::ScatterNd(root, i32, u, sh);
  const Tensor shape = Vec<int32_t>({5, 3}, TensorShape({2}));
  ExpectInvalid(
      RunError(scatter, {Vec<int32_t>({1, 5}, TensorShape({2, 1})),
                         Tensor(DT_FLOAT, TensorShape({2, 3})), shape}),
      "indices[1] = [5] does not index into shape [5,3]");
  ExpectInvalid(
      RunError(scatter, {Vec<int32_t>({1, 2}, TensorShape({2, 1})),
                         Tensor(DT_FLOAT, TensorShape({2, 4})), shape}),
      "updates must have shape");
}

TEST(ArrayOpsMoreTest, OtherBadInputsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_INT32), b = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::BroadcastArgs(root, a, b),
                         {Vec<int32_t>({2, 3}, TensorShape({2})),
                          Vec<int32_t>({4}, TensorShape({1}))}),
                "Incompatible shapes: [2,3] vs. [4]");
  ExpectInvalid(RunError(ops::ListDiff(root, a, b).out,
                         {Vec<int32_t>({1, 2}, TensorShape({1, 2})),
                          Vec<int32_t>({4}, TensorShape({1}))}),
                "x should be a 1D vector");
  Output t = Ph(root, DT_FLOAT), lo = Ph(root, DT_FLOAT),
         hi = Ph(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::ClipByValue(root, t, lo, hi),
               {Tensor(DT_FLOAT, TensorShape({2, 3})),
                Tensor(DT_FLOAT, TensorShape({3})), Tensor::Scalar<float>(1)}),
      "clip_value_min must be a scalar or have the shape of t");
  Output m = Ph(root, DT_FLOAT), axis = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::ArgMin(root, m, axis),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Tensor::Scalar<int32_t>(2)}),
                "Expected dimension in the range [-2, 2), but got 2");
}

// --- Batched products against a plain loop. ---

template <typename T>
void CheckProduct(const std::vector<int64_t>& xs,
                  const std::vector<int64_t>& ys, bool adj_x, bool adj_y,
                  DataType dtype) {
  SCOPED_TRACE(::testing::Message()
               << "x " << TensorShape(xs).ToString() << " y "
               << TensorShape(ys).ToString() << " adj " << adj_x << adj_y);
  Tensor x(dtype, TensorShape(xs)), y(dtype, TensorShape(ys));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    x.data<T>()[i] = static_cast<T>((i * 7919 % 23) - 11) / T(8);
  }
  for (int64_t i = 0; i < y.NumElements(); ++i) {
    y.data<T>()[i] = static_cast<T>((i * 104729 % 19) - 9) / T(4);
  }
  Scope root = Scope::NewRootScope();
  Output out =
      ops::BatchMatMulV2(root, Ph(root, dtype), Ph(root, dtype),
                         ops::BatchMatMulAttrs().AdjX(adj_x).AdjY(adj_y));
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), {x, y});
  ASSERT_TRUE(r.ok()) << r.status();
  const Tensor& got = (*r)[0];
  // Reference: x's batch dims are [B] or [1], y's [B] (rank 3 each).
  const int64_t bx = xs[0], by = ys[0], B = std::max(bx, by);
  const int64_t m = adj_x ? xs[2] : xs[1], k = adj_x ? xs[1] : xs[2];
  const int64_t n = adj_y ? ys[1] : ys[2];
  ASSERT_EQ(got.shape(), TensorShape({B, m, n}));
  for (int64_t b = 0; b < B; ++b) {
    const T* xb = x.data<T>() + (bx == 1 ? 0 : b) * xs[1] * xs[2];
    const T* yb = y.data<T>() + (by == 1 ? 0 : b) * ys[1] * ys[2];
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double xv = adj_x ? xb[p * m + i] : xb[i * k + p];
          const double yv = adj_y ? yb[j * k + p] : yb[p * n + j];
          sum += xv * yv;
        }
        const T g = got.data<T>()[(b * m + i) * n + j];
        // Every product and partial sum is exact in float (multiples of
        // 1/32 below 2^24 / 32).
        ASSERT_EQ(static_cast<double>(g), sum)
            << "batch " << b << " row " << i << " col " << j;
      }
    }
  }
}

TEST(ArrayOpsMoreTest, BatchedProductsMatchAPlainLoop) {
  // Many small products (split by batch) and a few large ones (each split
  // by Gemm), with and without adjoints and broadcasting.
  CheckProduct<float>({64, 8, 16}, {64, 16, 8}, false, false, DT_FLOAT);
  CheckProduct<float>({1, 16, 8}, {64, 8, 16}, true, true, DT_FLOAT);
  CheckProduct<double>({64, 8, 16}, {1, 16, 8}, false, false, DT_DOUBLE);
  CheckProduct<float>({3, 128, 96}, {3, 96, 128}, false, false, DT_FLOAT);
  CheckProduct<float>({1, 96, 128}, {2, 128, 96}, true, true, DT_FLOAT);
  CheckProduct<double>({2, 96, 128}, {2, 96, 128}, false, true, DT_DOUBLE);
  // Empty inner dimension: zeros.
  CheckProduct<float>({2, 3, 0}, {2, 0, 4}, false, false, DT_FLOAT);
}

}  // namespace
}  // namespace dflow
