// A cluster: named jobs, each an ordered list of task addresses, as
// TensorFlow's ClusterSpec. Task N of job J is /job:J/replica:0/task:N, and
// its devices are named under that prefix.
//
// On the command line (`dflow worker --cluster`, `dflow place --cluster`):
//   worker=127.0.0.1:2222,127.0.0.1:2223,ps=127.0.0.1:2224
// a `job=` entry starts a job, the entries after it are its further tasks.
#ifndef DFLOW_DISTRIBUTED_CLUSTER_SPEC_H_
#define DFLOW_DISTRIBUTED_CLUSTER_SPEC_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dflow {

// One task of a cluster.
struct ClusterTask {
  std::string job;
  int task = 0;
  std::string address;  // host:port

  // "/job:worker/replica:0/task:1": the prefix of the task's device names.
  std::string Name() const;
};

class ClusterSpec {
 public:
  // The most tasks a cluster may have: each is a server and a connection
  // (a mistyped list must not make a master dial thousands of addresses).
  static constexpr int kMaxTasks = 1024;

  // Reads the command-line form above. InvalidArgument, naming the entry,
  // for: no jobs, a task before any `job=`, a job named twice or without
  // tasks, a job name that is not [a-z][a-z0-9_]*, an address that is not
  // host:port with a port in 1..65535, an address used by two tasks (two
  // servers cannot bind one port), more than kMaxTasks tasks.
  static absl::StatusOr<ClusterSpec> Parse(absl::string_view text);

  // Jobs in the order given, each with its task addresses.
  const std::vector<std::pair<std::string, std::vector<std::string>>>& jobs()
      const {
    return jobs_;
  }

  // Every task, job by job in the order given.
  std::vector<ClusterTask> Tasks() const;

  // Task `task` of `job`; NotFound naming the cluster's jobs and their task
  // counts.
  absl::StatusOr<ClusterTask> Task(absl::string_view job, int task) const;

  // The command-line form: Parse(ToString()) gives back this spec.
  std::string ToString() const;

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> jobs_;
};

// "host:port" split and checked (port 1..65535, a host of letters, digits,
// '.', '-', or a bracketed IPv6 address); InvalidArgument otherwise.
absl::StatusOr<std::pair<std::string, int>> ParseHostPort(
    absl::string_view address);

// The task prefix of a device name ("/job:ps/replica:0/task:0" of
// "/job:ps/replica:0/task:0/device:CPU:0"); empty if it names no task.
std::string TaskOfDevice(const std::string& device_name);

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_CLUSTER_SPEC_H_
