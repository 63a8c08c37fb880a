// tf.Example features of sequence and text models: FixedLenSequenceFeature
// (a dense shape [?, d...], rows padded with the default to the batch's
// longest) and RaggedFeature (values and row splits, nested through a
// RowLengths partition), parsed by tf.io.parse_example,
// parse_single_example and inside a tf.data map, on a graph TensorFlow
// 2.21 wrote (tools/tf_reference/make_parse_sequence_reference.py). Then
// string padding, feature lists' padding and lengths, and the errors of bad
// records and bad attributes, each naming the record and the feature.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "proto/example.pb.h"
#include "runtime/session.h"
#include "tests/kernels/tf_stepped_cases.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_parse_sequence/";

TEST(ParseSequenceTest, TensorFlowsGraphGivesItsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_EQ(lines.size(), 86u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

Tensor Strings(const std::vector<std::string>& v) {
  return Tensor::FromVector<std::string>(
      v, TensorShape({static_cast<int64_t>(v.size())}));
}

// A record with `key` holding `words` (bytes) and "n" holding `numbers`
// (floats).
std::string Record(const std::vector<std::string>& words,
                   const std::vector<float>& numbers) {
  Example e;
  auto& f = *e.mutable_features()->mutable_feature();
  for (const std::string& w : words) f["words"].mutable_bytes_list()->add_value(w);
  for (float x : numbers) f["n"].mutable_float_list()->add_value(x);
  return e.SerializeAsString();
}

// ParseExampleV2 of the fed "records" with one dense key and one ragged
// key; `dense_default` is the dense feature's default input.
absl::Status Parse(const std::vector<std::string>& records,
                   const std::string& dense_key, DataType dense_type,
                   const TensorShape& dense_shape, const Tensor& dense_default,
                   const std::string& ragged_key, DataType ragged_type,
                   std::vector<Tensor>* out, DataType split_type = DT_INT64) {
  Scope root = Scope::NewRootScope();
  Output serialized = ops::Placeholder(root.WithOpName("records"), DT_STRING);
  OpBuilder(root.WithOpName("parse"), "ParseExampleV2")
      .Input(serialized)
      .Input(Strings({}))
      .Input(Strings({}))
      .Input(Strings({dense_key}))
      .Input(Strings({ragged_key}))
      .InputList({ops::Const(root, dense_default)})
      .Attr("num_sparse", 0)
      .Attr("sparse_types", std::vector<DataType>{})
      .Attr("Tdense", std::vector<DataType>{dense_type})
      .Attr("ragged_value_types", std::vector<DataType>{ragged_type})
      .Attr("ragged_split_types", std::vector<DataType>{split_type})
      .Attr("dense_shapes", std::vector<TensorShape>{dense_shape})
      .Finalize();
  GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  if (!session.ok()) return session.status();
  return (*session)->Run({{"records", Strings(records)}},
                         {"parse:0", "parse:1", "parse:2"}, {}, out);
}

std::vector<std::string> AsStrings(const Tensor& t) {
  return std::vector<std::string>(t.data<std::string>(),
                                  t.data<std::string>() + t.NumElements());
}

TEST(ParseSequenceTest, StringRowsArePaddedWithTheDefault) {
  std::vector<Tensor> out;
  absl::Status s = Parse({Record({"a", "b", "c"}, {1.5f}), Record({}, {})},
                         "words", DT_STRING, TensorShape({-1}),
                         Tensor::Scalar<std::string>("<pad>"), "n", DT_FLOAT,
                         &out, DT_INT32);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(AsStrings(out[0]),
              ElementsAre("a", "b", "c", "<pad>", "<pad>", "<pad>"));
  EXPECT_EQ(out[1].shape(), TensorShape({1}));
  EXPECT_EQ(out[1].data<float>()[0], 1.5f);
  EXPECT_EQ(out[2].dtype(), DT_INT32);
  EXPECT_THAT(std::vector<int32_t>(out[2].data<int32_t>(),
                                   out[2].data<int32_t>() + 3),
              ElementsAre(0, 1, 1));
}

TEST(ParseSequenceTest, AnEmptyBatchHasNoRowsAndOneSplit) {
  std::vector<Tensor> out;
  absl::Status s = Parse({}, "n", DT_FLOAT, TensorShape({-1, 3}),
                         Tensor::Scalar<float>(0), "words", DT_STRING, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({0, 0, 3}));
  EXPECT_EQ(out[1].shape(), TensorShape({0}));
  EXPECT_EQ(out[2].shape(), TensorShape({1}));
}

TEST(ParseSequenceTest, BadRecordsAndAttributesNameTheFeature) {
  std::vector<Tensor> out;
  // Three values are not rows of two.
  absl::Status s = Parse({Record({}, {1, 2, 3})}, "n", DT_FLOAT,
                         TensorShape({-1, 2}), Tensor::Scalar<float>(0),
                         "words", DT_STRING, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("record 0"), HasSubstr("'n'"),
                    HasSubstr("3 float_list values"),
                    HasSubstr("rows of 2")));
  // A sequence feature's default is its one padding element.
  s = Parse({Record({}, {1, 2})}, "n", DT_FLOAT, TensorShape({-1, 2}),
            Tensor::FromVector<float>({0, 0}), "words", DT_STRING, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'n'"), HasSubstr("one element"),
                    HasSubstr("[2]")));
  // Only the first dimension may be unknown.
  s = Parse({Record({}, {1, 2})}, "n", DT_FLOAT, TensorShape({-1, -1}),
            Tensor::Scalar<float>(0), "words", DT_STRING, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'n'"), HasSubstr("first dimension")));
  // A ragged feature of the wrong kind.
  s = Parse({Record({"a"}, {1, 2})}, "n", DT_FLOAT, TensorShape({-1}),
            Tensor::Scalar<float>(0), "words", DT_INT64, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'words'"), HasSubstr("bytes_list"),
                    HasSubstr("int64_list")));
  // Row splits must be int32 or int64 (the op's definition says so).
  s = Parse({Record({"a"}, {1, 2})}, "n", DT_FLOAT, TensorShape({-1}),
            Tensor::Scalar<float>(0), "words", DT_STRING, &out, DT_FLOAT);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

// A SequenceExample whose list "frames" has the given steps (floats).
std::string Sequence(const std::vector<std::vector<float>>& steps,
                     bool int_step = false) {
  SequenceExample e;
  auto& list = (*e.mutable_feature_lists()->mutable_feature_list())["frames"];
  for (const std::vector<float>& step : steps) {
    Feature* f = list.add_feature();
    for (float x : step) {
      if (int_step) {
        f->mutable_int64_list()->add_value(static_cast<int64_t>(x));
      } else {
        f->mutable_float_list()->add_value(x);
      }
    }
  }
  return e.SerializeAsString();
}

// ParseSequenceExampleV2 of the fed records with the dense feature list
// "frames" (float, steps of `step_shape`), required unless `may_miss`.
absl::Status ParseSequences(const std::vector<std::string>& records,
                            const TensorShape& step_shape, bool may_miss,
                            std::vector<Tensor>* out) {
  Scope root = Scope::NewRootScope();
  Output serialized = ops::Placeholder(root.WithOpName("records"), DT_STRING);
  OpBuilder(root.WithOpName("parse"), "ParseSequenceExampleV2")
      .Input(serialized)
      .Input(Strings({}))
      .Input(Strings({}))
      .Input(Strings({}))
      .Input(Strings({}))
      .Input(Strings({}))
      .Input(Strings({"frames"}))
      .Input(Strings({}))
      .Input(ops::Const(root, Tensor::FromVector<bool>({may_miss})))
      .InputList({})
      .Attr("Nfeature_list_dense", 1)
      .Attr("feature_list_dense_types", std::vector<DataType>{DT_FLOAT})
      .Attr("feature_list_dense_shapes", std::vector<TensorShape>{step_shape})
      .Finalize();
  GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  if (!session.ok()) return session.status();
  return (*session)->Run({{"records", Strings(records)}},
                         {"parse:0", "parse:1"}, {}, out);
}

TEST(ParseSequenceTest, FeatureListsPadStepsAndCountThem) {
  std::vector<Tensor> out;
  absl::Status s = ParseSequences(
      {Sequence({{1, 2}, {3, 4}}), Sequence({}), Sequence({{5, 6}})},
      TensorShape({2}), /*may_miss=*/false, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2, 2}));
  EXPECT_THAT(std::vector<float>(out[0].data<float>(),
                                 out[0].data<float>() + 12),
              ElementsAre(1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0));
  EXPECT_THAT(std::vector<int64_t>(out[1].data<int64_t>(),
                                   out[1].data<int64_t>() + 3),
              ElementsAre(2, 0, 1));
}

TEST(ParseSequenceTest, BadSequencesNameTheRecordListAndStep) {
  std::vector<Tensor> out;
  SequenceExample no_list;
  // A required list that a record lacks.
  absl::Status s = ParseSequences({Sequence({{1, 2}}),
                                   no_list.SerializeAsString()},
                                  TensorShape({2}), /*may_miss=*/false, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("record 1"), HasSubstr("'frames'"),
                    HasSubstr("allow_missing")));
  // Assumed empty, it has no steps.
  s = ParseSequences({no_list.SerializeAsString()}, TensorShape({2}),
                     /*may_miss=*/true, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({1, 0, 2}));
  // A step with the wrong number of values.
  s = ParseSequences({Sequence({{1, 2}, {3}})}, TensorShape({2}), false,
                     &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("record 0"), HasSubstr("step 1"),
                    HasSubstr("1 values")));
  // A step of the wrong kind.
  s = ParseSequences({Sequence({{1, 2}}, /*int_step=*/true)},
                     TensorShape({2}), false, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("step 0"), HasSubstr("int64_list"),
                    HasSubstr("float_list")));
  // Not a SequenceExample at all.
  s = ParseSequences({"\xff\xff"}, TensorShape({2}), false, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("tf.SequenceExample"));
}

}  // namespace
}  // namespace dflow
