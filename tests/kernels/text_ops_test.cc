// The text-model and CTC ops on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_text_ops_reference.py):
// n-grams, regex matches, segment joins, Unicode decoding (malformed UTF-8
// replaced and dropped, UTF-16-BE, ISO-8859-1), encoding, transcoding,
// scripts and UTF-8 case; tf.strings.split's ragged tensors and what text
// models do with them (to_tensor, to_sparse, bincounts, gathers, concats,
// Keras' TextVectorization); the CTC losses (v1, v2 sparse) with the
// gradients tf.gradients writes, and the greedy and beam-search decoders
// with the edit distance of their labels. Then bad inputs: each an error
// that says what is wrong, never a crash.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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
using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::FeedTensor;
using testing_tf_values::Line;
using testing_tf_values::StringFetch;

constexpr char kDir[] = "tests/testdata/tf_text_ops/";

TEST(TextOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  const std::vector<StringFetch> strings =
      testing_tf_values::ReadStringFetches(std::string(kDir) + "strings.txt");
  ASSERT_GT(lines.size(), 100u);
  ASSERT_GT(strings.size(), 30u);
  absl::StatusOr<GraphDef> def =
      ReadGraphDefFile(std::string(kDir) + "graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(*def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> outputs;
  // TextVectorization's vocabulary table.
  absl::Status s = (*session)->Run({}, {}, {"tables_init"}, &outputs);
  ASSERT_TRUE(s.ok()) << s;
  FeedList feeds;
  std::vector<std::string> fetches;
  std::vector<const Line*> numeric;
  for (const Line& line : lines) {
    if (line.kind == "feed") {
      feeds.emplace_back(line.name, FeedTensor(line));
    } else {
      numeric.push_back(&line);
      fetches.push_back(line.name);
    }
  }
  for (const StringFetch& f : strings) fetches.push_back(f.line.name);
  s = (*session)->Run(feeds, fetches, {}, &outputs);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(outputs.size(), fetches.size());
  int compared = 0;
  for (size_t f = 0; f < numeric.size(); ++f) {
    const Line& want = *numeric[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Exact but for a few CTC gradient elements (2 or 3 of 90 per loss,
    // off by under 1e-8: the softmax's exp, which TensorFlow's build runs
    // without FMA and dflow's with it).
    const double tol = want.dtype == "float32"   ? 1e-7
                       : want.dtype == "float64" ? 1e-15
                                                 : 0;
    const bool single = want.dtype == "float32";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      // "%.9g" gives float32 values back exactly once rounded to float.
      const double w = single ? static_cast<float>(want.values[i])
                              : want.values[i];
      const double g = Element(got, i);
      if (std::isinf(w)) {
        EXPECT_EQ(g, w) << "element " << i;
      } else {
        EXPECT_NEAR(g, w, tol * std::max(1.0, std::abs(w))) << "element " << i;
      }
    }
    ++compared;
  }
  for (size_t f = 0; f < strings.size(); ++f) {
    const StringFetch& want = strings[f];
    const Tensor& got = outputs[numeric.size() + f];
    SCOPED_TRACE(want.line.name);
    ASSERT_EQ(got.dtype(), DT_STRING);
    EXPECT_EQ(got.shape(), TensorShape(want.line.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      EXPECT_EQ(got.data<std::string>()[i], want.values[i]) << "element " << i;
    }
    ++compared;
  }
  EXPECT_GT(compared, 180);
}

// --- Bad inputs. ---

Tensor Strings(const std::vector<std::string>& v) {
  return Tensor::FromVector<std::string>(
      v, TensorShape({static_cast<int64_t>(v.size())}));
}
Tensor Int64s(const std::vector<int64_t>& v) {
  return Tensor::FromVector<int64_t>(
      v, TensorShape({static_cast<int64_t>(v.size())}));
}
Tensor Int32s(const std::vector<int32_t>& v) {
  return Tensor::FromVector<int32_t>(
      v, TensorShape({static_cast<int64_t>(v.size())}));
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

absl::Status RunError(const Output& out, std::vector<Tensor> in) {
  return RunKernel(out.node(), std::move(in)).status();
}

TEST(TextOpsTest, MalformedUnicodeIsRefusedWhenStrict) {
  Scope root = Scope::NewRootScope();
  Output s = ops::Placeholder(root, DT_STRING);
  ops::UnicodeErrorAttrs strict;
  strict.errors = "strict";
  const Tensor bad = Strings({"fine", "bad\xc3(", "also fine"});
  ExpectInvalid(
      RunError(ops::UnicodeDecode(root, s, "UTF-8", strict).row_splits, {bad}),
      "Invalid formatting on input string: input[1]");
  ExpectInvalid(RunError(ops::UnicodeDecode(root, s, "UTF-8", strict,
                                            /*with_offsets=*/true)
                             .row_splits,
                         {bad}),
                "is not valid UTF-8");
  ExpectInvalid(
      RunError(ops::UnicodeTranscode(root, s, "UTF-8", "UTF-16-BE", strict),
               {bad}),
      "Invalid formatting on input string");
  // The same strings decode when valid, and when replacing.
  absl::StatusOr<std::vector<Tensor>> ok = RunKernel(
      ops::UnicodeDecode(root, s, "UTF-8", strict).row_splits.node(),
      {Strings({"fine", "\xc3\xa9"})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[1].NumElements(), 5);
  ok = RunKernel(ops::UnicodeDecode(root, s, "UTF-8").row_splits.node(),
                 {bad});
  ASSERT_TRUE(ok.ok()) << ok.status();

  Output cp = ops::Placeholder(root, DT_INT32);
  Output splits = ops::Placeholder(root, DT_INT64);
  ExpectInvalid(RunError(ops::UnicodeEncode(root, cp, splits, "UTF-8", strict),
                         {Int32s({65, 0x110000}), Int64s({0, 2})}),
                "Code point value out of valid Unicode range: "
                "input_values[1] = 1114112");
  ExpectInvalid(RunError(ops::UnicodeEncode(root, cp, splits, "UTF-8"),
                         {Int32s({65, 66}), Int64s({0, 3})}),
                "input_splits must end with the number of values, 2");
  ExpectInvalid(RunError(ops::UnicodeEncode(root, cp, splits, "UTF-8"),
                         {Int32s({65, 66}), Int64s({0, 2, 1, 2})}),
                "input_splits must be non-decreasing");
  // An encoding ICU does not know fails when the kernel is built.
  ExpectInvalid(RunError(ops::UnicodeDecode(root, s, "NO-SUCH-ENCODING")
                             .row_splits,
                         {bad}),
                "Could not create converter for input encoding: "
                "NO-SUCH-ENCODING");
  ExpectInvalid(RunError(ops::StringLower(root, s, "latin1"), {bad}),
                "only utf-8 or '' (no encoding) is supported");
}

TEST(TextOpsTest, NGramsRegexAndJoinsCheckTheirInputs) {
  Scope root = Scope::NewRootScope();
  Output data = ops::Placeholder(root, DT_STRING);
  Output splits = ops::Placeholder(root, DT_INT64);
  ops::StringNGramsOutputs ng = ops::StringNGrams(root, data, splits);
  ExpectInvalid(RunError(ng.ngrams, {Strings({"a", "b"}), Int64s({0, 3})}),
                "Invalid split value 3, must be in [0, 2]");
  ExpectInvalid(RunError(ng.ngrams, {Strings({"a", "b"}), Int64s({0, 1})}),
                "Last split value must be data size. Expected 2, got 1");
  ExpectInvalid(RunError(ng.ngrams, {Strings({"a", "b"}), Int64s({1, 2})}),
                "First split value must be 0, got 1");
  ExpectInvalid(RunError(ng.ngrams, {Strings({"a", "b"}), Int64s({0, 2, 1})}),
                "Invalid split value 1, must be in [2, 2]");
  ops::StringNGramsAttrs zero;
  zero.ngram_widths = {2, 0};
  ExpectInvalid(RunError(ops::StringNGrams(root, data, splits, zero).ngrams,
                         {Strings({"a"}), Int64s({0, 1})}),
                "ngram_widths must contain positive values, got 0");
  ops::StringNGramsAttrs short_dynamic;
  short_dynamic.ngram_widths = {3};
  short_dynamic.pad_width = -1;
  short_dynamic.preserve_short_sequences = true;
  short_dynamic.left_pad = "<";
  short_dynamic.right_pad = ">";
  // Pads of width - 1 make every non-empty row long enough: fine.
  EXPECT_TRUE(RunKernel(ops::StringNGrams(root, data, splits, short_dynamic)
                            .ngrams.node(),
                        {Strings({"a"}), Int64s({0, 1})})
                  .ok());

  Output pattern = ops::Placeholder(root, DT_STRING);
  Output match = ops::RegexFullMatch(root, data, pattern);
  ExpectInvalid(RunError(match, {Strings({"a"}), Tensor::Scalar("(unclosed")}),
                "Invalid pattern: (unclosed, error: missing )");
  ExpectInvalid(RunError(match, {Strings({"a"}), Strings({"a", "b"})}),
                "Pattern must be scalar");

  Output ids = ops::Placeholder(root, DT_INT32);
  Output join = ops::UnsortedSegmentJoin(root, data, ids, ops::Const(root, 2));
  ExpectInvalid(RunError(join, {Strings({"a", "b"}), Int32s({0, 2}),
                                Tensor::Scalar<int32_t>(2)}),
                "segment_ids[1] = 2, num_segments = 2");
  ExpectInvalid(RunError(join, {Strings({"a", "b"}), Int32s({0}),
                                Tensor::Scalar<int32_t>(2)}),
                "must be a prefix of inputs.shape");
}

TEST(TextOpsTest, RaggedOpsRefuseMalformedPartitions) {
  Scope root = Scope::NewRootScope();
  Output values = ops::Placeholder(root, DT_INT32);
  Output p0 = ops::Placeholder(root, DT_INT64);
  Output p1 = ops::Placeholder(root, DT_INT64);
  Output shape = ops::Placeholder(root, DT_INT64);
  Output dense = ops::RaggedTensorToTensor(root, shape, values,
                                           ops::Const(root, 0), {p0},
                                           {"ROW_SPLITS"});
  const Tensor any_shape = Tensor::Scalar<int64_t>(-1);
  const Tensor four = Int32s({1, 2, 3, 4});
  ExpectInvalid(RunError(dense, {any_shape, four, Tensor::Scalar<int32_t>(0),
                                 Int64s({0, 1, 6})}),
                "row partition 0 ends at 6 but what it partitions has 4 rows");
  ExpectInvalid(RunError(dense, {any_shape, four, Tensor::Scalar<int32_t>(0),
                                 Int64s({0, 3, 2, 4})}),
                "must be sorted");
  ExpectInvalid(RunError(dense, {Int64s({3, 2, 1}), four,
                                 Tensor::Scalar<int32_t>(0), Int64s({0, 4})}),
                "rt_input.rank = 2 but shape.rank = 3");
  Output rowids = ops::RaggedTensorToTensor(
      root, shape, values, ops::Const(root, 0), {p0, p1},
      {"FIRST_DIM_SIZE", "VALUE_ROWIDS"});
  ExpectInvalid(RunError(rowids, {any_shape, four, Tensor::Scalar<int32_t>(0),
                                  Tensor::Scalar<int64_t>(4),
                                  Int64s({2, 0, 0, 1})}),
                "(VALUE_ROWIDS) must be sorted");
  ExpectInvalid(RunError(rowids, {any_shape, four, Tensor::Scalar<int32_t>(0),
                                  Tensor::Scalar<int64_t>(2),
                                  Int64s({0, 0, 2, 2})}),
                "(VALUE_ROWIDS)[2] = 2 is not in [0, 2)");
  Output bad_default = ops::RaggedTensorToTensor(
      root, shape, values, ops::Const(root, {1, 2, 3}), {p0}, {"ROW_SPLITS"});
  ExpectInvalid(RunError(bad_default,
                         {any_shape,
                          Tensor::FromVector<int32_t>({1, 2, 3, 4},
                                                      TensorShape({2, 2})),
                          Int32s({1, 2, 3}), Int64s({0, 2})}),
                "default_value must broadcast to [2]");

  ops::RaggedGatherOutputs gathered =
      ops::RaggedGather(root, {p0}, values, ops::Const(root, {0, 3}), 1);
  ExpectInvalid(RunError(gathered.values,
                         {Int64s({0, 2, 4}), four, Int32s({0, 3})}),
                "indices[1] = 3 is not in [0, 2)");
  ops::RaggedRangeOutputs range = ops::RaggedRange(
      root, ops::Const(root, {0, 1}), ops::Const(root, {3, 4}),
      ops::Const(root, {1, 0}));
  ExpectInvalid(RunError(range.values, {Int32s({0, 1}), Int32s({3, 4}),
                                        Int32s({1, 0})}),
                "Requires delta != 0 (deltas[1] is 0)");
  ops::RaggedTensorToSparseOutputs sparse =
      ops::RaggedTensorToSparse(root, {p0}, values);
  ExpectInvalid(RunError(sparse.sparse_indices, {Int64s({0, 2, 3}), four}),
                "rt_nested_splits[0] ends at 3 but what it partitions has 4");

  Output counts = ops::DenseBincount(root, values, ops::Const(root, 4),
                                     ops::Placeholder(root, DT_FLOAT));
  ExpectInvalid(RunError(counts, {Int32s({1, -2}), Tensor::Scalar<int32_t>(4),
                                  Tensor::FromVector<float>({}, {0})}),
                "Input arr must be non-negative! input[1] = -2");
  ExpectInvalid(RunError(counts, {Int32s({1, 2}), Tensor::Scalar<int32_t>(4),
                                  Tensor::FromVector<float>({1.0f}, {1})}),
                "`weights` must be the same shape as `arr`");
}

TEST(TextOpsTest, EditDistanceChecksItsSparseTensors) {
  Scope root = Scope::NewRootScope();
  Output hi = ops::Placeholder(root, DT_INT64);
  Output hv = ops::Placeholder(root, DT_INT32);
  Output hs = ops::Placeholder(root, DT_INT64);
  Output ti = ops::Placeholder(root, DT_INT64);
  Output tv = ops::Placeholder(root, DT_INT32);
  Output ts = ops::Placeholder(root, DT_INT64);
  Output d = ops::EditDistance(root, hi, hv, hs, ti, tv, ts);
  auto idx = [](std::vector<int64_t> v) {
    const int64_t n = static_cast<int64_t>(v.size()) / 2;
    return Tensor::FromVector<int64_t>(v, TensorShape({n, 2}));
  };
  ExpectInvalid(RunError(d, {idx({1, 0, 0, 0}), Int32s({1, 2}),
                             Int64s({2, 1}), idx({0, 0}), Int32s({1}),
                             Int64s({2, 1})}),
                "hypothesis_indices[1] = [0,0] is out of order or repeated");
  ExpectInvalid(RunError(d, {idx({0, 5}), Int32s({1}), Int64s({2, 1}),
                             idx({0, 0}), Int32s({1}), Int64s({2, 1})}),
                "hypothesis_indices[0] = [0,5] is out of bounds");
  ExpectInvalid(RunError(d, {idx({0, 0}), Int32s({1}), Int64s({2, 1}),
                             idx({0, 0}), Int32s({1}), Int64s({2, 1, 1})}),
                "Expected truth and hypothesis to have matching ranks");
  // And the distances themselves: "ab" vs "b", nothing vs "cd".
  absl::StatusOr<std::vector<Tensor>> ok = RunKernel(
      d.node(), {idx({0, 0, 0, 1}), Int32s({7, 8}), Int64s({2, 2}),
                 idx({0, 0, 1, 0, 1, 1}), Int32s({8, 3, 4}), Int64s({2, 2})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_FLOAT_EQ((*ok)[0].data<float>()[0], 1.0f);
  EXPECT_FLOAT_EQ((*ok)[0].data<float>()[1], 1.0f);
}

}  // namespace
}  // namespace dflow
