// tf.data in graph mode: TensorFlow 2.21's pipelines (one-shot and
// initializable iterators over from_tensor_slices, TFRecord, text and
// fixed-length files, map, filter, shuffle with seeds, batch and
// padded_batch, zip, concatenate, interleave, flat_map, cache, repeat,
// take, skip, prefetch, unbatch, map_and_batch, shuffle-and-repeat, a V3
// shuffle with a seed generator, feedable iterators, a training step fed
// by an iterator) replayed run by run against what TensorFlow's session gave
// (tools/tf_reference/make_dataset_reference.py): every element, and
// OutOfRange at the same run. Then bad inputs, and graphs the C++
// builders make.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/graph_def_file.h"
#include "graph/ops/dataset_ops_more.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

constexpr char kDir[] = "tests/testdata/tf_dataset/";
// shard, take_while, scan, window, unique, ignore_errors,
// sample_from_datasets / choose_from_datasets, group_by_window
// (tools/tf_reference/make_dataset_more_reference.py).
constexpr char kMoreDir[] = "tests/testdata/tf_dataset_more/";

// A value of steps.txt: "<dtype> [<shape>] | v0 v1 ..." (strings "x<hex>").
struct Value {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<std::string> values;
};

Value ParseValue(absl::string_view text) {
  Value v;
  std::vector<std::string> halves = absl::StrSplit(text, " | ");
  EXPECT_EQ(halves.size(), 2u) << text;
  if (halves.size() != 2) return v;
  std::vector<std::string> head = absl::StrSplit(halves[0], ' ');
  EXPECT_EQ(head.size(), 2u) << text;
  if (head.size() != 2) return v;
  v.dtype = head[0];
  absl::string_view dims = head[1];
  absl::ConsumePrefix(&dims, "[");
  absl::ConsumeSuffix(&dims, "]");
  for (absl::string_view d : absl::StrSplit(dims, ',', absl::SkipEmpty())) {
    int64_t n = 0;
    EXPECT_TRUE(absl::SimpleAtoi(d, &n)) << text;
    v.shape.push_back(n);
  }
  v.values = absl::StrSplit(halves[1], ' ', absl::SkipEmpty());
  return v;
}

std::string StringOf(absl::string_view hex) {
  EXPECT_TRUE(absl::ConsumePrefix(&hex, "x")) << hex;
  return absl::HexStringToBytes(hex);
}

Tensor TensorOf(const Value& v) {
  if (v.dtype == "string") {
    Tensor t(DT_STRING, TensorShape(v.shape));
    for (size_t i = 0; i < v.values.size(); ++i) {
      t.data<std::string>()[i] = StringOf(v.values[i]);
    }
    return t;
  }
  testing_tf_values::Line line{"feed", "", v.dtype, v.shape, {}};
  for (const std::string& s : v.values) {
    line.values.push_back(testing_tf_values::ParseValue(s));
  }
  return testing_tf_values::FeedTensor(line);
}

void ExpectValue(const Value& want, const Tensor& got, double rel) {
  if (want.dtype == "string") {
    ASSERT_EQ(got.dtype(), DT_STRING);
  } else {
    ASSERT_EQ(got.dtype(), testing_tf_values::DtypeOf(want.dtype));
  }
  ASSERT_EQ(got.shape(), TensorShape(want.shape));
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    if (want.dtype == "string") {
      EXPECT_EQ(got.data<std::string>()[i], StringOf(want.values[i]))
          << "element " << i;
      continue;
    }
    const double w = testing_tf_values::ParseValue(want.values[i]);
    const double g = testing_tf_values::Element(got, i);
    const double tol =
        want.dtype == "float32" || want.dtype == "float64" ? rel : 0;
    EXPECT_NEAR(g, w, tol * std::max(1.0, std::fabs(w))) << "element " << i;
  }
}

// One Session::Run of steps.txt and what TensorFlow got.
struct Step {
  int line = 0;
  std::vector<std::string> targets, fetches;
  FeedList feeds;
  std::vector<std::pair<std::string, std::string>> feed_saved;
  std::string save;
  std::vector<Value> want;
  std::string want_error;  // "OUT_OF_RANGE", ...; empty: success
  bool new_session = false;
};

std::vector<Step> ReadSteps(const std::string& dir = kDir) {
  std::ifstream in(dir + "steps.txt");
  EXPECT_TRUE(in.good());
  std::vector<Step> steps;
  bool new_session = false;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> words = absl::StrSplit(text, ' ');
    const std::string& kind = words[0];
    if (kind == "session") {
      new_session = true;
      continue;
    }
    if (kind == "run") {
      EXPECT_EQ(words.size(), 3u) << text;
      Step step;
      step.line = number;
      step.new_session = new_session;
      new_session = false;
      if (words[1] != "-") step.targets = absl::StrSplit(words[1], ',');
      if (words[2] != "-") step.fetches = absl::StrSplit(words[2], ',');
      steps.push_back(std::move(step));
      continue;
    }
    EXPECT_FALSE(steps.empty()) << text;
    if (steps.empty()) continue;
    Step& step = steps.back();
    const absl::string_view rest =
        absl::string_view(text).substr(kind.size() + 1);
    if (kind == "feed") {
      const size_t space = rest.find(' ');
      step.feeds.emplace_back(std::string(rest.substr(0, space)),
                              TensorOf(ParseValue(rest.substr(space + 1))));
    } else if (kind == "feed_saved") {
      step.feed_saved.emplace_back(words[1], words[2]);
    } else if (kind == "save") {
      step.save = words[1];
    } else if (kind == "want") {
      step.want.push_back(ParseValue(rest));
    } else if (kind == "want_error") {
      step.want_error = words[1];
    } else {
      ADD_FAILURE() << "unknown line " << text;
    }
  }
  return steps;
}

std::string CodeName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case absl::StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case absl::StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case absl::StatusCode::kNotFound:
      return "NOT_FOUND";
    case absl::StatusCode::kDataLoss:
      return "DATA_LOSS";
    case absl::StatusCode::kUnimplemented:
      return "UNIMPLEMENTED";
    default:
      return absl::StatusCodeToString(code);
  }
}

// Replays every step; returns each step's status (for the message checks).
std::vector<absl::Status> Replay(const std::vector<Step>& steps,
                                 const std::string& dir = kDir) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(dir + "graph.pb");
  EXPECT_TRUE(def.ok()) << def.status();
  std::vector<absl::Status> statuses;
  if (!def.ok()) return statuses;
  std::unique_ptr<Session> session;
  std::map<std::string, Tensor> saved;
  for (const Step& step : steps) {
    SCOPED_TRACE(absl::StrCat("steps.txt line ", step.line, ": run ",
                              absl::StrJoin(step.targets, ","), " ",
                              absl::StrJoin(step.fetches, ",")));
    if (step.new_session || session == nullptr) {
      absl::StatusOr<std::unique_ptr<Session>> made = Session::Create(*def);
      EXPECT_TRUE(made.ok()) << made.status();
      if (!made.ok()) return statuses;
      session = *std::move(made);
    }
    FeedList feeds = step.feeds;
    for (const auto& [name, label] : step.feed_saved) {
      feeds.emplace_back(name, saved[label]);
    }
    std::vector<Tensor> outputs;
    const absl::Status s =
        session->Run(feeds, step.fetches, step.targets, &outputs);
    statuses.push_back(s);
    if (!step.want_error.empty()) {
      EXPECT_EQ(CodeName(s.code()), step.want_error) << s;
      continue;
    }
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) continue;
    EXPECT_EQ(outputs.size(), step.want.size());
    if (!step.save.empty() && !outputs.empty()) {
      // A string handle: what it holds is the session's own, not
      // TensorFlow's; what matters is that feeding it back works.
      saved[step.save] = outputs[0];
      EXPECT_EQ(outputs[0].dtype(), DT_STRING);
      continue;
    }
    // The training step's arithmetic may round differently (a reduction
    // order); the pipelines' elements are exact.
    const bool train =
        !step.fetches.empty() && absl::StartsWith(step.fetches[0], "train/");
    for (size_t i = 0; i < outputs.size() && i < step.want.size(); ++i) {
      SCOPED_TRACE(step.fetches[i]);
      ExpectValue(step.want[i], outputs[i], train ? 2e-6 : 0);
    }
  }
  return statuses;
}

TEST(DatasetOpsTest, TensorFlowsPipelinesGiveTensorFlowsElements) {
  const std::vector<Step> steps = ReadSteps();
  ASSERT_GT(steps.size(), 150u);
  int ends = 0;
  for (const Step& step : steps) ends += step.want_error == "OUT_OF_RANGE";
  EXPECT_GT(ends, 15);
  const std::vector<absl::Status> statuses = Replay(steps);
  ASSERT_EQ(statuses.size(), steps.size());
  // The errors name what failed, as TensorFlow's do.
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    const std::string& message = std::string(statuses[i].message());
    if (step.want_error == "OUT_OF_RANGE") {
      // TensorFlow's message, after the node's name.
      EXPECT_TRUE(absl::EndsWith(message, "(IteratorGetNext): End of sequence"))
          << "line " << step.line << ": " << message;
    }
    if (step.want_error == "FAILED_PRECONDITION") {
      // A GetNext before the iterator's initializer ran.
      EXPECT_TRUE(absl::StrContains(message, "has not been initialized"))
          << message;
    }
    if (step.want_error == "INVALID_ARGUMENT" && !step.fetches.empty() &&
        step.fetches[0] == "bad/map_out:0") {
      // The map function's CheckNumerics, inside the dataset that called it
      // (the one-shot iterator's factory made it: its node is named inside
      // that function).
      EXPECT_TRUE(absl::StrContains(message, "MapDataset '")) << message;
      EXPECT_TRUE(absl::StrContains(message, "/bad/MapDataset'")) << message;
      EXPECT_TRUE(absl::StrContains(message, "(CheckNumerics): bad value"))
          << message;
    }
    if (step.want_error == "INVALID_ARGUMENT" && !step.fetches.empty() &&
        step.fetches[0] == "bad/batch_out:0") {
      EXPECT_TRUE(absl::StrContains(message, "BatchDatasetV2 '")) << message;
      EXPECT_TRUE(absl::StrContains(message,
                                    "Cannot add tensor to the batch: number "
                                    "of elements does not match"))
          << message;
    }
    if (step.want_error == "DATA_LOSS" && !step.fetches.empty() &&
        step.fetches[0] == "bad/pad_out:0") {
      EXPECT_TRUE(absl::StrContains(message, "PaddedBatchDatasetV2 '"))
          << message;
      EXPECT_TRUE(absl::StrContains(message, "pad to a smaller size"))
          << message;
    }
  }
}

TEST(DatasetOpsTest, MoreTransformationsGiveTensorFlowsElements) {
  const std::vector<Step> steps = ReadSteps(kMoreDir);
  ASSERT_GT(steps.size(), 250u);
  int ends = 0, elements = 0;
  for (const Step& step : steps) {
    ends += step.want_error == "OUT_OF_RANGE";
    elements += step.want_error.empty();
  }
  EXPECT_GT(ends, 40);
  const std::vector<absl::Status> statuses = Replay(steps, kMoreDir);
  ASSERT_EQ(statuses.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    const std::string message(statuses[i].message());
    if (step.want_error == "OUT_OF_RANGE") {
      EXPECT_TRUE(absl::EndsWith(message, "(IteratorGetNext): End of sequence"))
          << "line " << step.line << ": " << message;
    }
    if (step.want_error.empty() || step.want_error == "OUT_OF_RANGE") continue;
    // Bad parameters and selector indices: errors naming the node and op.
    const std::string first =
        step.fetches.empty() ? step.targets[0] : step.fetches[0];
    SCOPED_TRACE(absl::StrCat("line ", step.line, ": ", first));
    if (absl::StartsWith(first, "shard/")) {
      EXPECT_TRUE(absl::StrContains(message, "ShardDataset")) << message;
      EXPECT_TRUE(absl::StrContains(message, "Number of shards") ||
                  absl::StrContains(message, "Index must be between") ||
                  absl::StrContains(message, "SHARD_HINT"))
          << message;
    } else if (absl::StartsWith(first, "window/")) {
      EXPECT_TRUE(absl::StrContains(message, "WindowDataset")) << message;
      EXPECT_TRUE(absl::StrContains(message,
                                    "Window size must be greater than zero"))
          << message;
    } else if (absl::StartsWith(first, "sample/choose_bad")) {
      EXPECT_TRUE(absl::StrContains(message, "DirectedInterleaveDataset '"))
          << message;
      EXPECT_TRUE(
          absl::StrContains(message, "Selector index out of range: 5 >= 2"))
          << message;
    } else {
      ADD_FAILURE() << "an error TensorFlow's steps did not expect here: "
                    << message;
    }
  }
  // Every element of every pipeline was compared (Replay); how many.
  EXPECT_GT(elements, 200);
}

// ---- Graphs the C++ builders make.

ops::ElementSpec Int64Scalars() { return {{DT_INT64}, {TensorShape({})}}; }

// Runs `fetch` until OutOfRange; the int64 elements, flattened.
std::vector<int64_t> Drain(Session* session, const std::string& fetch,
                           absl::Status* end) {
  std::vector<int64_t> values;
  for (int i = 0; i < 1000; ++i) {
    std::vector<Tensor> out;
    *end = session->Run({}, {fetch}, {}, &out);
    if (!end->ok()) break;
    for (int64_t v : out[0].flat<int64_t>()) values.push_back(v);
  }
  return values;
}

TEST(DatasetOpsTest, BuildersMakeARunnablePipeline) {
  Scope root = Scope::NewRootScope();
  Output range = ops::RangeDataset(root, int64_t{0}, int64_t{10}, int64_t{3});
  Output batched = ops::BatchDatasetV2(root, range, int64_t{2}, false,
                                       {{DT_INT64}, {TensorShape({-1})}});
  Output skipped = ops::SkipDataset(root, batched, int64_t{1},
                                    {{DT_INT64}, {TensorShape({-1})}});
  Output it =
      ops::IteratorV2(root.WithOpName("it"), {{DT_INT64}, {TensorShape({-1})}});
  ops::MakeIterator(root.WithOpName("init"), skipped, it);
  OutputList next = ops::IteratorGetNext(root.WithOpName("next"), it,
                                         {{DT_INT64}, {TensorShape({-1})}});
  ops::DatasetCardinality(root.WithOpName("card"), batched);
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_EQ(next[0].node()->output_shape(0), TensorShape({-1}));
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // Before MakeIterator: TensorFlow's FailedPrecondition.
  absl::Status s = (*session)->Run({}, {"next:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  ASSERT_TRUE((*session)->Run({}, {"card:0"}, {"init"}, &out).ok());
  EXPECT_EQ(out[0].flat<int64_t>()[0], 2);  // [0,3] [6,9]
  absl::Status end;
  EXPECT_EQ(Drain(session->get(), "next:0", &end),
            (std::vector<int64_t>{6, 9}));
  EXPECT_EQ(end.code(), absl::StatusCode::kOutOfRange) << end;
  // Re-running the initializer starts over.
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, &out).ok());
  EXPECT_EQ(Drain(session->get(), "next:0", &end),
            (std::vector<int64_t>{6, 9}));
}

TEST(DatasetOpsTest, BadInputsAreErrorsNamingTheNode) {
  Scope root = Scope::NewRootScope();
  Output range = ops::RangeDataset(root, int64_t{0}, int64_t{4}, int64_t{1});
  // Batch size 0; shuffle buffer 0; a file cache; a step of 0; a handle
  // that is not one.
  Output zero = ops::BatchDatasetV2(root.WithOpName("zero_batch"), range,
                                    int64_t{0}, false, Int64Scalars());
  Output shuffled =
      ops::ShuffleDataset(root.WithOpName("no_buffer"), range, int64_t{0},
                          int64_t{1}, int64_t{2}, true, Int64Scalars());
  Output file_cache =
      ops::CacheDataset(root.WithOpName("file_cache"), range,
                        ops::Const(root, "/tmp/cache"), Int64Scalars());
  Output no_step = ops::RangeDataset(root.WithOpName("no_step"), int64_t{0},
                                     int64_t{4}, int64_t{0});
  ops::IteratorFromStringHandleV2(root.WithOpName("from_garbage"),
                                  ops::Const(root, "not a handle"),
                                  Int64Scalars());
  // An iterator of int32 elements pointed at an int64 dataset.
  Output it32 =
      ops::IteratorV2(root.WithOpName("it32"), {{DT_INT32}, {TensorShape({})}});
  ops::MakeIterator(root.WithOpName("wrong_type"), range, it32);
  ASSERT_TRUE(root.status().ok()) << root.status();
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  struct Case {
    const char* fetch;
    absl::StatusCode code;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"zero_batch:0", absl::StatusCode::kInvalidArgument,
            "Batch size must be greater than zero"},
           {"no_buffer:0", absl::StatusCode::kInvalidArgument,
            "buffer_size must be greater than zero"},
           {"file_cache:0", absl::StatusCode::kUnimplemented, "in memory"},
           {"no_step:0", absl::StatusCode::kInvalidArgument,
            "step must be a non-zero integer"},
           {"from_garbage:0", absl::StatusCode::kInvalidArgument,
            "Could not parse string_handle"},
       }) {
    std::vector<Tensor> out;
    const absl::Status s = (*session)->Run({}, {c.fetch}, {}, &out);
    EXPECT_EQ(s.code(), c.code) << c.fetch << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), c.says)) << s;
    const std::string node(
        absl::string_view(c.fetch).substr(0, std::string(c.fetch).find(':')));
    EXPECT_TRUE(absl::StrContains(s.message(), node)) << s;
  }
  std::vector<Tensor> out;
  const absl::Status s = (*session)->Run({}, {}, {"wrong_type"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "int32")) << s;
}

TEST(DatasetOpsTest, BadParametersOfMoreTransformationsAreErrors) {
  Scope root = Scope::NewRootScope();
  Output range = ops::RangeDataset(root, int64_t{0}, int64_t{4}, int64_t{1});
  ops::ShardDataset(root.WithOpName("no_shards"), range, int64_t{0},
                    int64_t{0}, Int64Scalars());
  ops::ShardDataset(root.WithOpName("negative_shards"), range, int64_t{-3},
                    int64_t{0}, Int64Scalars());
  ops::ShardDataset(root.WithOpName("shard_index"), range, int64_t{3},
                    int64_t{3}, Int64Scalars());
  ops::WindowDataset(root.WithOpName("empty_window"), range, int64_t{0},
                     int64_t{1}, int64_t{1}, false, 1);
  ops::WindowDataset(root.WithOpName("no_shift"), range, int64_t{2},
                     int64_t{0}, int64_t{1}, false, 1);
  ops::WindowDataset(root.WithOpName("no_stride"), range, int64_t{2},
                     int64_t{1}, int64_t{-1}, true, 1);
  Output floats = ops::TensorSliceDataset(
      root, {ops::Const(root, {1.0f, 2.0f})}, {TensorShape({})});
  ops::UniqueDataset(root.WithOpName("unique_floats"), floats,
                     {{DT_FLOAT}, {TensorShape({})}});
  ASSERT_TRUE(root.status().ok()) << root.status();
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  struct Case {
    const char* fetch;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"no_shards:0", "Number of shards must be greater than zero "
                           "(currently num_shards = 0)"},
           {"negative_shards:0", "(currently num_shards = -3)"},
           {"shard_index:0", "Index must be between 0 and 2 (currently "
                             "index = 3)"},
           {"empty_window:0", "Window size must be greater than zero, but "
                              "got 0"},
           {"no_shift:0", "Window shift must be greater than zero"},
           {"no_stride:0", "Window stride must be greater than zero"},
           {"unique_floats:0", "UniqueDataset only supports inputs with a "
                               "single `tf.int32`, `tf.int64`, or "
                               "`tf.string` component."},
       }) {
    std::vector<Tensor> out;
    const absl::Status s = (*session)->Run({}, {c.fetch}, {}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument)
        << c.fetch << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), c.says)) << s;
    const std::string node(
        absl::string_view(c.fetch).substr(0, std::string(c.fetch).find(':')));
    EXPECT_TRUE(absl::StrContains(s.message(), node)) << s;
  }
}

// RandomDataset's stream: the words of Philox(seed, seed2) in order, as
// TensorFlow's RandomDataset gives them; a shard of a unique.
TEST(DatasetOpsTest, BuildersOfMoreTransformationsRun) {
  Scope root = Scope::NewRootScope();
  Output random = ops::RandomDataset(root, int64_t{7}, int64_t{9});
  const ops::ElementSpec spec = Int64Scalars();
  Output taken = ops::TakeDataset(root, random, int64_t{8}, spec);
  Output it = ops::IteratorV2(root.WithOpName("it"), spec);
  ops::MakeIterator(root.WithOpName("init"), taken, it);
  ops::IteratorGetNext(root.WithOpName("next"), it, spec);
  Output values = ops::Const(root, {int64_t{4}, int64_t{4}, int64_t{1},
                                    int64_t{9}, int64_t{1}, int64_t{4}});
  Output slices = ops::TensorSliceDataset(root, {values}, {TensorShape({})});
  Output unique = ops::UniqueDataset(root, slices, spec);
  Output shard = ops::ShardDataset(root, unique, int64_t{2}, int64_t{0}, spec);
  Output it2 = ops::IteratorV2(root.WithOpName("it2"), spec);
  ops::MakeIterator(root.WithOpName("init2"), shard, it2);
  ops::IteratorGetNext(root.WithOpName("next2"), it2, spec);
  ASSERT_TRUE(root.status().ok()) << root.status();
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {}, {"init", "init2"}, &out).ok());
  absl::Status end;
  const std::vector<int64_t> words = Drain(session->get(), "next:0", &end);
  // TensorFlow 2.21: tf.raw_ops.RandomDataset(seed=7, seed2=9).take(8).
  EXPECT_EQ(words, (std::vector<int64_t>{2462361331, 2336002820, 3292225718,
                                         314718913, 3143212025, 3185396982,
                                         494761954, 2399460715}));
  EXPECT_EQ(Drain(session->get(), "next2:0", &end),
            (std::vector<int64_t>{4, 9}));
  EXPECT_EQ(end.code(), absl::StatusCode::kOutOfRange) << end;
}

TEST(DatasetOpsTest, MissingFilesAndBadRecordsAreErrors) {
  Scope root = Scope::NewRootScope();
  Output missing = ops::TFRecordDataset(
      root, ops::Const(root, "/nonexistent/dir/file.tfrecord"),
      ops::Const(root, ""), int64_t{0});
  Output it = ops::OneShotIterator(root.WithOpName("never"), "no_function",
                                   {{DT_STRING}, {TensorShape({})}});
  (void)it;
  Output iterator = ops::IteratorV2(root.WithOpName("records_it"),
                                    {{DT_STRING}, {TensorShape({})}});
  ops::MakeIterator(root.WithOpName("records_init"), missing, iterator);
  ops::IteratorGetNext(root.WithOpName("records_next"), iterator,
                       {{DT_STRING}, {TensorShape({})}});
  Output gz = ops::TFRecordDataset(
      root, ops::Const(root, std::string(kDir) + "records_0.tfrecord"),
      ops::Const(root, "LZ4"), int64_t{0});
  (void)gz;
  ASSERT_TRUE(root.status().ok()) << root.status();
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // The one-shot iterator's factory is not in the library.
  absl::Status s = (*session)->Run({}, {"never:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "no_function")) << s;
  ASSERT_TRUE((*session)->Run({}, {}, {"records_init"}, &out).ok());
  s = (*session)->Run({}, {"records_next:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "TFRecordDataset")) << s;
  s = (*session)->Run({}, {gz.name()}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "LZ4")) << s;
}

}  // namespace
}  // namespace dflow
