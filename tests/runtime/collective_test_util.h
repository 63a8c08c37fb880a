// Shared helpers for the collective executor tests (collective_test.cc and
// collective_failure_test.cc): device names, a latch, the shared pool, the
// members of an instance and running them from threads, random tensors and
// the ring's reference results computed here.
#ifndef DFLOW_TESTS_RUNTIME_COLLECTIVE_TEST_UTIL_H_
#define DFLOW_TESTS_RUNTIME_COLLECTIVE_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_context.h"
#include "runtime/collective_executor.h"
#include "runtime/collective_registry.h"
#include "runtime/collective_ring.h"
#include "runtime/collective_roster.h"
#include "runtime/collective_timer.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace testing_collective {

inline std::string Cpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

// Counts callbacks down; Wait() returns when all came.
class Latch {
 public:
  explicit Latch(int n) : n_(n) {}
  void CountDown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--n_ == 0) cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return n_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_;
};

inline ThreadPool* Pool() {
  static ThreadPool* pool = new ThreadPool(4);
  return pool;
}

// One member's side of an instance.
struct Member {
  std::string device;
  Tensor input;
  Tensor output;
  absl::Status status;
};

struct Instance {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Reduction reduction = Reduction::kSum;
  int64_t group_key = 1;
  int64_t instance_key = 1;
  int64_t step_id = 1;
  absl::Duration timeout = absl::InfiniteDuration();
};

inline CollectiveRequest MakeRequest(const Instance& inst, CollectiveKind kind,
                              int64_t group_size, Member* m, Latch* latch) {
  CollectiveRequest r;
  r.kind = kind;
  r.reduction = inst.reduction;
  r.group_size = group_size;
  r.group_key = inst.group_key;
  r.instance_key = inst.instance_key;
  r.step_id = inst.step_id;
  r.timeout = inst.timeout;
  r.device = m->device;
  r.node = absl::StrCat("node_on_", m->device.substr(m->device.size() - 5));
  r.input = m->input;
  r.output = m->output;
  r.done = [m, latch](const absl::Status& s) {
    // A copy of its own: one shared with the executor's would be released on
    // a pool thread (see CollectiveExecutor::Deliver).
    m->status = absl::Status(s.code(), std::string(s.message()));
    latch->CountDown();
  };
  return r;
}

// Submits every member (in `order`, from `threads` threads round-robin) and
// waits for all callbacks. Members' outputs must be allocated.
inline void RunInstance(CollectiveExecutor* exec, const Instance& inst,
                 std::vector<Member>* members, const std::vector<int>& order,
                 int threads = 1, int sender = -1) {
  const int n = static_cast<int>(members->size());
  Latch latch(n);
  auto kind_of = [&](int i) {
    if (inst.kind != CollectiveKind::kBroadcastSend &&
        inst.kind != CollectiveKind::kBroadcastRecv) {
      return inst.kind;
    }
    return i == sender ? CollectiveKind::kBroadcastSend
                       : CollectiveKind::kBroadcastRecv;
  };
  if (threads <= 1) {
    for (int i : order) {
      exec->Submit(MakeRequest(inst, kind_of(i), n, &(*members)[i], &latch));
    }
  } else {
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, t] {
        for (size_t k = t; k < order.size(); k += threads) {
          const int i = order[k];
          exec->Submit(
              MakeRequest(inst, kind_of(i), n, &(*members)[i], &latch));
        }
      });
    }
    for (std::thread& t : ts) t.join();
  }
  latch.Wait();
}

inline std::vector<int> Iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

template <typename T>
inline Tensor Random(int64_t n, std::mt19937* rng) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({n}));
  T* p = t.data<T>();
  if constexpr (std::is_floating_point_v<T>) {
    // Wide magnitudes, so the order of additions shows in the bits.
    std::uniform_real_distribution<double> mant(-1, 1);
    std::uniform_int_distribution<int> exp(-20, 20);
    for (int64_t i = 0; i < n; ++i) {
      p[i] = static_cast<T>(std::ldexp(mant(*rng), exp(*rng)));
    }
  } else {
    std::uniform_int_distribution<int64_t> d(-1000, 1000);
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(d(*rng));
  }
  return t;
}

// The all-reduce's result computed the plain way: every element combined
// in rank order.
template <typename T>
inline std::vector<T> RingReference(Reduction r, const std::vector<Member>& m) {
  const int n = static_cast<int>(m.size());
  const int64_t len = m[0].input.NumElements();
  std::vector<T> out(len);
  for (int64_t i = 0; i < len; ++i) {
    T acc = m[0].input.data<T>()[i];
    for (int k = 1; k < n; ++k) {
      const T x = m[k].input.data<T>()[i];
      if (r == Reduction::kMax) {
        acc = (acc > x || acc != acc) ? acc : x;
      } else {
        acc = acc + x;
      }
    }
    if (r == Reduction::kMean) acc = acc / static_cast<T>(n);
    out[i] = acc;
  }
  return out;
}

template <typename T>
inline std::vector<Member> MakeMembers(int n, int64_t len, std::mt19937* rng,
                                int64_t out_len = -1) {
  std::vector<Member> members(n);
  for (int i = 0; i < n; ++i) {
    members[i].device = Cpu(i);
    members[i].input = Random<T>(len, rng);
    members[i].output = Tensor(DataTypeToEnum<T>::value,
                               TensorShape({out_len < 0 ? len : out_len}));
  }
  return members;
}

template <typename T>
inline bool BitwiseEqual(const Tensor& t, const std::vector<T>& v) {
  return t.NumElements() == static_cast<int64_t>(v.size()) &&
         (v.empty() ||
          std::memcmp(t.raw_data(), v.data(), v.size() * sizeof(T)) == 0);
}

}  // namespace testing_collective
}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_COLLECTIVE_TEST_UTIL_H_
