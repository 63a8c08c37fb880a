// Helpers of the Saver tests (saver_test.cc, saver_crash_test.cc): a
// temporary directory, sessions, savers and steps whose failures are test
// failures.
#ifndef DFLOW_TESTS_RUNTIME_SAVER_TEST_UTIL_H_
#define DFLOW_TESTS_RUNTIME_SAVER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "graph/scope.h"
#include "proto/graph.pb.h"
#include "runtime/saver.h"
#include "runtime/session.h"

namespace dflow {
namespace saver_test {

// A fresh directory under the test's temporary directory.
std::string NewTempDir();
bool FileExists(const std::string& path);
GraphDef ToDef(const Scope& root);
std::unique_ptr<Session> MakeSession(const GraphDef& def);
Saver MakeSaver(const GraphDef& def, int max_to_keep = 5);
void RunTargets(Session* session, const std::vector<std::string>& targets);
std::vector<Tensor> Fetch(Session* session,
                          const std::vector<std::string>& fetches);

}  // namespace saver_test
}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_SAVER_TEST_UTIL_H_
