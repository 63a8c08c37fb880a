// Queue runners and their coordinator: the threads of a TF1 input pipeline
// (tf.train.QueueRunner, tf.train.Coordinator, start_queue_runners).
//
// A QueueRunner (from a QueueRunnerDef, e.g. the "queue_runners"
// collection of a .meta) runs each of its enqueue ops in a loop on its own
// thread through a Session: string_input_producer's runner fills the file
// name queue epoch after epoch, shuffle_batch's runner reads, parses and
// enqueues examples. A thread ends cleanly when its enqueue fails with one
// of the def's queue-closed codes (OutOfRange, the end of the epochs, by
// default); when the last one ends the runner runs its close op, so
// dequeues drain the queue and then fail with OutOfRange. Any other error
// goes to the Coordinator, which stops every runner: each runs its cancel
// op (a close that also cancels pending enqueues), so no thread or step is
// left waiting. Nothing here polls or sleeps.
//
//   Coordinator coord;
//   std::vector<std::unique_ptr<QueueRunner>> runners;
//   DFLOW_RETURN_IF_ERROR(StartQueueRunners(session, meta.queue_runners,
//                                           &coord, &runners));
//   ... train until a step fails with OutOfRange ...
//   coord.RequestStop();
//   absl::Status pipeline = coord.Join();  // the first error, if any
#ifndef DFLOW_RUNTIME_QUEUE_RUNNER_H_
#define DFLOW_RUNTIME_QUEUE_RUNNER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/queue_runner.pb.h"
#include "runtime/session.h"

namespace dflow {

class QueueRunner;

class Coordinator {
 public:
  Coordinator() = default;
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // Asks every registered runner to stop (each runs its cancel op). The
  // first non-OK `reason` is kept as the pipeline's error. Idempotent.
  void RequestStop(const absl::Status& reason = absl::OkStatus());
  bool ShouldStop() const;
  // Blocks until RequestStop.
  void WaitForStop() const;
  // Requests a stop, waits for every registered runner's threads, and
  // returns the first error any thread or RequestStop reported.
  absl::Status Join();

  // QueueRunner::Start registers itself; its stop runs on RequestStop.
  // A registered runner must outlive the coordinator's last RequestStop
  // and Join.
  void Register(QueueRunner* runner);

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable stopped_cv_;
  bool stop_ = false;                  // mu_
  absl::Status first_error_;           // mu_
  std::vector<QueueRunner*> runners_;  // mu_
};

class QueueRunner {
 public:
  // Fails when the def names no enqueue op.
  static absl::StatusOr<std::unique_ptr<QueueRunner>> Create(
      const QueueRunnerDef& def);
  // Stops and joins.
  ~QueueRunner();

  // Starts one thread per enqueue op on `session` (which must outlive the
  // runner). `coordinator` may be null: errors then only end the runner.
  absl::Status Start(Session* session, Coordinator* coordinator);
  // Runs the cancel op (or the close op) once, so threads waiting in
  // enqueues end.
  void Stop();
  // Waits for the threads; the first error one of them hit.
  absl::Status Join();

  const QueueRunnerDef& def() const { return def_; }

 private:
  explicit QueueRunner(QueueRunnerDef def) : def_(std::move(def)) {}
  void Loop(const std::string& enqueue_op);
  bool IsQueueClosed(const absl::Status& s) const;
  void RunOnce(const std::string& op);

  const QueueRunnerDef def_;
  Session* session_ = nullptr;
  Coordinator* coordinator_ = nullptr;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  int running_ = 0;           // mu_
  bool stopped_ = false;      // mu_: the cancel op ran
  absl::Status first_error_;  // mu_
};

// Creates and starts a runner per def (a .meta's queue_runners).
absl::Status StartQueueRunners(
    Session* session, const std::vector<QueueRunnerDef>& defs,
    Coordinator* coordinator,
    std::vector<std::unique_ptr<QueueRunner>>* runners);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_QUEUE_RUNNER_H_
