#include "tests/runtime/saver_test_util.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace dflow {
namespace saver_test {

std::string NewTempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr ? base : "/tmp", "/saver_XXXXXX");
  char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  return pattern;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

GraphDef ToDef(const Scope& root) {
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  return def;
}

std::unique_ptr<Session> MakeSession(const GraphDef& def) {
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(def);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

Saver MakeSaver(const GraphDef& def, int max_to_keep) {
  SaverOptions options;
  options.max_to_keep = max_to_keep;
  absl::StatusOr<Saver> saver = Saver::Create(def, options);
  EXPECT_TRUE(saver.ok()) << saver.status();
  return *std::move(saver);
}

void RunTargets(Session* session, const std::vector<std::string>& targets) {
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {}, targets, &out);
  ASSERT_TRUE(s.ok()) << s;
}

std::vector<Tensor> Fetch(Session* session,
                          const std::vector<std::string>& fetches) {
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, fetches, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

}  // namespace saver_test
}  // namespace dflow
