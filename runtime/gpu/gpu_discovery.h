// Which CUDA GPUs this process can use, what they are, and whether they can
// reach each other's memory.
//
// Physical GPUs are numbered by their CUDA ordinal (0..count-1 after
// CUDA_VISIBLE_DEVICES). No CUDA types appear here, so the session can ask
// "are there GPUs?" in every build: a CPU-only build answers Unavailable
// "dflow was built without CUDA", a machine without a GPU or driver answers
// Unavailable with the CUDA error and what to check.
#ifndef DFLOW_RUNTIME_GPU_GPU_DISCOVERY_H_
#define DFLOW_RUNTIME_GPU_GPU_DISCOVERY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dflow {

// One physical GPU.
struct GpuInfo {
  int ordinal = 0;           // CUDA device ordinal
  std::string name;          // "NVIDIA H100 80GB HBM3"
  int64_t total_memory = 0;  // bytes of device memory
  int compute_major = 0;     // compute capability, e.g. 9.0
  int compute_minor = 0;
  int multiprocessors = 0;
  std::string pci_bus_id;  // "0000:1b:00.0"
  // NUMA node of the host memory closest to the GPU; -1 when unknown.
  int numa_node = -1;

  // TensorFlow's physical_device_desc: "device: 0, name: NVIDIA H100 80GB
  // HBM3, pci bus id: 0000:1b:00.0, compute capability: 9.0".
  std::string Description() const;
};

// True when this binary was compiled with the CUDA toolkit
// (DFLOW_HAVE_CUDA); says nothing about GPUs being present.
bool BuiltWithCuda();

// OK when at least one GPU is usable, else why not (Unavailable).
absl::Status GpusAvailable();

// The number of usable GPUs; 0 whenever GpusAvailable() is not OK.
int VisibleGpuCount();

// Every usable GPU in ordinal order; Unavailable (see GpusAvailable) when
// there is none.
absl::StatusOr<std::vector<GpuInfo>> DiscoverGpus();

// One GPU; InvalidArgument naming the visible range for a bad ordinal.
absl::StatusOr<GpuInfo> GetGpuInfo(int ordinal);

// Whether kernels and copies on GPU `device` can address GPU `peer`'s
// memory directly (NVLink or PCIe P2P). False for device == peer.
absl::StatusOr<bool> CanAccessPeer(int device, int peer);

// Lets GPU `device` map GPU `peer`'s memory; OK if it already could.
// FailedPrecondition when the pair does not support it: copies between them
// still work (cudaMemcpyPeerAsync stages them through host memory).
absl::Status EnablePeerAccess(int device, int peer);

// For every ordered pair (i, j), i != j, of visible GPUs: enables peer
// access where supported. Returns access[i][j] (false on the diagonal).
absl::StatusOr<std::vector<std::vector<bool>>> EnableAllPeerAccess();

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_DISCOVERY_H_
