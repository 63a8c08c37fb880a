// The feature pipelines' string ops and tf.lookup's hash tables on a graph
// TensorFlow 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_string_ops_reference.py): case, strip, Substr in
// bytes and UTF-8 characters with broadcast pos/len, ReduceJoin over any
// axes, regex replacement, both StringSplits, StringToNumber, AsString's
// attrs, web-safe base64, FarmHash and SipHash buckets over strings of
// every FarmHash length class, and hash tables string->int64,
// int64->string, string->float, a vocabulary with out-of-vocabulary
// buckets and an imported int64->double table. Then the tables living in
// the session across runs, and bad inputs: each an error saying what is
// wrong, never a crash.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
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
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_string_ops/";

using testing_tf_values::StringFetch;

std::vector<StringFetch> ReadStringFetches() {
  return testing_tf_values::ReadStringFetches(std::string(kDir) +
                                              "strings.txt");
}

// The int64 fetches of cases.txt, exactly (a double loses hashes' low
// bits).
absl::flat_hash_map<std::string, std::vector<int64_t>> ReadInt64Fetches() {
  std::ifstream in(std::string(kDir) + "cases.txt");
  absl::flat_hash_map<std::string, std::vector<int64_t>> fetches;
  std::string text;
  while (std::getline(in, text)) {
    std::vector<std::string> halves = absl::StrSplit(text, " | ");
    std::vector<std::string> head = absl::StrSplit(halves[0], ' ');
    if (halves.size() != 2 || head.size() < 3 || head[2] != "int64") continue;
    std::vector<int64_t>& values = fetches[head[1]];
    for (absl::string_view v :
         absl::StrSplit(halves[1], ' ', absl::SkipEmpty())) {
      int64_t value = 0;
      EXPECT_TRUE(absl::SimpleAtoi(v, &value)) << text;
      values.push_back(value);
    }
  }
  return fetches;
}

TEST(StringOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const absl::flat_hash_map<std::string, std::vector<int64_t>> int64s =
      ReadInt64Fetches();
  std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  const std::vector<StringFetch> strings = ReadStringFetches();
  ASSERT_GT(lines.size(), 30u);
  ASSERT_GT(strings.size(), 50u);
  const size_t numeric = lines.size();
  for (const StringFetch& s : strings) lines.push_back(s.line);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  int compared_strings = 0, compared_numbers = 0;
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    const size_t at = static_cast<size_t>(&want - lines.data());
    if (at >= numeric) {
      const StringFetch& s = strings[at - numeric];
      ASSERT_EQ(got.dtype(), DT_STRING);
      ASSERT_EQ(got.NumElements(), static_cast<int64_t>(s.values.size()));
      for (int64_t i = 0; i < got.NumElements(); ++i) {
        EXPECT_EQ(got.data<std::string>()[i], s.values[i]) << "element " << i;
      }
      ++compared_strings;
      continue;
    }
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    if (want.dtype == "uint8") {  // Fingerprint's bytes
      ASSERT_EQ(got.dtype(), DT_UINT8);
      for (int64_t i = 0; i < got.NumElements(); ++i) {
        EXPECT_EQ(got.data<uint8_t>()[i], want.values[i]) << "element " << i;
      }
      ++compared_numbers;
      continue;
    }
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    // Parsed and hashed values are exact: %.9g / %.17g round-trip.
    const bool single = want.dtype == "float32";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(Element(got, i))) << "element " << i;
      } else if (want.dtype == "int64") {
        EXPECT_EQ(got.data<int64_t>()[i], int64s.at(want.name)[i])
            << "element " << i;
      } else {
        EXPECT_EQ(Element(got, i), w) << "element " << i;
      }
    }
    ++compared_numbers;
  }
  EXPECT_GT(compared_strings, 50);
  EXPECT_GT(compared_numbers, 20);
}

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

void ExpectError(const absl::Status& s, absl::StatusCode code,
                 const std::string& text) {
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  ExpectError(s, absl::StatusCode::kInvalidArgument, text);
}

// StringToNumber of odd strings: what TensorFlow parses (and to what) dflow
// parses, what it refuses dflow refuses.
TEST(StringOpsTest, StringToNumberAcceptsWhatTensorFlowAccepts) {
  std::ifstream in(std::string(kDir) + "to_number.txt");
  ASSERT_TRUE(in.good());
  std::string text;
  int checked = 0;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> parts = absl::StrSplit(text, ' ');
    ASSERT_GE(parts.size(), 3u) << text;
    absl::string_view word = parts[1];
    ASSERT_TRUE(absl::ConsumePrefix(&word, "x")) << text;
    const std::string number = absl::HexStringToBytes(word);
    SCOPED_TRACE(parts[0] + " '" + number + "'");
    const DataType dtype = DtypeOf(parts[0]);
    Scope root = Scope::NewRootScope();
    Output s = Ph(root, DT_STRING);
    absl::StatusOr<std::vector<Tensor>> got = RunKernel(
        ops::StringToNumber(root, s, dtype).node(),
        {Tensor::FromVector<std::string>({number}, TensorShape({1}))});
    ++checked;
    if (parts[2] == "ERR") {
      ExpectInvalid(got.status(), "could not correctly convert string");
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(parts.size(), 4u);
    const Tensor& t = (*got)[0];
    if (dtype == DT_INT64) {
      int64_t want = 0;
      ASSERT_TRUE(absl::SimpleAtoi(parts[3], &want));
      EXPECT_EQ(t.data<int64_t>()[0], want);
      continue;
    }
    const double want = testing_tf_values::ParseValue(parts[3]);
    const double value = Element(t, 0);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(value));
    } else {
      EXPECT_EQ(value, dtype == DT_FLOAT ? static_cast<float>(want) : want);
    }
  }
  EXPECT_GT(checked, 100);
}

// --- Tables live in the session. ---

TEST(StringOpsTest, TablesKeepTheirContentsAcrossRuns) {
  absl::StatusOr<GraphDef> def =
      ReadGraphDefFile(std::string(kDir) + "graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(*def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // Not yet filled: an empty table.
  ASSERT_TRUE((*session)->Run({}, {"unordered_table_size"}, {}, &out).ok());
  EXPECT_EQ(*out[0].data<int64_t>(), 0);
  ASSERT_TRUE((*session)->Run({}, {}, {"tables_init"}, &out).ok());
  ASSERT_TRUE((*session)->Run({}, {"unordered_table_size"}, {}, &out).ok());
  EXPECT_EQ(*out[0].data<int64_t>(), 4);
  // Initializing again with the same data is fine (lookups depend on it).
  ASSERT_TRUE((*session)->Run({}, {"out_table_s2i"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<int64_t>()[0], 20);
}

Tensor Strings(const std::vector<std::string>& v) {
  return Tensor::FromVector<std::string>(
      v, TensorShape({static_cast<int64_t>(v.size())}));
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

TEST(StringOpsTest, TableMisuseSaysWhat) {
  Scope root = Scope::NewRootScope();
  Output table = ops::HashTableV2(root, DT_STRING, DT_INT64, "t");
  Output keys = Ph(root, DT_STRING), values = Ph(root, DT_INT64);
  Output find = ops::LookupTableFindV2(root.WithOpName("find"), table, keys,
                                       ops::Const(root, int64_t{-1}));
  Operation init =
      ops::InitializeTableV2(root.WithOpName("init"), table, keys, values);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  const Tensor k = Strings({"a", "b", "a"});
  absl::Status s = session->Run({{keys.name(), k}}, {find.name()}, {}, &out);
  ExpectError(s, absl::StatusCode::kFailedPrecondition,
              "Table not initialized");
  EXPECT_THAT(std::string(s.message()), HasSubstr("find"));
  // The same key twice with two values.
  s = session->Run({{keys.name(), k},
                    {values.name(),
                     Tensor::FromVector<int64_t>({1, 2, 3}, TensorShape({3}))}},
                   {}, {"init"}, &out);
  ExpectError(s, absl::StatusCode::kFailedPrecondition,
              "different value for same key");
  s = session->Run(
      {{keys.name(), k},
       {values.name(), Tensor::FromVector<int64_t>({1, 2}, TensorShape({2}))}},
      {}, {"init"}, &out);
  ExpectInvalid(s, "keys and values must have the same shape");
  // Filled once; filling again with other data is refused.
  ASSERT_TRUE(session
                  ->Run({{keys.name(), k},
                         {values.name(), Tensor::FromVector<int64_t>(
                                             {1, 2, 1}, TensorShape({3}))}},
                        {}, {"init"}, &out)
                  .ok());
  ASSERT_TRUE(
      session
          ->Run({{keys.name(), Strings({"b", "zz"})}}, {find.name()}, {}, &out)
          .ok());
  EXPECT_EQ(out[0].data<int64_t>()[0], 2);
  EXPECT_EQ(out[0].data<int64_t>()[1], -1);
  s = session->Run(
      {{keys.name(), Strings({"c"})},
       {values.name(), Tensor::FromVector<int64_t>({5}, TensorShape({1}))}},
      {}, {"init"}, &out);
  ExpectError(s, absl::StatusCode::kFailedPrecondition,
              "already initialized with different data");
}

TEST(StringOpsTest, BadVocabularyFilesSayWhat) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp == nullptr ? "/tmp" : tmp) +
                           "/string_ops_test_vocabulary.txt";
  std::ofstream(path) << "apple 1\npear x\n\nfig 3\n";
  auto run = [&](const std::string& file, int64_t key_index,
                 int64_t value_index, DataType value_dtype,
                 const char* delimiter = " ") {
    Scope root = Scope::NewRootScope();
    Output table = ops::HashTableV2(root, DT_STRING, value_dtype);
    ops::InitializeTableFromTextFileV2(root.WithOpName("init"), table,
                                       ops::Const(root, file), key_index,
                                       value_index, delimiter);
    std::unique_ptr<Session> session = MakeSession(root);
    std::vector<Tensor> out;
    return session == nullptr ? absl::InternalError("no session")
                              : session->Run({}, {}, {"init"}, &out);
  };
  ExpectError(run(path + ".missing", -2, -1, DT_INT64),
              absl::StatusCode::kNotFound, "could not open the vocabulary");
  ExpectInvalid(run(path, 0, 1, DT_INT64),
                "Field x in line 1 is not a valid int64");
  ExpectInvalid(run(path, 0, 2, DT_STRING), "Invalid number of columns in");
  ExpectInvalid(run(path, -2, -1, DT_INT64), "empty line found at line 2");
  ExpectInvalid(run(path, 0, -2, DT_FLOAT),
                "Value index for whole line requires string or integer");
  ExpectInvalid(run(path, 0, -1, DT_INT64, "ab"),
                "delimiter should be only 1 char");
}

TEST(StringOpsTest, BadStringsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output s = Ph(root, DT_STRING);
  ExpectInvalid(RunError(ops::StringToNumber(root, s, DT_INT32),
                         {Strings({"12", "1.5"})}),
                "StringToNumberOp could not correctly convert string: 1.5");
  ExpectInvalid(RunError(ops::StringToNumber(root, s, DT_INT32),
                         {Strings({"99999999999"})}),
                "could not correctly convert");
  ExpectInvalid(RunError(ops::StringToNumber(root, s), {Strings({"abc"})}),
                "could not correctly convert string: abc");
  ExpectInvalid(RunError(ops::DecodeBase64(root, s), {Strings({"ab+/"})}),
                "Invalid character found in base64");
  Output pos = Ph(root, DT_INT32), len = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::Substr(root, s, pos, len),
                         {Strings({"abc"}), Tensor::Scalar<int32_t>(4),
                          Tensor::Scalar<int32_t>(1)}),
                "pos 4 out of range for string b'abc' at index 0");
  ExpectInvalid(RunError(ops::Substr(root, s, pos, len),
                         {Strings({"abc"}), Tensor::Scalar<int32_t>(-4),
                          Tensor::Scalar<int32_t>(1)}),
                "out of range");
  ExpectInvalid(
      RunError(ops::Substr(root, s, pos, len),
               {Strings({"abc", "de", "f"}),
                Tensor::FromVector<int32_t>({0, 1}, TensorShape({2})),
                Tensor::FromVector<int32_t>({0, 1}, TensorShape({2}))}),
      "do not broadcast");
  ExpectInvalid(RunError(ops::Substr(root, s, pos, len),
                         {Strings({"abc"}), Tensor::Scalar<int32_t>(0),
                          Tensor::FromVector<int32_t>({0}, TensorShape({1}))}),
                "pos and len should have the same shape");
  Output axes = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::ReduceJoin(root, s, axes),
                         {Strings({"a"}), Tensor::Scalar<int32_t>(1)}),
                "Invalid reduction dimension 1 for input with 1 dimensions");
  ExpectInvalid(RunError(ops::ReduceJoin(root, s, axes),
                         {Strings({"a"}), Tensor::FromVector<int32_t>(
                                              {0, -1}, TensorShape({2}))}),
                "Duplicate reduction dimension -1");
  Output sep = Ph(root, DT_STRING);
  ExpectInvalid(
      RunError(ops::StringSplitV2(root, s, sep).values,
               {Tensor::FromVector<std::string>({"a b"}, TensorShape({1, 1})),
                Tensor::Scalar<std::string>(" ")}),
      "input must be a vector");
  ExpectInvalid(RunError(ops::StringSplit(root, s, sep).indices,
                         {Strings({"a b"}), Strings({" "})}),
                "delimiter must be a scalar");
  Output pattern = Ph(root, DT_STRING), rewrite = Ph(root, DT_STRING);
  ExpectInvalid(RunError(ops::RegexReplace(root, s, pattern, rewrite),
                         {Strings({"a"}), Tensor::Scalar<std::string>("(a"),
                          Tensor::Scalar<std::string>("b")}),
                "Invalid pattern: (a");
  ExpectInvalid(RunError(ops::RegexReplace(root, s, pattern, rewrite),
                         {Strings({"a"}), Tensor::Scalar<std::string>("(a)"),
                          Tensor::Scalar<std::string>("\\2")}),
                "Invalid rewrite pattern");
  ExpectInvalid(RunError(ops::RegexReplace(root, s, pattern, rewrite),
                         {Strings({"a"}), Strings({"a"}),
                          Tensor::Scalar<std::string>("b")}),
                "Pattern must be scalar");
}

TEST(StringOpsTest, BadAttrsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), s = Ph(root, DT_STRING);
  const Tensor one = Tensor::FromVector<float>({1}, TensorShape({1}));
  ops::AsStringAttrs both;
  both.scientific = both.shortest = true;
  ExpectInvalid(RunError(ops::AsString(root, x, both), {one}),
                "Cannot select both scientific and shortest notation");
  ops::AsStringAttrs fill;
  fill.fill = "ab";
  ExpectInvalid(RunError(ops::AsString(root, x, fill), {one}),
                "Fill string must be one or fewer characters");
  fill.fill = "x";
  ExpectInvalid(RunError(ops::AsString(root, x, fill), {one}),
                "Fill argument not supported");
  ops::AsStringAttrs precision;
  precision.precision = 2;
  Output i = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::AsString(root, i, precision),
                         {Tensor::FromVector<int32_t>({1}, TensorShape({1}))}),
                "floating point only");
  ExpectInvalid(RunError(ops::StringToHashBucketStrong(root, s, 10, {1, 2, 3}),
                         {Strings({"a"})}),
                "Key must have 2 elements");
  ExpectInvalid(
      RunError(ops::StaticRegexReplace(root, s, "[", "x"), {Strings({"a"})}),
      "Invalid pattern: [");
  Output method = Ph(root, DT_STRING);
  ExpectInvalid(RunError(ops::Fingerprint(root, s, method),
                         {Strings({"a"}), Tensor::Scalar<std::string>("md5")}),
                "Unsupported fingerprint method: md5");
  ExpectInvalid(RunError(ops::Fingerprint(root, s, method),
                         {Tensor::Scalar<std::string>("a"),
                          Tensor::Scalar<std::string>("farmhash64")}),
                "`data` should have at least one dimension");
}

// RegexReplace keeps its last compiled pattern: a new pattern (or rewrite)
// in a later step is compiled anew, not served from the old one.
TEST(StringOpsTest, RegexReplaceFollowsItsPatternAcrossSteps) {
  Scope root = Scope::NewRootScope();
  Output s = Ph(root, DT_STRING), pattern = Ph(root, DT_STRING),
         rewrite = Ph(root, DT_STRING);
  Output out = ops::RegexReplace(root, s, pattern, rewrite);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  const std::vector<std::vector<std::string>> steps = {
      {"a+", "-", "b-c-"},
      {"a+", "-", "b-c-"},
      {"b", "-", "-aacaa"},
      {"b", "<\\0>", "<b>aacaa"},
      {"a", "<\\0>", "b<a><a>c<a><a>"},
      {"a+", "", "bc"}};
  for (const std::vector<std::string>& step : steps) {
    std::vector<Tensor> got;
    ASSERT_TRUE(
        session
            ->Run({{s.name(), Tensor::Scalar<std::string>("baacaa")},
                   {pattern.name(), Tensor::Scalar<std::string>(step[0])},
                   {rewrite.name(), Tensor::Scalar<std::string>(step[1])}},
                  {out.name()}, {}, &got)
            .ok());
    EXPECT_EQ(*got[0].data<std::string>(), step[2])
        << step[0] << " " << step[1];
  }
}

// Errors from a session name the node and its op.
TEST(StringOpsTest, SessionErrorsNameTheNode) {
  Scope root = Scope::NewRootScope();
  Output s = Ph(root, DT_STRING);
  Output n = ops::StringToNumber(root.WithOpName("parse_age"), s, DT_INT64);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  const absl::Status st =
      session->Run({{s.name(), Strings({"7", "seven"})}}, {n.name()}, {}, &out);
  ExpectInvalid(st, "could not correctly convert string: seven");
  EXPECT_THAT(std::string(st.message()), HasSubstr("parse_age"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("StringToNumber"));
}

// The hashes on strings of every length up to 300 bytes agree with
// themselves across bucket counts: a bucket is the hash modulo the count.
TEST(StringOpsTest, HashBucketsAreTheHashModuloTheCount) {
  Scope root = Scope::NewRootScope();
  Output s = Ph(root, DT_STRING);
  std::vector<std::string> texts;
  for (int n = 0; n < 300; ++n) {
    std::string t;
    for (int j = 0; j < n; ++j) t.push_back(static_cast<char>(j * 31 + n));
    texts.push_back(t);
  }
  const int64_t big = int64_t{1} << 62;
  absl::StatusOr<std::vector<Tensor>> all = RunKernel(
      ops::StringToHashBucketFast(root, s, big).node(), {Strings(texts)});
  absl::StatusOr<std::vector<Tensor>> small = RunKernel(
      ops::StringToHashBucketFast(root, s, 1024).node(), {Strings(texts)});
  ASSERT_TRUE(all.ok() && small.ok());
  for (size_t i = 0; i < texts.size(); ++i) {
    // 2^62 and 1024 are powers of two: the low 10 bits agree.
    EXPECT_EQ((*all)[0].data<int64_t>()[i] % 1024,
              (*small)[0].data<int64_t>()[i]);
  }
}

}  // namespace
}  // namespace dflow
