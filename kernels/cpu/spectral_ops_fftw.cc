#include "kernels/cpu/spectral_ops_fftw.h"

#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/kernel_util.h"

namespace dflow {
namespace fftw {
namespace {

// FFTW's two precisions behind one interface. fftw_complex is double[2],
// laid out as std::complex<double> (likewise for float), so tensors are
// passed by reinterpret_cast.
template <typename R>
struct Api;

template <>
struct Api<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static Plan C2C(int rank, const int* n, Complex* in, Complex* out,
                  int sign, unsigned flags) {
    return fftw_plan_dft(rank, n, in, out, sign, flags);
  }
  static Plan R2C(int rank, const int* n, double* in, Complex* out,
                  unsigned flags) {
    return fftw_plan_dft_r2c(rank, n, in, out, flags);
  }
  static Plan C2R(int rank, const int* n, Complex* in, double* out,
                  unsigned flags) {
    return fftw_plan_dft_c2r(rank, n, in, out, flags);
  }
  static void ExecC2C(Plan p, Complex* in, Complex* out) {
    fftw_execute_dft(p, in, out);
  }
  static void ExecR2C(Plan p, double* in, Complex* out) {
    fftw_execute_dft_r2c(p, in, out);
  }
  static void ExecC2R(Plan p, Complex* in, double* out) {
    fftw_execute_dft_c2r(p, in, out);
  }
  static void* Malloc(size_t bytes) { return fftw_malloc(bytes); }
  static void Free(void* p) { fftw_free(p); }
  static void Destroy(Plan p) { fftw_destroy_plan(p); }
};

template <>
struct Api<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static Plan C2C(int rank, const int* n, Complex* in, Complex* out,
                  int sign, unsigned flags) {
    return fftwf_plan_dft(rank, n, in, out, sign, flags);
  }
  static Plan R2C(int rank, const int* n, float* in, Complex* out,
                  unsigned flags) {
    return fftwf_plan_dft_r2c(rank, n, in, out, flags);
  }
  static Plan C2R(int rank, const int* n, Complex* in, float* out,
                  unsigned flags) {
    return fftwf_plan_dft_c2r(rank, n, in, out, flags);
  }
  static void ExecC2C(Plan p, Complex* in, Complex* out) {
    fftwf_execute_dft(p, in, out);
  }
  static void ExecR2C(Plan p, float* in, Complex* out) {
    fftwf_execute_dft_r2c(p, in, out);
  }
  static void ExecC2R(Plan p, Complex* in, float* out) {
    fftwf_execute_dft_c2r(p, in, out);
  }
  static void* Malloc(size_t bytes) { return fftwf_malloc(bytes); }
  static void Free(void* p) { fftwf_free(p); }
  static void Destroy(Plan p) { fftwf_destroy_plan(p); }
};

static_assert(sizeof(std::complex<double>) == sizeof(fftw_complex) &&
                  sizeof(std::complex<float>) == sizeof(fftwf_complex),
              "std::complex must be laid out as FFTW's complex");

enum class Kind { kForward, kBackward, kRealForward, kRealBackward };

// One planner lock for both precisions (each library has its own planner,
// but planning is rare: plans are cached).
absl::Mutex& PlannerMutex() {
  static absl::Mutex* mu = new absl::Mutex();
  return *mu;
}

// Plans past this many shapes are made and destroyed per use instead of
// kept (a graph with ever-changing FFT sizes must not grow memory).
constexpr size_t kMaxCachedPlans = 256;

struct Shape {
  int rank = 0;
  std::array<int, 3> n{};
  int64_t points = 1;  // prod(n): the real side's element count
  int64_t half_points = 1;  // prod(n[:-1]) * (n.back() / 2 + 1)
};

absl::StatusOr<Shape> ToShape(absl::Span<const int64_t> dims) {
  if (dims.empty() || dims.size() > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FFTs have rank 1, 2 or 3, not ", dims.size()));
  }
  Shape s;
  s.rank = static_cast<int>(dims.size());
  for (int i = 0; i < s.rank; ++i) {
    if (dims[i] < 1 || dims[i] > kMaxPoints) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FFT lengths must be in [1, 2^30], got [",
          absl::StrJoin(dims, ","), "]"));
    }
    s.n[i] = static_cast<int>(dims[i]);
    s.points *= dims[i];
    s.half_points *= i + 1 == s.rank ? dims[i] / 2 + 1 : dims[i];
    if (s.points > kMaxPoints) {
      return absl::InvalidArgumentError(absl::StrCat(
          "an FFT of [", absl::StrJoin(dims, ","),
          "] points is too large (at most 2^30 points per transform)"));
    }
  }
  return s;
}

// The cached plan for (kind, shape) of precision R, made on first use.
template <typename R>
class Plans {
 public:
  using Plan = typename Api<R>::Plan;

  // A plan to execute, valid until the holder is destroyed.
  class Holder {
   public:
    Holder(Plan plan, bool owned) : plan_(plan), owned_(owned) {}
    Holder(Holder&& other) noexcept
        : plan_(other.plan_), owned_(other.owned_) {
      other.owned_ = false;
    }
    Holder(const Holder&) = delete;
    Holder& operator=(const Holder&) = delete;
    Holder& operator=(Holder&&) = delete;
    ~Holder() {
      if (owned_) {
        absl::MutexLock lock(&PlannerMutex());
        Api<R>::Destroy(plan_);
      }
    }
    Plan get() const { return plan_; }

   private:
    Plan plan_;
    bool owned_;
  };

  static absl::StatusOr<Holder> Get(Kind kind, const Shape& s) {
    static Plans* plans = new Plans();
    return plans->GetOrMake(kind, s);
  }

 private:
  using Key = std::tuple<Kind, int, std::array<int, 3>>;

  absl::StatusOr<Holder> GetOrMake(Kind kind, const Shape& s) {
    const Key key{kind, s.rank, s.n};
    absl::MutexLock lock(&PlannerMutex());
    auto it = cache_.find(key);
    if (it != cache_.end()) return Holder(it->second, /*owned=*/false);
    const Plan plan = Make(kind, s);
    if (plan == nullptr) {
      return absl::InternalError(absl::StrCat(
          "FFTW could not plan a transform of [",
          absl::StrJoin(s.n.begin(), s.n.begin() + s.rank, ","), "] points"));
    }
    if (cache_.size() >= kMaxCachedPlans) return Holder(plan, /*owned=*/true);
    cache_.emplace(key, plan);
    return Holder(plan, /*owned=*/false);
  }

  // Plans on scratch arrays of the right sizes: FFTW_ESTIMATE does not
  // touch them, but in == out would make an in-place plan.
  static Plan Make(Kind kind, const Shape& s) {
    using C = typename Api<R>::Complex;
    constexpr unsigned kFlags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    const int64_t complex_points =
        kind == Kind::kRealForward || kind == Kind::kRealBackward
            ? s.half_points
            : s.points;
    C* c = static_cast<C*>(Api<R>::Malloc(sizeof(C) * complex_points));
    void* other = Api<R>::Malloc(kind == Kind::kForward ||
                                         kind == Kind::kBackward
                                     ? sizeof(C) * s.points
                                     : sizeof(R) * s.points);
    Plan plan = nullptr;
    if (c != nullptr && other != nullptr) {
      switch (kind) {
        case Kind::kForward:
          plan = Api<R>::C2C(s.rank, s.n.data(), c, static_cast<C*>(other),
                             FFTW_FORWARD, kFlags);
          break;
        case Kind::kBackward:
          plan = Api<R>::C2C(s.rank, s.n.data(), c, static_cast<C*>(other),
                             FFTW_BACKWARD, kFlags);
          break;
        case Kind::kRealForward:
          plan = Api<R>::R2C(s.rank, s.n.data(), static_cast<R*>(other), c,
                             kFlags);
          break;
        case Kind::kRealBackward:
          plan = Api<R>::C2R(s.rank, s.n.data(), c, static_cast<R*>(other),
                             kFlags | FFTW_DESTROY_INPUT);
          break;
      }
    }
    Api<R>::Free(c);
    Api<R>::Free(other);
    return plan;
  }

  std::map<Key, Plan> cache_ ABSL_GUARDED_BY(PlannerMutex());
};

// Rough cycles of one transform of n points, for sharding.
int64_t TransformCost(int64_t n) {
  return 5 * n * std::max<int64_t>(1, static_cast<int64_t>(std::log2(n)));
}

}  // namespace

template <typename R>
absl::Status ComplexToComplex(OpKernelContext* ctx,
                              absl::Span<const int64_t> dims, int64_t batch,
                              bool forward, const std::complex<R>* in,
                              std::complex<R>* out) {
  using C = typename Api<R>::Complex;
  absl::StatusOr<Shape> s = ToShape(dims);
  if (!s.ok()) return s.status();
  absl::StatusOr<typename Plans<R>::Holder> plan =
      Plans<R>::Get(forward ? Kind::kForward : Kind::kBackward, *s);
  if (!plan.ok()) return plan.status();
  const auto p = plan->get();
  const int64_t n = s->points;
  // Out of place, FFTW preserves a c2c transform's input.
  C* src = reinterpret_cast<C*>(const_cast<std::complex<R>*>(in));
  C* dst = reinterpret_cast<C*>(out);
  ParallelForShards(ctx, batch, TransformCost(n),
                    [=](int64_t b0, int64_t b1) {
                      for (int64_t b = b0; b < b1; ++b) {
                        Api<R>::ExecC2C(p, src + b * n, dst + b * n);
                      }
                    });
  return absl::OkStatus();
}

template <typename R>
absl::Status RealToComplex(OpKernelContext* ctx,
                           absl::Span<const int64_t> dims, int64_t batch,
                           const R* in, std::complex<R>* out) {
  using C = typename Api<R>::Complex;
  absl::StatusOr<Shape> s = ToShape(dims);
  if (!s.ok()) return s.status();
  absl::StatusOr<typename Plans<R>::Holder> plan =
      Plans<R>::Get(Kind::kRealForward, *s);
  if (!plan.ok()) return plan.status();
  const auto p = plan->get();
  const int64_t n = s->points, h = s->half_points;
  // Out of place, FFTW preserves an r2c transform's input.
  R* src = const_cast<R*>(in);
  C* dst = reinterpret_cast<C*>(out);
  ParallelForShards(ctx, batch, TransformCost(n),
                    [=](int64_t b0, int64_t b1) {
                      for (int64_t b = b0; b < b1; ++b) {
                        Api<R>::ExecR2C(p, src + b * n, dst + b * h);
                      }
                    });
  return absl::OkStatus();
}

template <typename R>
absl::Status ComplexToReal(OpKernelContext* ctx,
                           absl::Span<const int64_t> dims, int64_t batch,
                           const std::complex<R>* in, R* out) {
  using C = typename Api<R>::Complex;
  absl::StatusOr<Shape> s = ToShape(dims);
  if (!s.ok()) return s.status();
  absl::StatusOr<typename Plans<R>::Holder> plan =
      Plans<R>::Get(Kind::kRealBackward, *s);
  if (!plan.ok()) return plan.status();
  const auto p = plan->get();
  const int64_t n = s->points, h = s->half_points;
  ParallelForShards(ctx, batch, TransformCost(n),
                    [=](int64_t b0, int64_t b1) {
                      // c2r transforms overwrite their input.
                      std::vector<std::complex<R>> scratch(h);
                      for (int64_t b = b0; b < b1; ++b) {
                        std::copy(in + b * h, in + (b + 1) * h,
                                  scratch.begin());
                        Api<R>::ExecC2R(p,
                                        reinterpret_cast<C*>(scratch.data()),
                                        out + b * n);
                      }
                    });
  return absl::OkStatus();
}

#define DFLOW_INSTANTIATE_FFTW(R)                                            \
  template absl::Status ComplexToComplex<R>(                                 \
      OpKernelContext*, absl::Span<const int64_t>, int64_t, bool,            \
      const std::complex<R>*, std::complex<R>*);                             \
  template absl::Status RealToComplex<R>(OpKernelContext*,                   \
                                         absl::Span<const int64_t>, int64_t, \
                                         const R*, std::complex<R>*);        \
  template absl::Status ComplexToReal<R>(OpKernelContext*,                   \
                                         absl::Span<const int64_t>, int64_t, \
                                         const std::complex<R>*, R*)

DFLOW_INSTANTIATE_FFTW(float);
DFLOW_INSTANTIATE_FFTW(double);

#undef DFLOW_INSTANTIATE_FFTW

}  // namespace fftw
}  // namespace dflow
