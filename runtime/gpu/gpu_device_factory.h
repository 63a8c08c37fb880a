// The "GPU" device factory sessions ask for real GPUs (runtime/device.h:
// //runtime cannot depend on runtime/gpu, so this registers itself).
//
// Linking //runtime/gpu:gpu_device_factory (alwayslink; //kernels/gpu:
// gpu_kernels links it) makes every session see the visible GPUs:
// GPU:0..N-1 in CUDA ordinal order, at most device_count["GPU"] physical
// ones, physical GPU 0 split into virtual devices when SessionOptions asks
// (gpu_virtual_devices / gpu_virtual_device_memory_limits). Without CUDA or
// without a GPU there are none, and no error.
//
// Each logical device allocates from its own BfcAllocator over cudaMalloc
// (CudaSubAllocator) with a hard limit: an equal share of
// gpu_memory_fraction (default 0.9) of the GPU's free memory, or the
// explicit virtual-device limit. Tensors may outlive their session (a
// fetched value, a variable read), so the allocators are the process's,
// kept in a GpuAllocatorPool: a later session with the same GPU options
// reuses them (and their cached memory); one asking for other limits gets
// new ones, after the pool has released the old ones if no session uses
// them and no tensor holds their memory (otherwise both coexist, and the
// new ones may run out of memory sooner).
#ifndef DFLOW_RUNTIME_GPU_GPU_DEVICE_FACTORY_H_
#define DFLOW_RUNTIME_GPU_GPU_DEVICE_FACTORY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device.h"
#include "runtime/gpu/bfc_allocator.h"
#include "runtime/tracking_allocator.h"

namespace dflow {

// The share of a GPU's free memory a device takes when the session does not
// say (TensorFlow takes nearly all; the rest is for the CUDA context,
// cuBLAS/cuDNN workspaces and NCCL buffers).
inline constexpr double kDefaultGpuMemoryFraction = 0.9;

// One logical GPU device a session gets.
struct GpuDevicePlan {
  int id = 0;       // GPU:<id>
  int ordinal = 0;  // the physical GPU's CUDA ordinal
  int virtual_index = 0;
  int virtual_count = 1;  // logical devices on this physical GPU
};

// The logical devices `options` asks for on a machine with `num_gpus`
// visible GPUs: at most options.max_physical_devices of them (-1: all),
// the first split into options.virtual_devices when that is > 1, ids from
// options.first_id in order. Pure: tested without a GPU.
std::vector<GpuDevicePlan> PlanGpuDevices(const DeviceFactoryOptions& options,
                                          int num_gpus);

// The process's GPU allocators (see the file comment). Thread-safe.
class GpuAllocatorPool {
 public:
  // Where regions come from for a physical GPU (CudaSubAllocator; tests:
  // HostSubAllocator).
  using SubAllocatorFactory =
      std::function<std::unique_ptr<SubAllocator>(int ordinal)>;
  // The free bytes of a physical GPU now (cudaMemGetInfo).
  using FreeMemoryFn = std::function<absl::StatusOr<int64_t>(int ordinal)>;

  // What a session's devices on one physical GPU hold: one allocator per
  // logical device, and the lease (drop it when the devices go).
  struct Lease {
    std::vector<TrackingAllocator*> allocators;  // counting wrappers
    std::vector<BfcAllocator*> bfc;              // what they wrap
    std::vector<int64_t> limits;                 // bytes
    std::shared_ptr<const void> hold;
  };

  GpuAllocatorPool(SubAllocatorFactory sub_allocators,
                   FreeMemoryFn free_memory);
  // Allocators still in use or holding memory are lost with the pool; the
  // global pool is never destroyed.
  ~GpuAllocatorPool();
  GpuAllocatorPool(const GpuAllocatorPool&) = delete;
  GpuAllocatorPool& operator=(const GpuAllocatorPool&) = delete;

  // cudaMalloc and cudaMemGetInfo: what sessions use.
  static GpuAllocatorPool* Global();

  // Allocators for the `count` logical devices GPU:<first_id>... of
  // physical GPU `ordinal`: with `explicit_limits` empty, equal shares of
  // `memory_fraction` of its free memory, else those limits
  // (VirtualDeviceLimits' rules and errors). The same arguments again give
  // the same allocators.
  absl::StatusOr<Lease> Acquire(int ordinal, int first_id, int count,
                                const std::vector<int64_t>& explicit_limits,
                                double memory_fraction, bool allow_growth);

  // Allocator groups kept (in use or not), for tests.
  int num_groups() const;

 private:
  struct Group;
  SubAllocatorFactory sub_allocators_;
  FreeMemoryFn free_memory_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Group>> groups_;  // mu_
};

// The factory: every device PlanGpuDevices gives for the visible GPUs, with
// GpuAllocatorPool::Global()'s allocators. No GPUs (or no CUDA): none, and
// with options.log a line on stderr saying why. Peer access is enabled
// between every pair of GPUs that supports it.
absl::StatusOr<std::vector<std::unique_ptr<Device>>> CreateGpuDevices(
    const DeviceFactoryOptions& options);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_DEVICE_FACTORY_H_
