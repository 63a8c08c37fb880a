#include "distributed/cluster_spec.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

TEST(ClusterSpecTest, JobsAndTasksInTheOrderGiven) {
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::Parse(
      "worker=127.0.0.1:2222, 127.0.0.1:2223,ps=localhost:2224");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->jobs().size(), 2u);
  EXPECT_EQ(spec->jobs()[0].first, "worker");
  EXPECT_EQ(spec->jobs()[1].first, "ps");
  const std::vector<ClusterTask> tasks = spec->Tasks();
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[1].Name(), "/job:worker/replica:0/task:1");
  EXPECT_EQ(tasks[1].address, "127.0.0.1:2223");
  EXPECT_EQ(tasks[2].Name(), "/job:ps/replica:0/task:0");
  EXPECT_EQ(spec->ToString(),
            "worker=127.0.0.1:2222,127.0.0.1:2223,ps=localhost:2224");
  absl::StatusOr<ClusterSpec> again = ClusterSpec::Parse(spec->ToString());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToString(), spec->ToString());
  absl::StatusOr<ClusterTask> ps = spec->Task("ps", 0);
  ASSERT_TRUE(ps.ok());
  EXPECT_EQ(ps->address, "localhost:2224");
  absl::StatusOr<ClusterTask> missing = spec->Task("worker", 2);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("no /job:worker/task:2; it has worker (tasks 0..1), "
                        "ps (tasks 0..0)"));
  EXPECT_TRUE(ClusterSpec::Parse("worker=[::1]:2222").ok());
}

TEST(ClusterSpecTest, BadSpecsAreErrorsNamingTheEntry) {
  struct Case {
    const char* spec;
    const char* says;
  };
  for (const Case& c : {
           Case{"", "names no jobs"},
           Case{"127.0.0.1:2222", "comes before any job"},
           Case{"Worker=127.0.0.1:2222", "job name 'Worker'"},
           Case{"9w=127.0.0.1:2222", "job name '9w'"},
           Case{"worker=", "has no address"},
           Case{"worker=127.0.0.1:2222,", "has no address"},
           Case{"worker=127.0.0.1", "has no port"},
           Case{"worker=127.0.0.1:0", "port must be 1..65535"},
           Case{"worker=127.0.0.1:65536", "port must be 1..65535"},
           Case{"worker=127.0.0.1:x", "port must be 1..65535"},
           Case{"worker=:2222", "the host must be"},
           Case{"worker=a b:2222", "the host must be"},
           Case{"worker=127.0.0.1:2222,ps=127.0.0.1:2222",
                "given to two tasks"},
           Case{"worker=127.0.0.1:1,worker=127.0.0.1:2", "named twice"},
       }) {
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::Parse(c.spec);
    ASSERT_FALSE(spec.ok()) << c.spec;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument)
        << c.spec;
    EXPECT_THAT(spec.status().message(), HasSubstr(c.says)) << c.spec;
  }
}

TEST(ClusterSpecTest, TooManyTasksIsAnError) {
  std::string spec = "worker=";
  for (int i = 0; i <= ClusterSpec::kMaxTasks; ++i) {
    absl::StrAppend(&spec, i ? "," : "", "127.0.0.1:", 1000 + i);
  }
  absl::StatusOr<ClusterSpec> parsed = ClusterSpec::Parse(spec);
  EXPECT_THAT(parsed.status().message(), HasSubstr("more than 1024 tasks"));
}

}  // namespace
}  // namespace dflow
