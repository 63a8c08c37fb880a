// The segment reductions (SegmentSum/Mean/Max/Min/Prod, UnsortedSegment
// Max/Min/Prod, SparseSegmentSum/Mean/SqrtN with and without num_segments,
// and the SparseSegment*Grad ops), DynamicPartition, ParallelDynamicStitch,
// TensorScatterUpdate/Add/Sub/Max/Min and Roll, with the gradients
// TensorFlow writes through them, on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_index_ops_reference.py):
// empty segments, dropped ids, repeated indices, int32 and int64 ids. Then
// the bad inputs: each is an InvalidArgument naming the node and what is
// wrong, never a crash; and inputs large enough to be split over threads
// against plain loops.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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
using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_index_ops/";

TEST(IndexOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 90u);
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
    const bool integer = want.dtype == "int32" || want.dtype == "int64";
    // %.9g round-trips a float: rounded back to float, the value is
    // TensorFlow's exactly. Sums may run in another order: 1e-5 relative
    // (absolute below 1); integers exact.
    const bool single = want.dtype == "float32";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      const double tol = integer ? 0 : 1e-5 * std::max(1.0, std::fabs(w));
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
template <typename T>
Tensor Vec(const std::vector<T>& v) {
  return Tensor::FromVector<T>(v,
                               TensorShape({static_cast<int64_t>(v.size())}));
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(IndexOpsTest, SortedSegmentsRejectBadIds) {
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_FLOAT), ids = Ph(root, DT_INT32);
  const Tensor data(DT_FLOAT, TensorShape({4, 2}));
  const absl::Status unsorted =
      RunError(ops::SegmentSum(root.WithOpName("seg"), d, ids),
               {data, Vec<int32_t>({0, 1, 0, 2})});
  ExpectInvalid(unsorted,
                "segment ids are not increasing: segment_ids[2] = 0 < "
                "segment_ids[1] = 1");
  // The error names the node and its op.
  EXPECT_THAT(std::string(unsorted.message()), HasSubstr("seg"));
  EXPECT_THAT(std::string(unsorted.message()), HasSubstr("SegmentSum"));
  ExpectInvalid(RunError(ops::SegmentMax(root, d, ids),
                         {data, Vec<int32_t>({-1, 0, 0, 1})}),
                "segment_ids[0] = -1 is negative");
  ExpectInvalid(
      RunError(ops::SegmentMean(root, d, ids), {data, Vec<int32_t>({0, 0, 1})}),
      "segment_ids should be the same size as dimension 0 of data");
  ExpectInvalid(
      RunError(ops::SegmentProd(root, d, ids),
               {data, Vec<int32_t>({0, 0, 1, 1}, TensorShape({2, 2}))}),
      "segment_ids should be a vector");
}

TEST(IndexOpsTest, UnsortedSegmentsRejectIdsPastNumSegments) {
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_FLOAT), ids = Ph(root, DT_INT32),
         n = Ph(root, DT_INT32);
  const Tensor data(DT_FLOAT, TensorShape({3, 2}));
  ExpectInvalid(
      RunError(ops::UnsortedSegmentMax(root, d, ids, n),
               {data, Vec<int32_t>({0, 4, 1}), Tensor::Scalar<int32_t>(3)}),
      "segment_ids[1] = 4 is out of range [0, 3)");
  ExpectInvalid(
      RunError(ops::UnsortedSegmentProd(root, d, ids, n),
               {data, Vec<int32_t>({0, 1}), Tensor::Scalar<int32_t>(3)}),
      "does not start with segment_ids.shape");
}

TEST(IndexOpsTest, SparseSegmentsRejectBadIndicesAndIds) {
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_FLOAT), idx = Ph(root, DT_INT32),
         seg = Ph(root, DT_INT32), n = Ph(root, DT_INT32);
  const Tensor data(DT_FLOAT, TensorShape({3, 2}));
  ExpectInvalid(RunError(ops::SparseSegmentSum(root, d, idx, seg),
                         {data, Vec<int32_t>({0, 9}), Vec<int32_t>({0, 1})}),
                "indices[1] = 9 is out of range [0, 3)");
  ExpectInvalid(RunError(ops::SparseSegmentMean(root, d, idx, seg),
                         {data, Vec<int32_t>({0, 1}), Vec<int32_t>({1, 0})}),
                "segment ids are not increasing");
  ExpectInvalid(RunError(ops::SparseSegmentSqrtN(root, d, idx, seg),
                         {data, Vec<int32_t>({0, 1, 2}), Vec<int32_t>({0, 1})}),
                "segment_ids and indices should have the same size");
  ExpectInvalid(
      RunError(ops::SparseSegmentMeanWithNumSegments(root, d, idx, seg, n),
               {data, Vec<int32_t>({0, 1}), Vec<int32_t>({0, 2}),
                Tensor::Scalar<int32_t>(2)}),
      "segment_ids[1] = 2 is out of range [0, 2)");
  Output g = Ph(root, DT_FLOAT), dim0 = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::SparseSegmentSumGrad(root, g, idx, seg, dim0),
                         {data, Vec<int32_t>({0, 5}), Vec<int32_t>({0, 1}),
                          Tensor::Scalar<int32_t>(4)}),
                "indices[1] = 5 is out of range [0, 4)");
  ExpectInvalid(RunError(ops::SparseSegmentMeanGrad(root, g, idx, seg, dim0),
                         {data, Vec<int32_t>({0, 1}), Vec<int32_t>({0, 3}),
                          Tensor::Scalar<int32_t>(4)}),
                "segment_ids[1] = 3 is out of range [0, 3)");
}

TEST(IndexOpsTest, PartitionScatterAndRollRejectBadInputs) {
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_FLOAT), p = Ph(root, DT_INT32);
  const Tensor data(DT_FLOAT, TensorShape({3, 2}));
  ExpectInvalid(RunError(ops::DynamicPartition(root, d, p, 3)[0],
                         {data, Vec<int32_t>({0, 2, 3})}),
                "partitions[2] = 3 is not in [0, 3)");
  ExpectInvalid(RunError(ops::DynamicPartition(root, d, p, 2)[0],
                         {data, Vec<int32_t>({0, 1})}),
                "data.shape must start with partitions.shape");

  Output t = Ph(root, DT_FLOAT), i = Ph(root, DT_INT32), u = Ph(root, DT_FLOAT);
  const Tensor tensor(DT_FLOAT, TensorShape({5, 3}));
  ExpectInvalid(RunError(ops::TensorScatterUpdate(root, t, i, u),
                         {tensor, Vec<int32_t>({1, 5}, TensorShape({2, 1})),
                          Tensor(DT_FLOAT, TensorShape({2, 3}))}),
                "indices[1] = [5] does not index into shape [5,3]");
  ExpectInvalid(RunError(ops::TensorScatterAdd(root, t, i, u),
                         {tensor, Vec<int32_t>({1, 2}, TensorShape({2, 1})),
                          Tensor(DT_FLOAT, TensorShape({2, 4}))}),
                "updates must have shape");
  ExpectInvalid(RunError(ops::TensorScatterMax(root, t, i, u),
                         {tensor, Vec<int32_t>({0, 0, 0}, TensorShape({1, 3})),
                          Tensor(DT_FLOAT, TensorShape({1}))}),
                "indices.shape[-1] must be <= the rank of tensor");

  Output r = Ph(root, DT_FLOAT), shift = Ph(root, DT_INT32),
         axis = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::Roll(root, r, shift, axis),
                         {data, Vec<int32_t>({1}), Vec<int32_t>({2})}),
                "axis");
  ExpectInvalid(RunError(ops::Roll(root, r, shift, axis),
                         {data, Vec<int32_t>({1, 2}), Vec<int32_t>({0})}),
                "shift and axis must have the same size");
  ExpectInvalid(RunError(ops::Roll(root, r, shift, axis),
                         {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(1),
                          Tensor::Scalar<int32_t>(0)}),
                "input must be at least a vector");
}

// --- Inputs split over threads, against plain loops. ---

std::vector<float> Ramp(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((i * 37 % 101) - 50) / 8;
  return v;
}

TEST(IndexOpsTest, LargeSegmentsMatchAPlainLoop) {
  const int64_t rows = 3000, cols = 40;
  const std::vector<float> values = Ramp(rows * cols);
  // Runs of 1..7 equal ids with gaps, so shards start inside runs.
  std::vector<int32_t> ids(rows);
  int32_t id = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (i % 7 == 0 || i % 11 == 0) id += 1 + (i % 3 == 0);
    ids[i] = id;
  }
  const int64_t segments = id + 1;
  std::vector<double> sum(segments * cols, 0), count(segments, 0);
  for (int64_t i = 0; i < rows; ++i) {
    count[ids[i]] += 1;
    for (int64_t c = 0; c < cols; ++c) {
      sum[ids[i] * cols + c] += values[i * cols + c];
    }
  }
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_FLOAT), i32 = Ph(root, DT_INT32);
  const Tensor data = Vec<float>(values, TensorShape({rows, cols}));
  const Tensor id_t = Vec<int32_t>(ids);
  absl::StatusOr<std::vector<Tensor>> mean =
      RunKernel(ops::SegmentMean(root, d, i32).node(), {data, id_t});
  ASSERT_TRUE(mean.ok()) << mean.status();
  // The sparse form over all rows in order is the same reduction.
  std::vector<int32_t> all(rows);
  for (int64_t i = 0; i < rows; ++i) all[i] = static_cast<int32_t>(i);
  Output idx = Ph(root, DT_INT32);
  absl::StatusOr<std::vector<Tensor>> sparse =
      RunKernel(ops::SparseSegmentSum(root, d, idx, i32).node(),
                {data, Vec<int32_t>(all), id_t});
  ASSERT_TRUE(sparse.ok()) << sparse.status();
  ASSERT_EQ((*mean)[0].shape(), TensorShape({segments, cols}));
  ASSERT_EQ((*sparse)[0].shape(), TensorShape({segments, cols}));
  for (int64_t s = 0; s < segments; ++s) {
    for (int64_t c = 0; c < cols; ++c) {
      const double want_sum = sum[s * cols + c];
      const double want_mean = count[s] > 0 ? want_sum / count[s] : 0;
      ASSERT_NEAR((*sparse)[0].data<float>()[s * cols + c], want_sum, 1e-4)
          << "segment " << s << " col " << c;
      ASSERT_NEAR((*mean)[0].data<float>()[s * cols + c], want_mean, 1e-5)
          << "segment " << s << " col " << c;
    }
  }
}

TEST(IndexOpsTest, LargeRollMatchesAPlainLoop) {
  const int64_t a = 37, b = 41, c = 3;
  const std::vector<float> values = Ramp(a * b * c);
  Scope root = Scope::NewRootScope();
  Output r = Ph(root, DT_FLOAT), shift = Ph(root, DT_INT64),
         axis = Ph(root, DT_INT32);
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(ops::Roll(root, r, shift, axis).node(),
                {Vec<float>(values, TensorShape({a, b, c})),
                 Vec<int64_t>({-40, 100, 5}), Vec<int32_t>({0, 1, -3})});
  ASSERT_TRUE(out.ok()) << out.status();
  // Dimension 0 rolls by -40 + 5 = -35 (2 mod 37); dimension 1 by 100
  // (18 mod 41).
  for (int64_t i = 0; i < a; ++i) {
    for (int64_t j = 0; j < b; ++j) {
      for (int64_t k = 0; k < c; ++k) {
        const int64_t from_i = (i - 2 + a) % a, from_j = (j - 18 + b) % b;
        ASSERT_EQ((*out)[0].data<float>()[(i * b + j) * c + k],
                  values[(from_i * b + from_j) * c + k])
            << i << "," << j << "," << k;
      }
    }
  }
}

}  // namespace
}  // namespace dflow
