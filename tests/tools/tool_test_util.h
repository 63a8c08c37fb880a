// Helpers shared by the tests of the dflow verbs: temporary files, running a
// verb in process, and the seed-style tower graph that place and dot check.
#ifndef DFLOW_TESTS_TOOLS_TOOL_TEST_UTIL_H_
#define DFLOW_TESTS_TOOLS_TOOL_TEST_UTIL_H_

#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"

namespace dflow {
namespace tool_testing {

// `name` in the test's temporary directory.
inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What a verb returned and printed.
struct Result {
  int rc;
  std::string out;
  std::string err;
};

using Verb = int (*)(const std::vector<std::string>&, std::ostream&,
                     std::ostream&);
inline Result RunVerb(Verb verb, const std::vector<std::string>& args) {
  std::ostringstream o, e;
  int rc = verb(args, o, e);
  return {rc, o.str(), e.str()};
}

// Writes, as text to TempPath(file), a graph in the seeds' shape: variables
// w and b, an "init" Assign and the inputs x_i on /cpu:0; tower_i on /gpu:i
// computes loss = Identity(Relu(BiasAdd(MatMul(x_i, w), b))). With
// `control_node`, a NoOp "done" waits on "init" through a control edge.
inline std::string WriteTowerGraph(int towers, const std::string& file,
                                   bool control_node = false) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/cpu:0");
  Output w = ops::Variable(cpu.WithOpName("w"), TensorShape({3, 2}), DT_FLOAT);
  Output b = ops::Variable(cpu.WithOpName("b"), TensorShape({2}), DT_FLOAT);
  Output assign =
      ops::Assign(cpu.WithOpName("init"), w, ops::Fill(cpu, {3, 2}, 0.5f));
  if (control_node) {
    ops::NoOp(cpu.WithOpName("done").WithControlDependencies(assign));
  }
  for (int i = 0; i < towers; ++i) {
    Scope tower = root.NewSubScope(absl::StrCat("tower_", i))
                      .WithDevice(absl::StrCat("/gpu:", i));
    Output x = ops::Placeholder(cpu.WithOpName(absl::StrCat("x_", i)), DT_FLOAT,
                                ops::PlaceholderAttrs().Shape({-1, 3}));
    Output y =
        ops::Relu(tower, ops::BiasAdd(tower, ops::MatMul(tower, x, w), b));
    ops::Identity(tower.WithOpName("loss"), y);
  }
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  const std::string path = TempPath(file);
  s = WriteGraphDefFile(path, def, GraphDefFormat::kText);
  EXPECT_TRUE(s.ok()) << s;
  return path;
}

}  // namespace tool_testing
}  // namespace dflow

#endif  // DFLOW_TESTS_TOOLS_TOOL_TEST_UTIL_H_
