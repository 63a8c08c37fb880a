#include "distributed/cluster_spec.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace dflow {
namespace {

bool IsJobName(absl::string_view name) {
  if (name.empty() || !absl::ascii_islower(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '_') {
      return false;
    }
  }
  return true;
}

bool IsHostName(absl::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    for (char c : host.substr(1, host.size() - 2)) {
      if (!absl::ascii_isxdigit(c) && c != ':' && c != '.') return false;
    }
    return host.size() > 2;
  }
  if (host.empty()) return false;
  for (char c : host) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '-') return false;
  }
  return true;
}

constexpr char kForm[] =
    " (the form is job=host:port[,host:port...][,job=host:port...], e.g. "
    "worker=127.0.0.1:2222,127.0.0.1:2223,ps=127.0.0.1:2224)";

}  // namespace

std::string ClusterTask::Name() const {
  return absl::StrCat("/job:", job, "/replica:0/task:", task);
}

absl::StatusOr<std::pair<std::string, int>> ParseHostPort(
    absl::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("address '", address, "' has no port: write host:port"));
  }
  const absl::string_view host = address.substr(0, colon);
  const absl::string_view port_text = address.substr(colon + 1);
  int port = 0;
  if (!absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("address '", address, "': the port must be 1..65535"));
  }
  if (!IsHostName(host)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "address '", address,
        "': the host must be a name or an IPv4 address, or an IPv6 address "
        "in brackets"));
  }
  return std::make_pair(std::string(host), port);
}

absl::StatusOr<ClusterSpec> ClusterSpec::Parse(absl::string_view text) {
  ClusterSpec spec;
  std::set<std::string> addresses;
  int tasks = 0;
  const std::string stripped(absl::StripAsciiWhitespace(text));
  if (stripped.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the cluster names no jobs", kForm));
  }
  for (absl::string_view entry : absl::StrSplit(stripped, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    absl::string_view address = entry;
    if (const size_t eq = entry.find('='); eq != absl::string_view::npos) {
      const std::string job(entry.substr(0, eq));
      if (!IsJobName(job)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cluster entry '", entry, "': the job name '", job,
            "' must be lower-case letters, digits and '_', starting with a "
            "letter",
            kForm));
      }
      for (const auto& [name, unused] : spec.jobs_) {
        if (name == job) {
          return absl::InvalidArgumentError(absl::StrCat(
              "cluster entry '", entry, "': job '", job,
              "' is named twice; list all of its tasks after one '", job,
              "='"));
        }
      }
      spec.jobs_.emplace_back(job, std::vector<std::string>());
      address = entry.substr(eq + 1);
    } else if (spec.jobs_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster entry '", entry, "' comes before any job", kForm));
    }
    if (address.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster entry '", entry, "' has no address", kForm));
    }
    if (absl::StatusOr<std::pair<std::string, int>> hp = ParseHostPort(address);
        !hp.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster entry '", entry, "': ", hp.status().message()));
    }
    if (!addresses.insert(std::string(address)).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster address ", address,
          " is given to two tasks; each task needs a port of its own"));
    }
    if (++tasks > kMaxTasks) {
      return absl::InvalidArgumentError(
          absl::StrCat("the cluster has more than ", kMaxTasks, " tasks"));
    }
    spec.jobs_.back().second.emplace_back(address);
  }
  return spec;
}

std::vector<ClusterTask> ClusterSpec::Tasks() const {
  std::vector<ClusterTask> tasks;
  for (const auto& [job, addresses] : jobs_) {
    for (size_t i = 0; i < addresses.size(); ++i) {
      tasks.push_back({job, static_cast<int>(i), addresses[i]});
    }
  }
  return tasks;
}

absl::StatusOr<ClusterTask> ClusterSpec::Task(absl::string_view job,
                                              int task) const {
  std::vector<std::string> known;
  for (const auto& [name, addresses] : jobs_) {
    if (name == job && task >= 0 && task < static_cast<int>(addresses.size())) {
      return ClusterTask{name, task, addresses[task]};
    }
    known.push_back(
        absl::StrCat(name, " (tasks 0..", addresses.size() - 1, ")"));
  }
  return absl::NotFoundError(absl::StrCat("the cluster has no /job:", job,
                                          "/task:", task, "; it has ",
                                          absl::StrJoin(known, ", ")));
}

std::string ClusterSpec::ToString() const {
  std::vector<std::string> jobs;
  for (const auto& [job, addresses] : jobs_) {
    jobs.push_back(absl::StrCat(job, "=", absl::StrJoin(addresses, ",")));
  }
  return absl::StrJoin(jobs, ",");
}

std::string TaskOfDevice(const std::string& device_name) {
  const size_t start = device_name.find("/job:");
  if (start == std::string::npos) return "";
  const size_t end = device_name.find("/device:", start);
  return device_name.substr(
      start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace dflow
