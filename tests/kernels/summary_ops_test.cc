// The summary kernels write TensorFlow's bytes
// (tools/tf_reference/make_summary_reference.py): a histogram with
// TensorFlow's default buckets, scalars, a merge; and TensorFlow's errors
// (tag/value shape mismatch, duplicate tags, NaN in a histogram).
#include <cfloat>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "proto/summary.pb.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// TensorFlow 2.21.0's output.
const char kHistogram[] = "\x0a\x87\x02\x0a\x01\x68\x2a\x81\x02\x09\x00\x00\x00\x00\x00\x00\x04\xc0\x11\x00\x00\x00\x00\x00\x00\x1c\x40\x19\x00\x00\x00\x00\x00\x00\x22\x40\x21\x71\x00\x00\x00\x00\x00\x1e\x40\x29\x00\x00\x00\x00\x00\x70\x50\x40\x32\x68\xea\x36\x0f\x76\xa3\xef\x04\xc0\x77\x60\x3c\x0e\x66\x08\x03\xc0\x2b\x14\xfa\xcd\xbe\x24\xf0\xbf\x08\x99\x69\x19\x15\x5a\xed\xbf\x00\x00\x00\x00\x00\x00\x00\x00\x11\xea\x2d\x81\x99\x97\x71\x3d\xfa\xe5\x5a\x25\xd3\x1f\xde\x3f\xb0\x31\x25\xee\x80\x91\xe0\x3f\x68\xbc\x10\x35\x9a\x07\x07\x40\x0d\x9c\xc5\xa0\x29\x55\x09\x40\x29\x88\xea\xd0\xc2\x26\x1b\x40\x61\x2f\x35\x4c\xd6\xdd\x1d\x40\xff\xff\xff\xff\xff\xff\xef\x7f\x3a\x68\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00";
constexpr int kHistogramSize = 266;
const char kScalars[] = "\x0a\x08\x0a\x01\x61\x15\x00\x00\xc0\x3f\x0a\x08\x0a\x01\x62\x15\x00\x00\x00\xc0";
constexpr int kScalarsSize = 20;
const char kMerged[] = "\x0a\x08\x0a\x01\x61\x15\x00\x00\xc0\x3f\x0a\x08\x0a\x01\x62\x15\x00\x00\x00\xc0\x0a\x87\x02\x0a\x01\x68\x2a\x81\x02\x09\x00\x00\x00\x00\x00\x00\x04\xc0\x11\x00\x00\x00\x00\x00\x00\x1c\x40\x19\x00\x00\x00\x00\x00\x00\x22\x40\x21\x71\x00\x00\x00\x00\x00\x1e\x40\x29\x00\x00\x00\x00\x00\x70\x50\x40\x32\x68\xea\x36\x0f\x76\xa3\xef\x04\xc0\x77\x60\x3c\x0e\x66\x08\x03\xc0\x2b\x14\xfa\xcd\xbe\x24\xf0\xbf\x08\x99\x69\x19\x15\x5a\xed\xbf\x00\x00\x00\x00\x00\x00\x00\x00\x11\xea\x2d\x81\x99\x97\x71\x3d\xfa\xe5\x5a\x25\xd3\x1f\xde\x3f\xb0\x31\x25\xee\x80\x91\xe0\x3f\x68\xbc\x10\x35\x9a\x07\x07\x40\x0d\x9c\xc5\xa0\x29\x55\x09\x40\x29\x88\xea\xd0\xc2\x26\x1b\x40\x61\x2f\x35\x4c\xd6\xdd\x1d\x40\xff\xff\xff\xff\xff\xff\xef\x7f\x3a\x68\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00";
constexpr int kMergedSize = 286;
const char kEmptyHistogram[] = "\x0a\x2b\x0a\x01\x65\x2a\x26\x09\xff\xff\xff\xff\xff\xff\xef\x7f\x11\xff\xff\xff\xff\xff\xff\xef\xff\x32\x08\xff\xff\xff\xff\xff\xff\xef\x7f\x3a\x08\x00\x00\x00\x00\x00\x00\x00\x00";
constexpr int kEmptyHistogramSize = 45;

std::string Bytes(const char* data, int size) { return std::string(data, size); }

Tensor Strings(const std::vector<std::string>& v) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

absl::StatusOr<std::string> RunSummary(const Output& out,
                                const std::vector<Tensor>& inputs) {
  auto result = RunKernel(out.node(), inputs);
  if (!result.ok()) return result.status();
  return *(*result)[0].data<std::string>();
}

TEST(SummaryOpsTest, HistogramIsTensorFlowsBytes) {
  Scope root = Scope::NewRootScope();
  Output h = ops::HistogramSummary(root, ops::Placeholder(root, DT_STRING),
                                   ops::Placeholder(root, DT_FLOAT));
  auto out = RunSummary(h, {Tensor::Scalar("h"),
                     Tensor::FromVector<float>(
                         {-2.5f, -1, 0, 0, 0.5f, 3, 1e-13f, 7, 0.5f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Bytes(kHistogram, kHistogramSize));
  Summary s;
  ASSERT_TRUE(s.ParseFromString(*out));
  EXPECT_EQ(s.value(0).histo().num(), 9);
  EXPECT_EQ(s.value(0).histo().bucket_limit(
                s.value(0).histo().bucket_limit_size() - 1),
            DBL_MAX);

  auto empty = RunSummary(h, {Tensor::Scalar("e"), Tensor::FromVector<float>({})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(*empty, Bytes(kEmptyHistogram, kEmptyHistogramSize));

  auto nan = RunSummary(h, {Tensor::Scalar("h"), Tensor::FromVector<float>({NAN})});
  ASSERT_FALSE(nan.ok());
  EXPECT_EQ(nan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(nan.status().message()),
              HasSubstr("Nan in summary histogram for: HistogramSummary"));
}

TEST(SummaryOpsTest, ScalarsAndMergeAreTensorFlowsBytes) {
  Scope root = Scope::NewRootScope();
  Output scalars = ops::ScalarSummary(root, ops::Placeholder(root, DT_STRING),
                                      ops::Placeholder(root, DT_FLOAT));
  auto s = RunSummary(scalars, {Strings({"a", "b"}),
                         Tensor::FromVector<float>({1.5f, -2})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, Bytes(kScalars, kScalarsSize));

  Output merge = ops::MergeSummary(root, {ops::Placeholder(root, DT_STRING),
                                          ops::Placeholder(root, DT_STRING)});
  auto m = RunSummary(merge, {Tensor::Scalar(*s),
                       Tensor::Scalar(Bytes(kHistogram, kHistogramSize))});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*m, Bytes(kMerged, kMergedSize));

  auto dup = RunSummary(merge, {Tensor::Scalar(*s), Tensor::Scalar(*s)});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dup.status().message()),
              HasSubstr("Duplicate tag a found in summary inputs"));

  auto mismatch = RunSummary(scalars, {Strings({"a", "b"}),
                                Tensor::FromVector<float>({1, 2, 3})});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mismatch.status().message()),
              HasSubstr("tags and values are not the same shape"));
}

}  // namespace
}  // namespace dflow
