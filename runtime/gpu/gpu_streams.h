// One GPU's streams and the ordering between them.
//
// Kernels run on the compute stream; host-to-device, device-to-host and
// device-to-device (also GPU-to-GPU) copies each have a stream of their own,
// so transfers overlap computation. CUDA events order them without blocking
// the host:
//   - a copy starts after all work enqueued on the compute stream before it
//     (a D2H copy sees the result of the kernel launched just before);
//   - work enqueued on the (destination's) compute stream after an H2D,
//     D2D or peer copy starts after the copy (a kernel sees the data).
//     A D2H copy does not hold up later kernels: keep its source alive until
//     its callback runs.
// No call here waits for the GPU (except Synchronize). Completion callbacks
// run on this object's completion thread, woken by a CUDA host function
// behind each tracked operation and, as a fallback that also catches
// failed streams, by polling the operation's event every millisecond.
// Callbacks may enqueue more work here; they must not destroy this object.
//
// Host memory may be pinned or not: a pageable source or destination is
// staged through a buffer of the PinnedHostPool (a pageable
// cudaMemcpyAsync could block the caller until the GPU catches up).
//
// Calls make this GPU the current CUDA device of the calling thread.
// In a build without CUDA, Create answers Unavailable.
//
// Caches keyed by stream (cuBLAS/cuDNN handles, kernels/gpu/) register an
// "on stream destroyed" hook: a later stream may get a dead one's address,
// and must not inherit a handle whose workspace the dead stream's work may
// still be using.
#ifndef DFLOW_RUNTIME_GPU_GPU_STREAMS_H_
#define DFLOW_RUNTIME_GPU_GPU_STREAMS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/gpu/pinned_host_pool.h"

namespace dflow {

class GpuStreams {
 public:
  enum class Kind { kCompute, kHostToDevice, kDeviceToHost, kDeviceToDevice };

  // Runs once, on the completion thread, with OK or what went wrong.
  using DoneCallback = std::function<void(absl::Status)>;

  struct Options {
    // Staging buffers for pageable host memory; null: PinnedHostPool::Shared().
    PinnedHostPool* staging = nullptr;
  };

  // Streams on the GPU with this CUDA ordinal. Unavailable without CUDA or
  // GPUs, InvalidArgument for an ordinal out of range.
  static absl::StatusOr<std::unique_ptr<GpuStreams>> Create(int ordinal,
                                                            Options options);
  static absl::StatusOr<std::unique_ptr<GpuStreams>> Create(int ordinal) {
    return Create(ordinal, Options());
  }

  // Waits for the GPU to finish this object's work and for every callback.
  ~GpuStreams();
  GpuStreams(const GpuStreams&) = delete;
  GpuStreams& operator=(const GpuStreams&) = delete;

  int ordinal() const;
  // The stream as a cudaStream_t (void* keeps CUDA out of this header).
  void* stream(Kind kind) const;
  void* compute_stream() const { return stream(Kind::kCompute); }

  // `bytes` from host `src` to device `dst` of this GPU.
  void CopyHostToDevice(void* dst, const void* src, size_t bytes,
                        DoneCallback done);
  // `bytes` from device `src` of this GPU to host `dst`; `dst` holds the data
  // when `done` runs.
  void CopyDeviceToHost(void* dst, const void* src, size_t bytes,
                        DoneCallback done);
  // Within this GPU.
  void CopyDeviceToDevice(void* dst, const void* src, size_t bytes,
                          DoneCallback done);
  // From device `src` of this GPU to device `dst` of `to`'s GPU, on this
  // GPU's device-to-device stream: after both compute streams' work so far,
  // and before `to`'s later compute work. Direct with peer access enabled
  // (EnablePeerAccess), staged through host memory by CUDA otherwise. `to`
  // may be this object or another on the same physical GPU.
  void CopyToPeer(GpuStreams* to, void* dst, const void* src, size_t bytes,
                  DoneCallback done);

  // Makes stream `waiter` wait (on the GPU) for everything enqueued so far
  // on stream `waitee`.
  absl::Status WaitFor(Kind waiter, Kind waitee);
  // Calls `done` once everything enqueued so far on stream `kind` is done.
  void ThenCall(Kind kind, DoneCallback done);

  // Blocks until all four streams are idle (tests, shutdown); callbacks of
  // finished work may still be running.
  absl::Status Synchronize();

  // Copies that went through a staging buffer (pageable host memory).
  int64_t staged_copies() const;

  // --- Process-wide "on stream destroyed" hooks ---------------------------
  // Called with (CUDA ordinal, cudaStream_t) for each of an object's
  // streams by its destructor, after the streams went idle and before they
  // are destroyed, in registration order, on the destroying thread. A hook
  // must not create or destroy GpuStreams.
  using StreamDestroyedHook = std::function<void(int ordinal, void* stream)>;
  // Registers `hook` (from static initializers too); returns its id.
  static int AddStreamDestroyedHook(StreamDestroyedHook hook);
  // Unregisters hook `id` (unknown ids are ignored); it is not running and
  // will not run once this returns.
  static void RemoveStreamDestroyedHook(int id);
  // Runs every registered hook for (`ordinal`, `stream`): what the
  // destructor calls; public so the hook list is tested without a GPU.
  static void NotifyStreamDestroyed(int ordinal, void* stream);
  static int num_stream_destroyed_hooks();

 private:
  struct Impl;
  explicit GpuStreams(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_STREAMS_H_
