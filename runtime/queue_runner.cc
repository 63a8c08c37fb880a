#include "runtime/queue_runner.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dflow {

// --- Coordinator. ---

void Coordinator::RequestStop(const absl::Status& reason) {
  std::vector<QueueRunner*> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reason.ok() && first_error_.ok()) first_error_ = reason;
    if (stop_) return;
    stop_ = true;
    runners = runners_;
  }
  stopped_cv_.notify_all();
  for (QueueRunner* runner : runners) runner->Stop();
}

bool Coordinator::ShouldStop() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void Coordinator::WaitForStop() const {
  std::unique_lock<std::mutex> lock(mu_);
  stopped_cv_.wait(lock, [this] { return stop_; });
}

absl::Status Coordinator::Join() {
  RequestStop();
  std::vector<QueueRunner*> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    runners = runners_;
  }
  for (QueueRunner* runner : runners) {
    absl::Status s = runner->Join();
    std::lock_guard<std::mutex> lock(mu_);
    if (!s.ok() && first_error_.ok()) first_error_ = s;
  }
  std::lock_guard<std::mutex> lock(mu_);
  return first_error_;
}

void Coordinator::Register(QueueRunner* runner) {
  bool stop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    runners_.push_back(runner);
    stop = stop_;
  }
  if (stop) runner->Stop();
}

// --- QueueRunner. ---

absl::StatusOr<std::unique_ptr<QueueRunner>> QueueRunner::Create(
    const QueueRunnerDef& def) {
  if (def.enqueue_op_name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "queue runner of '", def.queue_name(), "' names no enqueue op"));
  }
  return std::unique_ptr<QueueRunner>(new QueueRunner(def));
}

QueueRunner::~QueueRunner() {
  Stop();
  Join().IgnoreError();
}

absl::Status QueueRunner::Start(Session* session, Coordinator* coordinator) {
  if (!threads_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "queue runner of '", def_.queue_name(), "' was already started"));
  }
  session_ = session;
  coordinator_ = coordinator;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = def_.enqueue_op_name_size();
  }
  for (const std::string& op : def_.enqueue_op_name()) {
    threads_.emplace_back([this, op] { Loop(op); });
  }
  if (coordinator_ != nullptr) coordinator_->Register(this);
  return absl::OkStatus();
}

bool QueueRunner::IsQueueClosed(const absl::Status& s) const {
  if (def_.queue_closed_exception_types_size() == 0) {
    return s.code() == absl::StatusCode::kOutOfRange;
  }
  for (int code : def_.queue_closed_exception_types()) {
    if (static_cast<int>(s.code()) == code) return true;
  }
  return false;
}

void QueueRunner::RunOnce(const std::string& op) {
  if (op.empty()) return;
  // A close may fail once the session is closing; nothing waits on it then.
  session_->Run({}, {}, {op}, nullptr).IgnoreError();
}

void QueueRunner::Loop(const std::string& enqueue_op) {
  absl::Status error;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) break;
    }
    absl::Status s = session_->Run({}, {}, {enqueue_op}, nullptr);
    if (s.ok()) continue;
    bool stopping;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping = stopped_;
    }
    // After a stop, the cancel op's Cancelled (and any error it caused)
    // is the expected end, not a failure.
    if (!IsQueueClosed(s) && !stopping) error = s;
    break;
  }
  absl::Status reported;
  bool last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error.ok() && first_error_.ok()) {
      first_error_ =
          absl::Status(error.code(),
                       absl::StrCat("queue runner of '", def_.queue_name(),
                                    "' (", enqueue_op, "): ", error.message()));
    }
    if (!error.ok()) reported = first_error_;
    last = --running_ == 0;
  }
  // The last thread closes the queue: dequeues drain it, then end.
  if (last) RunOnce(def_.close_op_name());
  // RequestStop runs Stop, which takes mu_: report with no lock held.
  if (!reported.ok() && coordinator_ != nullptr) {
    coordinator_->RequestStop(reported);
  }
}

void QueueRunner::Stop() {
  bool cancel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel = !stopped_ && session_ != nullptr;  // once, and only if started
    stopped_ = true;
  }
  if (cancel) {
    RunOnce(def_.cancel_op_name().empty() ? def_.close_op_name()
                                          : def_.cancel_op_name());
  }
}

absl::Status QueueRunner::Join() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  return first_error_;
}

absl::Status StartQueueRunners(
    Session* session, const std::vector<QueueRunnerDef>& defs,
    Coordinator* coordinator,
    std::vector<std::unique_ptr<QueueRunner>>* runners) {
  for (const QueueRunnerDef& def : defs) {
    absl::StatusOr<std::unique_ptr<QueueRunner>> runner =
        QueueRunner::Create(def);
    if (!runner.ok()) return runner.status();
    if (absl::Status s = (*runner)->Start(session, coordinator); !s.ok()) {
      return s;
    }
    runners->push_back(*std::move(runner));
  }
  return absl::OkStatus();
}

}  // namespace dflow
