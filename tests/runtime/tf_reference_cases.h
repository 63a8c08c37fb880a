// Reading the reference files tools/tf_reference/ writes next to
// TensorFlow's graphs (tf_cond/, tf_loops/, tf_calls/): whole files, a
// line's floats, a graph, a float vector to feed, and running the
// "n | x | out" cases of make_loop_reference.py's format. Shared by
// tf_cond_test, tf_loops_test and tf_calls_test.
#ifndef DFLOW_TESTS_RUNTIME_TF_REFERENCE_CASES_H_
#define DFLOW_TESTS_RUNTIME_TF_REFERENCE_CASES_H_

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "graph/graph_def_file.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace testing_tf {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The space-separated floats of `text`.
inline std::vector<float> Floats(absl::string_view text) {
  std::vector<float> out;
  for (absl::string_view v :
       absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    float f = 0;
    EXPECT_TRUE(absl::SimpleAtof(v, &f)) << v;
    out.push_back(f);
  }
  return out;
}

// The GraphDef at `path` (an empty one, after a test failure, if unreadable).
inline GraphDef LoadGraph(const std::string& path) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(path);
  EXPECT_TRUE(def.ok()) << def.status();
  return def.ok() ? *def : GraphDef();
}

inline Tensor Vector(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

// Runs every "n | x | out" line of `cases` through `session` (feeds x and
// n, fetches out) and checks TensorFlow's values within 1e-5; returns how
// many lines ran.
inline int RunCases(Session* session, const std::string& cases) {
  int checked = 0;
  for (absl::string_view line :
       absl::StrSplit(cases, '\n', absl::SkipWhitespace())) {
    if (absl::StartsWith(line, "#")) continue;
    std::vector<std::string> parts = absl::StrSplit(line, '|');
    EXPECT_EQ(parts.size(), 3u) << line;
    if (parts.size() != 3) return checked;
    const std::vector<float> n = Floats(parts[0]);
    const std::vector<float> want = Floats(parts[2]);
    std::vector<Tensor> out;
    absl::Status s = session->Run(
        {{"x", Vector(Floats(parts[1]))},
         {"n", Tensor::Scalar<int32_t>(static_cast<int32_t>(n[0]))}},
        {"out"}, {}, &out);
    EXPECT_TRUE(s.ok()) << s << " (" << line << ")";
    if (!s.ok()) return checked;
    EXPECT_EQ(out[0].NumElements(), static_cast<int64_t>(want.size())) << line;
    if (out[0].NumElements() != static_cast<int64_t>(want.size())) {
      return checked;
    }
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(out[0].data<float>()[i], want[i],
                  1e-5 * std::max(1.0f, std::fabs(want[i])))
          << line;
    }
    ++checked;
  }
  return checked;
}

}  // namespace testing_tf
}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_TF_REFERENCE_CASES_H_
