// Devices a session computes on, and the set of them.
//
// A Device has a canonical name ("/job:localhost/replica:0/task:0/device:
// CPU:0"), a type ("CPU", "GPU"), its own counting allocator, the thread
// pool its kernels use and its DeviceAttributes (what `Device mapping:`
// prints).
//
// Several logical CPU devices may share the machine (SessionOptions
// device_count {"CPU", 4}): they all compute on the one shared thread pool,
// as TensorFlow's do, and differ only in name and allocator statistics.
//
// Fake GPUs are a test device: type "GPU" (so the placer, the partitioner
// and the logs treat them exactly as GPUs), host memory, and the CPU kernels.
// Which kernels a device runs is its `kernel_device_type` attribute: "CPU"
// for a fake GPU, the device type otherwise. The kernel registry still
// requires a GPU kernel *definition* for every node run on a fake GPU, so a
// graph that runs on fake GPUs places and runs the same way on real ones.
#ifndef DFLOW_RUNTIME_DEVICE_H_
#define DFLOW_RUNTIME_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/device_spec.h"
#include "graph/tensor.h"
#include "runtime/thread_pool.h"
#include "runtime/tracking_allocator.h"

namespace dflow {

// Where a device sits in the machine. 0 means "no specific locality"; real
// localities count from 1 (TensorFlow's convention).
struct DeviceLocality {
  int bus_id = 0;
  int numa_node = 0;
};

// What a device is, as TensorFlow's DeviceAttributes.
struct DeviceAttributes {
  std::string name;         // canonical: /job:localhost/.../device:GPU:0
  std::string device_type;  // what placement matches: "CPU", "GPU"
  // Whose kernels the device runs: the device type, except for stand-ins
  // (a fake GPU runs the "CPU" kernels).
  std::string kernel_device_type;
  // Bytes the device can hold: its allocator refuses allocations beyond
  // them (ResourceExhausted naming the node). For host devices the
  // machine's physical memory unless a session set a limit
  // (SessionOptions.memory_limit_bytes).
  int64_t memory_limit = 0;
  DeviceLocality locality;
  // The right-hand side of a `Device mapping:` line, e.g. "device: 0, name:
  // host memory stand-in for a GPU, pci bus id: none".
  std::string physical_device_desc;
};

class Device {
 public:
  // `allocator` must outlive every tensor allocated from it, which may be
  // long after the device (a fetched tensor outlives its session): use
  // ProcessAllocator(). Attributes default to a host device of the spec's
  // type running that type's kernels.
  Device(DeviceSpec spec, TrackingAllocator* allocator, ThreadPool* pool);
  // `attributes.name` and `device_type` are filled from `spec` (any value
  // given is replaced); an empty kernel_device_type means the device type.
  Device(DeviceSpec spec, DeviceAttributes attributes,
         TrackingAllocator* allocator, ThreadPool* pool);
  virtual ~Device() = default;

  const std::string& name() const { return attributes_.name; }
  const std::string& type() const { return attributes_.device_type; }
  // The device type whose kernels run here (see the file comment).
  const std::string& kernel_device_type() const {
    return attributes_.kernel_device_type;
  }
  const DeviceSpec& spec() const { return spec_; }
  const DeviceAttributes& attributes() const { return attributes_; }
  TrackingAllocator* allocator() { return allocator_; }
  // Host memory for the outputs a kernel keeps on the host (a GPU kernel's
  // shape output): the device's own allocator unless set_host_allocator
  // said otherwise (a device with memory of its own must).
  TrackingAllocator* host_allocator() {
    return host_allocator_ != nullptr ? host_allocator_ : allocator_;
  }
  ThreadPool* thread_pool() const { return pool_; }

  // `t` in host memory: `t` itself, unless its buffer is this device's own
  // memory (a GPU's), which is then copied to a new host tensor once the
  // device's pending work is done. For code outside a step that reads a
  // variable's value, such as the Saver.
  virtual absl::StatusOr<Tensor> HostCopyOf(const Tensor& t) { return t; }

 protected:
  // Not owned; must outlive every tensor allocated from it (see the
  // constructor).
  void set_host_allocator(TrackingAllocator* allocator) {
    host_allocator_ = allocator;
  }

 private:
  DeviceSpec spec_;
  DeviceAttributes attributes_;
  TrackingAllocator* allocator_;
  TrackingAllocator* host_allocator_ = nullptr;
  ThreadPool* pool_;
};

// The process-wide counting allocator for host memory of the device named
// `device_short_name` ("CPU:0") that refuses to hold more than
// `limit_bytes` at once (0: the machine's physical memory). One per name
// and limit: sessions with the same limit share one, so its statistics
// count them all, as a device's memory is shared. Never destroyed, so
// tensors may outlive sessions and devices.
TrackingAllocator* ProcessAllocator(const std::string& device_short_name,
                                    int64_t limit_bytes = 0);

// Physical memory of the machine in bytes (0 if unknown).
int64_t HostMemoryBytes();

// /job:<job>/replica:0/task:<task>/device:CPU:<id> on the shared pool,
// with the allocator ProcessAllocator("CPU:<id>", memory_limit) (0: the
// machine's memory). A process serving one task of a cluster names its
// devices with that task (distributed/worker_server.h).
std::unique_ptr<Device> NewCpuDevice(int id, int64_t memory_limit = 0,
                                     const std::string& job = "localhost",
                                     int task = 0);
// /job:localhost/replica:0/task:0/device:GPU:<id>, a test device of type
// "GPU" computing on host memory (allocator ProcessAllocator("GPU:<id>"),
// separate from any CPU's) with the CPU kernels on the shared pool.
// `memory_limit` (enforced; 0: the machine's memory).
std::unique_ptr<Device> NewFakeGpuDevice(int id, int64_t memory_limit = 0);

class DeviceSet {
 public:
  struct Options {
    // Logical CPU devices CPU:0..num_cpus-1 (at least 1).
    int num_cpus = 1;
    // Fake GPUs GPU:0..num_fake_gpus-1 (see NewFakeGpuDevice).
    int num_fake_gpus = 0;
    // Bytes each fake GPU may hold (0: host_memory_limit).
    int64_t fake_gpu_memory_limit = 0;
    // Bytes each CPU device may hold (0: the machine's physical memory).
    int64_t host_memory_limit = 0;
    // The job and task in the CPU devices' names (a cluster's task; the
    // fake GPUs stay /job:localhost: they are a single-process test device).
    std::string job = "localhost";
    int task = 0;

    // "CPU:1,GPU:4" read by compiler/placement_device.h's ParseDeviceCounts
    // (GPU means fake GPUs): the device sets of `dflow run --devices` and of
    // tests. "GPU:2" alone keeps one CPU.
    static absl::StatusOr<Options> Parse(absl::string_view spec);
  };

  // One CPU device, /job:localhost/replica:0/task:0/device:CPU:0, computing
  // on the shared thread pool.
  static std::unique_ptr<DeviceSet> LocalCpu();
  // CPUs first (CPU:0 is cpu()), then fake GPUs, each type by id.
  static absl::StatusOr<std::unique_ptr<DeviceSet>> Create(
      const Options& options);

  void Add(std::unique_ptr<Device> device);
  const std::vector<std::unique_ptr<Device>>& devices() const {
    return devices_;
  }
  // The device whose canonical name is `name`, or null.
  Device* Find(absl::string_view name) const;
  // The first device matching the (possibly partial) spec, or null.
  Device* FindMatching(const DeviceSpec& pattern) const;
  // Devices of `type` ("CPU", "GPU"), in order of addition.
  std::vector<Device*> DevicesOfType(absl::string_view type) const;
  Device* cpu() const { return devices_.empty() ? nullptr : devices_[0].get(); }

 private:
  std::vector<std::unique_ptr<Device>> devices_;
};

// Device factories: how a session gets devices that live in a package above
// //runtime. runtime/gpu's GpuDevice depends on //runtime, so the session
// cannot create GPUs itself; //runtime/gpu:gpu_device_factory registers a
// factory for "GPU" from a static initializer (an alwayslink target that
// binaries wanting GPUs link, e.g. through //kernels/gpu:gpu_kernels), and
// CreateSessionDevices asks it. A binary without it, a build without CUDA
// and a machine without a GPU all have no GPU devices, and no error.

// What a session asks a factory for (SessionOptions' GPU fields, checked
// by the session before the factory sees them).
struct DeviceFactoryOptions {
  // The devices' ids start here (GPU:<first_id>...).
  int first_id = 0;
  // At most this many physical devices; -1: every visible one.
  int max_physical_devices = -1;
  // Logical devices the first physical device is split into (TensorFlow's
  // virtual devices): with `virtual_device_memory_limits` empty, that many
  // equal shares of `memory_fraction` of its free memory; otherwise one
  // logical device per limit (bytes). 0 and 1 mean no split.
  int virtual_devices = 0;
  std::vector<int64_t> virtual_device_memory_limits;
  // The share of each physical device's free memory its allocator may
  // reserve, in (0, 1]; 0: the factory's default (0.9 for GPUs, leaving
  // room for the CUDA context and library workspaces).
  double memory_fraction = 0;
  // Reserve memory as it is needed (growing regions) instead of all of it
  // on first use.
  bool allow_growth = false;
  // Float matmuls/convolutions may use TF32 (SessionOptions.gpu_allow_tf32).
  bool allow_tf32 = false;
  // log_device_placement: say on stderr why there are no devices.
  bool log = false;
};

using DeviceFactory =
    std::function<absl::StatusOr<std::vector<std::unique_ptr<Device>>>(
        const DeviceFactoryOptions& options)>;

// Makes `factory` the one for `device_type` ("GPU") and returns the one it
// replaces (null if none): tests swap in a factory of host-memory test
// devices and put the old one back. Thread-safe.
DeviceFactory SetDeviceFactory(const std::string& device_type,
                               DeviceFactory factory);
bool HasDeviceFactory(const std::string& device_type);
// The devices `device_type`'s factory makes for `options`; none (and OK)
// when no factory is registered. The factory's errors pass through.
absl::StatusOr<std::vector<std::unique_ptr<Device>>> CreateFactoryDevices(
    const std::string& device_type, const DeviceFactoryOptions& options);

// One line naming the math libraries the CPU kernels run on this host and
// the instruction set they chose ("float GEMM: oneDNN 2.6.3 (JIT
// avx512_core_bf16); ..."), which DeviceMappingString prints so that
// log_device_placement says which kernels ran. The CPU kernels set it from a
// static initializer; empty when none are linked. Thread-safe.
void SetCpuMathDescription(std::string (*describe)());
std::string CpuMathDescription();

namespace device_internal {
struct DeviceFactoryRegistrar {
  DeviceFactoryRegistrar(const char* device_type, DeviceFactory factory) {
    SetDeviceFactory(device_type, std::move(factory));
  }
};
}  // namespace device_internal

// Registers a factory from a static initializer of an alwayslink library:
//   DFLOW_REGISTER_DEVICE_FACTORY("GPU", CreateGpuDevices);
#define DFLOW_REGISTER_DEVICE_FACTORY(device_type, factory) \
  DFLOW_REGISTER_DEVICE_FACTORY_UNIQ_HELPER(__COUNTER__, device_type, factory)
#define DFLOW_REGISTER_DEVICE_FACTORY_UNIQ_HELPER(ctr, device_type, factory) \
  DFLOW_REGISTER_DEVICE_FACTORY_UNIQ(ctr, device_type, factory)
#define DFLOW_REGISTER_DEVICE_FACTORY_UNIQ(ctr, device_type, factory) \
  static const ::dflow::device_internal::DeviceFactoryRegistrar       \
      dflow_device_factory_registrar_##ctr(device_type, factory)

// TensorFlow's block, printed at session creation when placement logging is
// on: "Device mapping:\n" then "<name> -> <physical_device_desc>\n" for each
// device that has a description (every dflow device has one), or
// "Device mapping: no known devices.\n" when none has.
std::string DeviceMappingString(const DeviceSet& devices);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_DEVICE_H_
