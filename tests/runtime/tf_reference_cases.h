// Reading the reference files tools/tf_reference/ writes next to
// TensorFlow's graphs (tf_cond/, tf_loops/): whole files, a line's floats,
// a graph, a float vector to feed. Shared by tf_cond_test and
// tf_loops_test.
#ifndef DFLOW_TESTS_RUNTIME_TF_REFERENCE_CASES_H_
#define DFLOW_TESTS_RUNTIME_TF_REFERENCE_CASES_H_

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "graph/graph_def_file.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"

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

}  // namespace testing_tf
}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_TF_REFERENCE_CASES_H_
