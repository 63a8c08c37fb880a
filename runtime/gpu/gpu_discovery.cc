#include "runtime/gpu/gpu_discovery.h"

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

std::string GpuInfo::Description() const {
  return absl::StrCat(
      "device: ", ordinal, ", name: ", name,
      ", pci bus id: ", pci_bus_id.empty() ? "none" : pci_bus_id,
      ", compute capability: ", compute_major, ".", compute_minor);
}

bool BuiltWithCuda() { return DFLOW_HAVE_CUDA != 0; }

#if DFLOW_HAVE_CUDA

namespace {

struct Census {
  int count = 0;
  absl::Status status;
};

// The first answer stands for the whole process: GPUs do not come and go
// under a running CUDA context, and asking initializes the runtime (slow).
const Census& TakeCensus() {
  static const Census* census = [] {
    auto* c = new Census;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      // Clear the sticky "last error" so later, unrelated calls don't see it.
      cudaGetLastError();
      c->status = CudaStatus(err, "looking for GPUs (cudaGetDeviceCount)");
      if (c->status.code() != absl::StatusCode::kUnavailable) {
        c->status = absl::UnavailableError(c->status.message());
      }
    } else if (n <= 0) {
      c->status = absl::UnavailableError(
          "looking for GPUs: the CUDA runtime reports 0 devices: check "
          "nvidia-smi and CUDA_VISIBLE_DEVICES, or place the work on CPU");
    } else {
      c->count = n;
    }
    return c;
  }();
  return *census;
}

absl::Status CheckOrdinal(int ordinal, absl::string_view what) {
  const Census& census = TakeCensus();
  if (!census.status.ok()) return census.status;
  if (ordinal < 0 || ordinal >= census.count) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": there is no GPU ", ordinal, "; this process sees GPUs 0..",
        census.count - 1, " (CUDA_VISIBLE_DEVICES renumbers them)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status GpusAvailable() { return TakeCensus().status; }

int VisibleGpuCount() { return TakeCensus().count; }

absl::StatusOr<GpuInfo> GetGpuInfo(int ordinal) {
  if (absl::Status s = CheckOrdinal(ordinal, "GetGpuInfo"); !s.ok()) return s;
  const std::string where = absl::StrCat(" of GPU ", ordinal);
  cudaDeviceProp prop;
  DFLOW_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal),
                             absl::StrCat("cudaGetDeviceProperties", where));
  GpuInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.total_memory = static_cast<int64_t>(prop.totalGlobalMem);
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  char bus_id[32] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal) == cudaSuccess) {
    info.pci_bus_id = bus_id;
  } else {
    cudaGetLastError();
  }
#if CUDART_VERSION >= 12020
  int numa = -1;
  if (cudaDeviceGetAttribute(&numa, cudaDevAttrHostNumaId, ordinal) ==
      cudaSuccess) {
    info.numa_node = numa;
  } else {
    cudaGetLastError();
  }
#endif
  return info;
}

absl::StatusOr<std::vector<GpuInfo>> DiscoverGpus() {
  if (absl::Status s = GpusAvailable(); !s.ok()) return s;
  std::vector<GpuInfo> gpus;
  for (int i = 0; i < VisibleGpuCount(); ++i) {
    absl::StatusOr<GpuInfo> info = GetGpuInfo(i);
    if (!info.ok()) return info.status();
    gpus.push_back(*std::move(info));
  }
  return gpus;
}

absl::StatusOr<bool> CanAccessPeer(int device, int peer) {
  if (absl::Status s = CheckOrdinal(device, "CanAccessPeer"); !s.ok()) return s;
  if (absl::Status s = CheckOrdinal(peer, "CanAccessPeer"); !s.ok()) return s;
  if (device == peer) return false;
  int can = 0;
  DFLOW_CUDA_RETURN_IF_ERROR(cudaDeviceCanAccessPeer(&can, device, peer),
                             absl::StrCat("cudaDeviceCanAccessPeer(GPU ",
                                          device, ", GPU ", peer, ")"));
  return can != 0;
}

absl::Status EnablePeerAccess(int device, int peer) {
  absl::StatusOr<bool> can = CanAccessPeer(device, peer);
  if (!can.ok()) return can.status();
  if (!*can) {
    return absl::FailedPreconditionError(
        absl::StrCat("GPU ", device, " cannot map the memory of GPU ", peer,
                     device == peer ? " (the same GPU)" : "",
                     ": copies between them go through host memory"));
  }
  const std::string where =
      absl::StrCat(" (GPU ", device, " -> GPU ", peer, ")");
  // Peer access is a property of the current device's context.
  int previous = 0;
  DFLOW_CUDA_RETURN_IF_ERROR(cudaGetDevice(&previous),
                             absl::StrCat("cudaGetDevice", where));
  DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(device),
                             absl::StrCat("cudaSetDevice", where));
  cudaError_t err = cudaDeviceEnablePeerAccess(peer, 0);
  if (err == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();  // not an error for us; don't leave it sticky
    err = cudaSuccess;
  }
  cudaSetDevice(previous);
  return CudaStatus(err, absl::StrCat("cudaDeviceEnablePeerAccess", where));
}

absl::StatusOr<std::vector<std::vector<bool>>> EnableAllPeerAccess() {
  if (absl::Status s = GpusAvailable(); !s.ok()) return s;
  const int n = VisibleGpuCount();
  std::vector<std::vector<bool>> access(n, std::vector<bool>(n, false));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      absl::StatusOr<bool> can = CanAccessPeer(i, j);
      if (!can.ok()) return can.status();
      if (!*can) continue;
      if (absl::Status s = EnablePeerAccess(i, j); !s.ok()) return s;
      access[i][j] = true;
    }
  }
  return access;
}

#else  // !DFLOW_HAVE_CUDA

absl::Status GpusAvailable() {
  return BuiltWithoutCudaError("looking for GPUs");
}

int VisibleGpuCount() { return 0; }

absl::StatusOr<std::vector<GpuInfo>> DiscoverGpus() {
  return BuiltWithoutCudaError("looking for GPUs");
}

absl::StatusOr<GpuInfo> GetGpuInfo(int) {
  return BuiltWithoutCudaError("GetGpuInfo");
}

absl::StatusOr<bool> CanAccessPeer(int, int) {
  return BuiltWithoutCudaError("CanAccessPeer");
}

absl::Status EnablePeerAccess(int, int) {
  return BuiltWithoutCudaError("EnablePeerAccess");
}

absl::StatusOr<std::vector<std::vector<bool>>> EnableAllPeerAccess() {
  return BuiltWithoutCudaError("EnableAllPeerAccess");
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace dflow
