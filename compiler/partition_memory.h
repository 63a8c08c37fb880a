// Memory types for partitioning: which edges inside one device join host
// memory and device memory, and so need a host<->device copy.
//
// A GPU kernel may keep some arguments in host memory (Reshape's `shape`,
// Shape's `output`, every argument of TensorFlow's int32 kernels): the host
// reads them, or they are too small to be worth the device. When such an
// argument meets one in device memory on an edge between two nodes of the
// same GPU, the value has to be copied; the partition pass inserts the copy
// as a node (_HostToDevice, _DeviceToHost) so the executor, step stats and
// timelines see it like any op.
//
// The compiler never links kernels: it learns the kernels' host-memory
// arguments through KernelQuery::HostMemoryArgs (argument names of the op,
// mapped here to flat input/output indices through the node's OpDef, list
// arguments included). On the host's own device type ("CPU") all memory is
// host memory, so nothing is ever copied there.
#ifndef DFLOW_COMPILER_PARTITION_MEMORY_H_
#define DFLOW_COMPILER_PARTITION_MEMORY_H_

#include <string>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/kernel_query.h"
#include "graph/graph.h"

namespace dflow {

// Whether devices of `device_type` compute on memory of their own, apart
// from the host's: every type but "CPU" ("" too, an unknown type, gets no
// copies). A fake GPU computes on host memory, but is placed and
// partitioned as a GPU, so its partitions carry the copies a real GPU
// needs; its copy kernels forward the buffer.
bool HasOwnMemory(absl::string_view device_type);

// For every data input and output of a node: true where its kernel keeps
// that value in host memory.
struct HostMemoryMap {
  std::vector<bool> inputs;
  std::vector<bool> outputs;
};

// The host-memory map of `node` on a device of `device_type`: the
// arguments `kernels` names in host memory, each covering all the values of
// a list argument. Arguments named that the op does not have are ignored
// (the registry validates its definitions). Errors when the node's list
// lengths cannot be read from its attrs, naming the node.
absl::StatusOr<HostMemoryMap> HostMemoryOf(const Node& node,
                                           const KernelQuery& kernels,
                                           absl::string_view device_type);

enum class MemoryCopy { kNone, kHostToDevice, kDeviceToHost };

// Answers, for data edges whose two ends run on one device, which copy the
// edge needs. Each node's map is computed once.
class MemoryCopyAnalysis {
 public:
  explicit MemoryCopyAnalysis(const KernelQuery& kernels) : kernels_(kernels) {}

  // The copy data edge `edge` needs when both its ends run on a device of
  // `device_type`. kNone on a device type without memory of its own, and
  // for values that cannot or need not be copied: a reference consumed as a
  // reference (it is used in place; the placer colocates such pairs and the
  // kernels declare both ends alike), and strings and resource handles,
  // which live in host memory on every device. A reference read as a value
  // is copied as the value.
  absl::StatusOr<MemoryCopy> CopyFor(const Edge& edge,
                                     absl::string_view device_type);

  // Whether data edge `edge`'s consumer, on a device of `device_type`,
  // reads the value in host memory where device memory is the default.
  // False on a device type without memory of its own and for the values
  // CopyFor never copies (references consumed as references, strings,
  // resource handles). The partitioner asks this of the consumers of a
  // _Recv: when some read host memory and some device memory, the _Recv
  // delivers device memory and the host readers get a _DeviceToHost.
  absl::StatusOr<bool> ReadsHostMemory(const Edge& edge,
                                       absl::string_view device_type);

 private:
  absl::StatusOr<const HostMemoryMap*> MapOf(const Node& node,
                                             absl::string_view device_type);

  const KernelQuery& kernels_;
  // By node id; a node runs on one device, so one map each. node_hash_map:
  // MapOf hands out pointers to entries, which must stay where they are
  // while the map grows (a flat_hash_map moves them).
  absl::node_hash_map<int, HostMemoryMap> maps_;
};

}  // namespace dflow

#endif  // DFLOW_COMPILER_PARTITION_MEMORY_H_
