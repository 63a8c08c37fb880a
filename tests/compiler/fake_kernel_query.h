// A KernelQuery for tests: every op has CPU and GPU kernels unless a test
// says otherwise, and no argument is in host memory unless declared.
#ifndef DFLOW_TESTS_COMPILER_FAKE_KERNEL_QUERY_H_
#define DFLOW_TESTS_COMPILER_FAKE_KERNEL_QUERY_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/kernel_query.h"

namespace dflow {

class FakeKernelQuery : public KernelQuery {
 public:
  // `op` has kernels on exactly `types` (none when empty).
  FakeKernelQuery& Kernels(std::string op, std::vector<std::string> types) {
    types_[std::move(op)] = std::move(types);
    return *this;
  }
  // `op`'s kernel on `type` keeps `args` in host memory.
  FakeKernelQuery& HostMemory(std::string op, std::string type,
                              std::vector<std::string> args) {
    host_[{std::move(op), std::move(type)}] = std::move(args);
    return *this;
  }

  std::vector<std::string> SupportedDeviceTypes(
      const Node& node) const override {
    auto it = types_.find(node.op());
    if (it != types_.end()) return it->second;
    return {"CPU", "GPU"};
  }
  std::vector<std::string> HostMemoryArgs(
      const Node& node, absl::string_view device_type) const override {
    auto it = host_.find({node.op(), std::string(device_type)});
    return it == host_.end() ? std::vector<std::string>{} : it->second;
  }

 private:
  std::map<std::string, std::vector<std::string>> types_;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> host_;
};

}  // namespace dflow

#endif  // DFLOW_TESTS_COMPILER_FAKE_KERNEL_QUERY_H_
