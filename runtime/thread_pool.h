// The process's one pool of worker threads, shared by inter-op scheduling
// (the executor runs expensive kernels on it) and intra-op parallelism
// (kernels split their loops over it). One pool sized to the machine's cores
// means the two kinds of work never oversubscribe the CPU: PyTorch on this
// kind of machine got 3x slower with 2 threads than with 1 on the seed MLP
// because its pools fought each other.
#ifndef DFLOW_RUNTIME_THREAD_POOL_H_
#define DFLOW_RUNTIME_THREAD_POOL_H_

#include <cstdint>
#include <functional>
#include <memory>

namespace Eigen {
class ThreadPoolInterface;
}  // namespace Eigen

namespace dflow {

class ThreadPool {
 public:
  // The most workers a pool may have. Every worker reserves a stack and
  // per-thread allocator caches, so a mistyped count (--threads 99999999)
  // would exhaust memory or crash creating threads; 4096 is far more than
  // any machine's cores.
  static constexpr int kMaxThreads = 4096;

  // `num_threads` workers (0: one per core), at most kMaxThreads (more are
  // clamped: callers taking a count from users reject it first). With 1,
  // work runs inline.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The process-wide pool, one thread per core (DFLOW_NUM_THREADS overrides).
  static ThreadPool* Shared();
  // Sizes the shared pool; only possible before its first use. Returns
  // false (and changes nothing) if it already exists with another size.
  static bool ConfigureShared(int num_threads);

  int num_threads() const { return num_threads_; }

  // Runs `fn` on a worker (inline when the pool has one thread).
  void Schedule(std::function<void()> fn);

  // Calls fn(begin, end) over [0, total) in blocks, in parallel, and returns
  // when all are done. `cost_per_unit` (roughly cycles per element) decides
  // how many blocks are worth it: small loops run inline on the caller.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn);
  // Calls fn(u) for every u in [0, units), each unit claimed on its own by
  // the caller or one of up to num_threads() - 1 helpers, and returns when
  // all are done. For units each worth a hand-off (a GEMM's row panels):
  // a helper that starts late, its thread busy with another kernel, takes
  // only the units still left instead of a fixed share the caller waits on.
  void ParallelForEach(int64_t units, const std::function<void(int64_t)>& fn);

  // While one is alive on a thread, ParallelFor and ParallelForEach called
  // from that thread run every block there, in the blocks they would split
  // the work into anyway (so the results keep their bits): for callers that
  // measured a hand-off costing more than it saves, such as a loop of small
  // products on a host whose idle threads wake slowly
  // (runtime/loop_path_tuner.h). Schedule is unaffected.
  class ScopedRunOnCaller {
   public:
    ScopedRunOnCaller();
    ~ScopedRunOnCaller();
    ScopedRunOnCaller(const ScopedRunOnCaller&) = delete;
    ScopedRunOnCaller& operator=(const ScopedRunOnCaller&) = delete;

   private:
    bool previous_;
  };

  // There is deliberately no Eigen ThreadPoolDevice here: its parallelFor
  // blocks the caller until queued blocks run, which deadlocks when kernels
  // already occupy every worker. Kernels split work with ParallelFor and
  // evaluate each block on Eigen's default (single-threaded) device.

 private:
  // Splits [0, total) into `blocks` equal blocks claimed from a counter by
  // the caller and `helpers` scheduled workers.
  void RunClaimedBlocks(int64_t total, int64_t blocks, int64_t helpers,
                        const std::function<void(int64_t, int64_t)>& fn);

  int num_threads_;
  std::unique_ptr<Eigen::ThreadPoolInterface> pool_;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_THREAD_POOL_H_
