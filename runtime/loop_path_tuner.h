// Which way an executor's loops run on a pool of more than one thread,
// chosen by timing its first steps each way. Internal to the executor
// (runtime/executor_serial_loop.h).
//
// Why measure: a plain loop (a serial loop, executor_serial_loop.h) with a
// kernel that costs more than a hand-off can run
//   kUsual            through the frame step's tables, every such kernel
//                     given to the pool, so independent kernels of an
//                     iteration (an LSTM's two gradient products) and
//                     overlapping iterations run on several threads;
//   kSerial           as one straight-line program per iteration on one
//                     thread, kernels still splitting their own loops over
//                     the pool (a large product's row panels);
//   kSerialOneThread  the same with every kernel's blocks kept on that
//                     thread (ThreadPool::ScopedRunOnCaller: the same
//                     blocks, so the same bits);
//   kOneThread        the whole step as on a pool of one thread: no node
//                     handed to the pool, inside the loops or around them,
//                     and every kernel's blocks kept on the step's thread.
// Which is fastest depends on the kernels' sizes and on what a hand-off
// costs on the host, and that differs by 100x: a pool thread that is still
// spinning starts a task in 0.1 us, one that went to sleep in 40-120 us on a
// 2-vCPU cloud VM (measured). An LSTM of 64 units there ran its training
// step in 9.6 ms the usual way, 8.5 ms serially and 7.0 ms serially on one
// thread (6.1 ms with a one-thread pool): each of its products is worth
// about one sleeping hand-off, so splitting it loses, and so do the hand-offs
// of the small products and optimizer updates around the loops. A body of
// products 16 times larger gains from both threads. No fixed threshold gets
// both right on every host; a few timed steps do.
//
// What is timed is the whole step (the loops' paths also change when the
// work around them runs), per iteration of the tuned loops in it (a loop
// to a fed bound runs a different count each step). One path per step for
// all of the executor's tuned loops: a forward loop and its gradient loop
// are alike, and one choice needs 3x fewer trial steps than one per loop.
// The schedule: one warm-up step the usual way (it also measures the
// kernels, and pays first-use costs such as oneDNN's code generation),
// then kTrialsPerPath steps of each path in turn; the path of the fastest
// step is kept for the executor's life. Values do not depend on the path
// (same kernels, same blocks), only the time does.
#ifndef DFLOW_RUNTIME_LOOP_PATH_TUNER_H_
#define DFLOW_RUNTIME_LOOP_PATH_TUNER_H_

#include <cstdint>
#include <mutex>

namespace dflow {

enum class LoopPath {
  kUsual = 0,
  kSerial = 1,
  kSerialOneThread = 2,
  kOneThread = 3
};

const char* LoopPathName(LoopPath path);

class LoopPathTuner {
 public:
  static constexpr int kPaths = 4;
  static constexpr int kWarmups = 1;
  static constexpr int kTrialsPerPath = 2;

  // The path of a new step; `*timed`: report its time with Record.
  // Thread-safe (steps of one executor may run at once).
  LoopPath Next(bool* timed);

  // A timed step of `path` took `nanos`, its tuned loops `iterations`
  // iterations in all (each instance counts at least one).
  void Record(LoopPath path, int64_t nanos, int64_t iterations);

  // Whether the trials are over, and the path they chose.
  bool decided() const;
  LoopPath chosen() const;

 private:
  mutable std::mutex mu_;
  int handed_out_ = 0;  // steps given a path while undecided
  int recorded_ = 0;    // timed steps reported
  bool decided_ = false;
  LoopPath chosen_ = LoopPath::kUsual;
  // Per path: the fastest nanoseconds per iteration seen (< 0: none yet).
  double best_[kPaths] = {-1, -1, -1, -1};
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_LOOP_PATH_TUNER_H_
