// The element-wise ops of graph/ops/math_ops_special.cc and
// graph/ops/nn_ops_activations.cc on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_special_math_reference.py):
// every op over its domain, halves for the rounding ops, NaN and infinities
// for the predicates and Sign, Softplus past both of its thresholds, the
// most negative int32 for Abs, and float64, float16 and int32 kernels.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "graph/graph_def_file.h"
#include "runtime/session.h"

namespace dflow {
namespace {

constexpr char kDir[] = "tests/testdata/tf_special_math/";

struct Line {
  std::string kind, name, dtype;
  std::vector<double> values;
};

std::vector<Line> ReadCases() {
  std::ifstream in(std::string(kDir) + "cases.txt");
  std::vector<Line> lines;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> halves = absl::StrSplit(text, " | ");
    EXPECT_EQ(halves.size(), 2u) << text;
    if (halves.size() != 2) continue;
    std::vector<std::string> head = absl::StrSplit(halves[0], ' ');
    Line line{head[0], head[1], head[2], {}};
    for (absl::string_view v : absl::StrSplit(halves[1], ' ')) {
      double d = 0;
      if (v == "nan") {
        d = std::nan("");
      } else if (v == "inf" || v == "-inf") {
        d = v == "inf" ? INFINITY : -INFINITY;
      } else {
        EXPECT_TRUE(absl::SimpleAtod(v, &d)) << v;
      }
      line.values.push_back(d);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

Tensor FeedTensor(const Line& line) {
  const int64_t n = static_cast<int64_t>(line.values.size());
  if (line.dtype == "int32") {
    Tensor t(DT_INT32, TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) {
      t.data<int32_t>()[i] = static_cast<int32_t>(line.values[i]);
    }
    return t;
  }
  Tensor t(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    t.data<float>()[i] = static_cast<float>(line.values[i]);
  }
  return t;
}

double Element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_BOOL:
      return t.data<bool>()[i] ? 1 : 0;
    default:
      ADD_FAILURE() << "unexpected dtype " << DataTypeName(t.dtype());
      return 0;
  }
}

TEST(SpecialMathOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines = ReadCases();
  ASSERT_GT(lines.size(), 40u);
  absl::StatusOr<GraphDef> def =
      ReadGraphDefFile(std::string(kDir) + "graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(*def);
  ASSERT_TRUE(session.ok()) << session.status();
  FeedList feeds;
  std::vector<const Line*> fetched;
  std::vector<std::string> fetches;
  for (const Line& line : lines) {
    if (line.kind == "feed") {
      feeds.emplace_back(line.name, FeedTensor(line));
    } else {
      fetched.push_back(&line);
      fetches.push_back(line.name);
    }
  }
  std::vector<Tensor> outputs;
  const absl::Status run = (*session)->Run(feeds, fetches, {}, &outputs);
  ASSERT_TRUE(run.ok()) << run;
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    // NumPy's names in the file: float32, float64, int32, bool.
    const DataType want_dtype = want.dtype == "float32"   ? DT_FLOAT
                                : want.dtype == "float64" ? DT_DOUBLE
                                : want.dtype == "int32"   ? DT_INT32
                                                          : DT_BOOL;
    ASSERT_EQ(got.dtype(), want_dtype) << want.dtype;
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // float32 within a few ulps of TensorFlow's (libm and Eigen differ in
    // the last bit for some functions), float16 results (cast to float32 in
    // the graph) within one half-precision ulp (TensorFlow rounds some
    // intermediate steps to half, dflow only the result), the rest to 1e-12.
    const bool half = absl::EndsWith(want.name, "_f16");
    const double rel = half                      ? 1e-3
                       : want.dtype == "float32" ? 2e-6
                                                 : 1e-12;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i], g = Element(got, i);
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(g)) << "element " << i;
      } else if (std::isinf(w)) {
        EXPECT_EQ(g, w) << "element " << i;
      } else {
        EXPECT_NEAR(g, w, rel * std::fabs(w) + 1e-30) << "element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace dflow
