#include "tests/runtime/test_kernels.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "graph/op_registry.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

absl::Mutex log_mu;
std::vector<std::string>* log_entries = new std::vector<std::string>;
std::atomic<int64_t> sleeps_finished{0};
std::mutex hook_mu;  // std's, for ThreadSanitizer (see meet_mu)
std::function<void()>* hook = new std::function<void()>;  // guarded by it

DFLOW_REGISTER_OP("TestAddOne")
    .Input("x: float")
    .Output("y: float")
    .Attr("cheap: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape);
DFLOW_REGISTER_OP("TestLog").SetIsStateful();
DFLOW_REGISTER_OP("TestFail").Input("x: float").Output("y: float");
DFLOW_REGISTER_OP("TestSleep")
    .Input("x: float")
    .Output("y: float")
    .Attr("ms: int")
    .SetShapeFn(shape_fns::UnchangedShape);
DFLOW_REGISTER_OP("TestAsyncAddOne")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_fns::UnchangedShape);
DFLOW_REGISTER_OP("TestNeverDone").Input("x: float").Output("y: float");
DFLOW_REGISTER_OP("TestHook")
    .Input("x: float")
    .Output("y: float")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape);
DFLOW_REGISTER_OP("TestMeet")
    .Input("x: float")
    .Output("y: float")
    .Attr("parties: int")
    .SetIsStateful()  // two alike must stay two nodes (no CSE)
    .SetShapeFn(shape_fns::UnchangedShape);

class AddOne : public OpKernel {
 public:
  explicit AddOne(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("cheap", &cheap_));
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto src = in.flat<float>();
    auto dst = out->flat<float>();
    for (size_t i = 0; i < src.size(); ++i) dst[i] = src[i] + 1.0f;
  }
  bool IsExpensive() const override { return !cheap_; }

 private:
  bool cheap_ = false;
};

class Log : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {
    absl::MutexLock lock(&log_mu);
    log_entries->push_back(name());
  }
};

class Fail : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InvalidArgumentError("boom"));
  }
};

// TestMeet: each kernel waits until `parties` TestMeet kernels (counted
// process-wide, in groups) have started, so a step finishes only if they
// ran at the same time, on different threads. Fails after 60 s instead of
// hanging: a wait that long means they ran one after another.
// std::mutex, not absl::Mutex: ThreadSanitizer sees std's locking, and
// not the uninstrumented Abseil's (tools/tsan_suppressions.txt).
std::mutex meet_mu;
std::condition_variable meet_cv;
int64_t meet_arrived = 0;  // guarded by meet_mu

class Meet : public OpKernel {
 public:
  explicit Meet(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("parties", &parties_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      std::unique_lock<std::mutex> lock(meet_mu);
      const int64_t me = ++meet_arrived;
      const int64_t target = ((me - 1) / parties_ + 1) * parties_;
      meet_cv.notify_all();
      if (!meet_cv.wait_for(lock, std::chrono::seconds(60),
                            [&] { return meet_arrived >= target; })) {
        ctx->SetStatus(absl::DeadlineExceededError(absl::StrCat(
            name(), ": the other ", parties_ - 1,
            " TestMeet kernel(s) did not start within 60 s: they did not run "
            "in parallel with this one")));
        return;
      }
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  int64_t parties_ = 2;
};

class Sleep : public OpKernel {
 public:
  explicit Sleep(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("ms", &ms_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::SleepFor(absl::Milliseconds(ms_));
    ctx->set_output(0, ctx->input(0));
    sleeps_finished.fetch_add(1);
  }

 private:
  int64_t ms_ = 0;
};

class AsyncAddOne : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::thread([ctx, done] {
      Tensor in = ctx->input(0);
      Tensor* out;
      if (ctx->allocate_output(0, in.shape(), &out).ok()) {
        for (size_t i = 0; i < in.flat<float>().size(); ++i) {
          out->flat<float>()[i] = in.flat<float>()[i] + 1.0f;
        }
      }
      done();
    }).detach();
  }
};

class Hook : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::function<void()> call;
    {
      std::lock_guard<std::mutex> lock(hook_mu);
      call = *hook;
    }
    if (call) call();
    ctx->set_output(0, ctx->input(0));
  }
};

class NeverDone : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext*, DoneCallback) override {}
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestAddOne").Device(kDeviceCpu),
                      AddOne);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestLog").Device(kDeviceCpu), Log);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestFail").Device(kDeviceCpu), Fail);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestSleep").Device(kDeviceCpu), Sleep);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestMeet").Device(kDeviceCpu), Meet);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestAsyncAddOne").Device(kDeviceCpu),
                      AsyncAddOne);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestNeverDone").Device(kDeviceCpu),
                      NeverDone);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TestHook").Device(kDeviceCpu), Hook);

}  // namespace

int64_t TestSleepsFinished() { return sleeps_finished.load(); }

void SetTestHook(std::function<void()> new_hook) {
  std::lock_guard<std::mutex> lock(hook_mu);
  *hook = std::move(new_hook);
}

std::vector<std::string> TakeTestLog() {
  absl::MutexLock lock(&log_mu);
  std::vector<std::string> out = std::move(*log_entries);
  log_entries->clear();
  return out;
}

}  // namespace dflow
