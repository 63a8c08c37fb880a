// Optimizer updates on the CPU: ApplyGradientDescent, ApplyMomentum,
// ApplyAdam, ApplyAdaMax, ApplyAdagrad(V2), Apply(Centered)RMSProp and their
// ResourceApply* twins, ResourceApplyKerasMomentum and
// ResourceApplyAdamWithAmsgrad (the sparse forms
// are in training_ops_sparse.cc), for float and double, with
// TensorFlow's formulas (written in the same order of operations as
// TensorFlow's CPU functors, so results agree to the last bit or nearly).
//
// How a step updates its variables (var, and accum or m and v):
// - The value inputs (scalars, gradient) are read first: reading one may
//   lock another variable (a gradient fed straight from a variable), and
//   doing that while holding our own locks could deadlock.
// - Every variable the op touches is locked at once with std::lock (after
//   dropping repeats: the same variable twice is legal), so two ops locking
//   overlapping variables in different orders never deadlock. The lock is
//   taken whatever use_locking says: replacing a shared buffer (below) needs
//   it, and an uncontended lock costs nothing next to the pass over the
//   data.
// - One fused pass computes every new value. A variable whose buffer is
//   shared (Tensor::RefCount() > 1: a reader's snapshot still holds it) is
//   not changed in place: the pass reads the old buffer and writes a fresh
//   one, which then replaces the variable's value, so the reader keeps the
//   old values (the copy on write of AssignAdd, without a separate copy).
// - The pass runs over blocks of kBlock elements: the two or three
//   statements of Momentum and Adam each touch a block that is still in L1
//   when the next statement reads it, so memory sees a single pass. Each
//   statement is an Eigen expression (vectorized, sqrt and division
//   included). Tensors above kMinParallelElements are split across the
//   device's thread pool with ParallelForShards.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_state.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Elements per block of the fused pass: a block of every operand (up to
// five arrays of 2048 doubles, 80 KiB) stays within L1/L2 between the
// statements that update it.
constexpr int64_t kBlock = 2048;
// Below this many elements a step runs on the calling thread: handing work
// to the pool costs more than a pass over 32k elements.
constexpr int64_t kMinParallelElements = 32768;

// Which optimizer a kernel applies.
enum class Algorithm {
  kGradientDescent,
  kMomentum,
  kKerasMomentum,
  kAdam,
  kAdamWithAmsgrad,
  kAdaMax,
  kAdagrad,
  kAdagradV2,
  kRMSProp,
  kCenteredRMSProp
};

// The inputs of each optimizer's ops (reference and resource forms share
// the layout): the variables first, then the scalars and the gradient.
template <Algorithm A>
struct Layout;
template <>
struct Layout<Algorithm::kGradientDescent> {
  static constexpr int kNumVars = 1;
  static constexpr std::array<int, 1> kScalars = {1};  // alpha
  static constexpr int kGrad = 2;                      // delta
};
template <>
struct Layout<Algorithm::kMomentum> {
  static constexpr int kNumVars = 2;                      // var, accum
  static constexpr std::array<int, 2> kScalars = {2, 4};  // lr, momentum
  static constexpr int kGrad = 3;
};
template <>
struct Layout<Algorithm::kKerasMomentum> : Layout<Algorithm::kMomentum> {};
template <>
struct Layout<Algorithm::kAdam> {
  static constexpr int kNumVars = 3;  // var, m, v
  // beta1_power, beta2_power, lr, beta1, beta2, epsilon
  static constexpr std::array<int, 6> kScalars = {3, 4, 5, 6, 7, 8};
  static constexpr int kGrad = 9;
};
template <>
struct Layout<Algorithm::kAdamWithAmsgrad> {
  static constexpr int kNumVars = 4;  // var, m, v, vhat
  // beta1_power, beta2_power, lr, beta1, beta2, epsilon
  static constexpr std::array<int, 6> kScalars = {4, 5, 6, 7, 8, 9};
  static constexpr int kGrad = 10;
};
template <>
struct Layout<Algorithm::kAdaMax> {
  static constexpr int kNumVars = 3;  // var, m, v
  // beta1_power, lr, beta1, beta2, epsilon
  static constexpr std::array<int, 5> kScalars = {3, 4, 5, 6, 7};
  static constexpr int kGrad = 8;
};
template <>
struct Layout<Algorithm::kAdagrad> {
  static constexpr int kNumVars = 2;                   // var, accum
  static constexpr std::array<int, 1> kScalars = {2};  // lr
  static constexpr int kGrad = 3;
};
template <>
struct Layout<Algorithm::kAdagradV2> {
  static constexpr int kNumVars = 2;                      // var, accum
  static constexpr std::array<int, 2> kScalars = {2, 3};  // lr, epsilon
  static constexpr int kGrad = 4;
};
template <>
struct Layout<Algorithm::kRMSProp> {
  static constexpr int kNumVars = 3;  // var, ms, mom
  // lr, rho, momentum, epsilon
  static constexpr std::array<int, 4> kScalars = {3, 4, 5, 6};
  static constexpr int kGrad = 7;
};
template <>
struct Layout<Algorithm::kCenteredRMSProp> {
  static constexpr int kNumVars = 4;  // var, mg, ms, mom
  static constexpr std::array<int, 4> kScalars = {4, 5, 6, 7};
  static constexpr int kGrad = 8;
};

// The operands of one pass: for each variable the buffer read and the one
// written (the same buffer when updating in place), the gradient, and the
// scalars in input order.
template <typename T, int kNumVars, int kNumScalars>
struct Operands {
  std::array<const T*, kNumVars> in;
  std::array<T*, kNumVars> out;
  const T* grad;
  std::array<T, kNumScalars> scalars;
  bool use_nesterov;
  bool update_slots;  // Adagrad: false leaves accum as it is
};

template <typename T>
ConstEigenTensorMap<T, 1> In(const T* p, int64_t begin, int64_t end) {
  return ConstEigenTensorMap<T, 1>(p + begin, end - begin);
}
template <typename T>
EigenTensorMap<T, 1> Out(T* p, int64_t begin, int64_t end) {
  return EigenTensorMap<T, 1>(p + begin, end - begin);
}

// One block [begin, end) of each optimizer's update.
template <typename T>
void GradientDescentBlock(const Operands<T, 1, 1>& o, int64_t begin,
                          int64_t end) {
  const T alpha = o.scalars[0];
  Out(o.out[0], begin, end) =
      In(o.in[0], begin, end) - In(o.grad, begin, end) * alpha;
}

template <typename T>
void MomentumBlock(const Operands<T, 2, 2>& o, int64_t begin, int64_t end) {
  const T lr = o.scalars[0];
  const T momentum = o.scalars[1];
  auto grad = In(o.grad, begin, end);
  auto accum = Out(o.out[1], begin, end);
  accum = In(o.in[1], begin, end) * momentum + grad;
  auto var = Out(o.out[0], begin, end);
  // `accum` now reads the updated accumulator.
  if (o.use_nesterov) {
    var = In(o.in[0], begin, end) - (grad * lr + accum * momentum * lr);
  } else {
    var = In(o.in[0], begin, end) - accum * lr;
  }
}

// Keras's SGD with momentum (ResourceApplyKerasMomentum): the accumulator
// holds the step itself, lr folded in, and is added to the variable.
template <typename T>
void KerasMomentumBlock(const Operands<T, 2, 2>& o, int64_t begin,
                        int64_t end) {
  const T lr = o.scalars[0];
  const T momentum = o.scalars[1];
  auto grad = In(o.grad, begin, end);
  auto accum = Out(o.out[1], begin, end);
  accum = In(o.in[1], begin, end) * momentum - grad * lr;
  auto var = Out(o.out[0], begin, end);
  if (o.use_nesterov) {
    var = In(o.in[0], begin, end) + (accum * momentum - grad * lr);
  } else {
    var = In(o.in[0], begin, end) + accum;
  }
}

// Adam's first and second moments after one step, m = out[1] and v =
// out[2] (Adam and AdamWithAmsgrad; TensorFlow's order of operations).
template <typename T, typename Ops>
void AdamMoments(const Ops& o, int64_t begin, int64_t end, T beta1, T beta2) {
  auto grad = In(o.grad, begin, end);
  Out(o.out[1], begin, end) =
      In(o.in[1], begin, end) +
      (grad - In(o.in[1], begin, end)) * (T(1) - beta1);
  Out(o.out[2], begin, end) =
      In(o.in[2], begin, end) +
      (grad.square() - In(o.in[2], begin, end)) * (T(1) - beta2);
}

template <typename T>
void AdamBlock(const Operands<T, 3, 6>& o, int64_t begin, int64_t end) {
  const T beta1_power = o.scalars[0];
  const T beta2_power = o.scalars[1];
  const T lr = o.scalars[2];
  const T beta1 = o.scalars[3];
  const T beta2 = o.scalars[4];
  const T epsilon = o.scalars[5];
  // Per block, not per step: the pass is long and this is a few flops.
  const T alpha = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
  auto grad = In(o.grad, begin, end);
  AdamMoments(o, begin, end, beta1, beta2);
  auto m = Out(o.out[1], begin, end);
  auto v = Out(o.out[2], begin, end);
  auto var = Out(o.out[0], begin, end);
  if (o.use_nesterov) {
    var = In(o.in[0], begin, end) -
          ((grad * (T(1) - beta1) + m * beta1) * alpha) / (v.sqrt() + epsilon);
  } else {
    var = In(o.in[0], begin, end) - (m * alpha) / (v.sqrt() + epsilon);
  }
}

// Adam whose denominator is the largest second moment seen so far (vhat).
template <typename T>
void AdamWithAmsgradBlock(const Operands<T, 4, 6>& o, int64_t begin,
                          int64_t end) {
  const T beta1_power = o.scalars[0];
  const T beta2_power = o.scalars[1];
  const T lr = o.scalars[2];
  const T beta1 = o.scalars[3];
  const T beta2 = o.scalars[4];
  const T epsilon = o.scalars[5];
  const T alpha = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
  AdamMoments(o, begin, end, beta1, beta2);
  auto m = Out(o.out[1], begin, end);
  auto v = Out(o.out[2], begin, end);
  auto vhat = Out(o.out[3], begin, end);
  vhat = In(o.in[3], begin, end).cwiseMax(v);
  auto var = Out(o.out[0], begin, end);
  var = In(o.in[0], begin, end) - (m * alpha) / (vhat.sqrt() + epsilon);
}

// AdaMax: the second moment is an exponentially weighted infinity norm.
template <typename T>
void AdaMaxBlock(const Operands<T, 3, 5>& o, int64_t begin, int64_t end) {
  const T beta1_power = o.scalars[0];
  const T lr = o.scalars[1];
  const T beta1 = o.scalars[2];
  const T beta2 = o.scalars[3];
  const T epsilon = o.scalars[4];
  auto grad = In(o.grad, begin, end);
  auto m = Out(o.out[1], begin, end);
  m = In(o.in[1], begin, end) +
      (grad - In(o.in[1], begin, end)) * (T(1) - beta1);
  auto v = Out(o.out[2], begin, end);
  v = (In(o.in[2], begin, end) * beta2).cwiseMax(grad.abs());
  auto var = Out(o.out[0], begin, end);
  var = In(o.in[0], begin, end) -
        (m / (v + epsilon)) * (lr / (T(1) - beta1_power));
}

// Adagrad and RMSProp run as plain loops with std::sqrt: Eigen's
// vectorized float sqrt under EIGEN_FAST_MATH is an rsqrt approximation
// refined by a Newton step (up to 2 ulp off), where TensorFlow's results
// are the correctly rounded ones. rsqrt is 1 / sqrt for the same reason.
template <typename T, int kNumScalars>
void AdagradAccum(const Operands<T, 2, kNumScalars>& o, int64_t begin,
                  int64_t end) {
  const T* in = o.in[1];
  T* accum = o.out[1];
  const T* grad = o.grad;
  for (int64_t k = begin; k < end; ++k) {
    accum[k] = o.update_slots ? in[k] + grad[k] * grad[k] : in[k];
  }
}

template <typename T>
void AdagradBlock(const Operands<T, 2, 1>& o, int64_t begin, int64_t end) {
  const T lr = o.scalars[0];
  AdagradAccum(o, begin, end);
  const T* grad = o.grad;
  const T* accum = o.out[1];
  for (int64_t k = begin; k < end; ++k) {
    o.out[0][k] = o.in[0][k] - grad[k] * lr * (T(1) / std::sqrt(accum[k]));
  }
}

template <typename T>
void AdagradV2Block(const Operands<T, 2, 2>& o, int64_t begin, int64_t end) {
  const T lr = o.scalars[0];
  const T epsilon = o.scalars[1];
  AdagradAccum(o, begin, end);
  const T* grad = o.grad;
  const T* accum = o.out[1];
  for (int64_t k = begin; k < end; ++k) {
    o.out[0][k] =
        o.in[0][k] - grad[k] * lr / (std::sqrt(accum[k]) + epsilon);
  }
}

template <typename T>
void RMSPropBlock(const Operands<T, 3, 4>& o, int64_t begin, int64_t end) {
  const T lr = o.scalars[0];
  const T rho = o.scalars[1];
  const T momentum = o.scalars[2];
  const T epsilon = o.scalars[3];
  const T* grad = o.grad;
  for (int64_t k = begin; k < end; ++k) {
    const T ms = o.in[1][k] + (grad[k] * grad[k] - o.in[1][k]) * (T(1) - rho);
    o.out[1][k] = ms;
    const T mom =
        o.in[2][k] * momentum + (grad[k] * lr) / std::sqrt(ms + epsilon);
    o.out[2][k] = mom;
    o.out[0][k] = o.in[0][k] - mom;
  }
}

template <typename T>
void CenteredRMSPropBlock(const Operands<T, 4, 4>& o, int64_t begin,
                          int64_t end) {
  const T lr = o.scalars[0];
  const T rho = o.scalars[1];
  const T momentum = o.scalars[2];
  const T epsilon = o.scalars[3];
  const T* grad = o.grad;
  for (int64_t k = begin; k < end; ++k) {
    const T ms = o.in[2][k] + (grad[k] * grad[k] - o.in[2][k]) * (T(1) - rho);
    o.out[2][k] = ms;
    const T mg = o.in[1][k] + (grad[k] - o.in[1][k]) * (T(1) - rho);
    o.out[1][k] = mg;
    const T mom = o.in[3][k] * momentum +
                  (grad[k] * lr) / std::sqrt((ms - mg * mg) + epsilon);
    o.out[3][k] = mom;
    o.out[0][k] = o.in[0][k] - mom;
  }
}

template <typename T, Algorithm A, typename Ops>
void UpdateBlock(const Ops& o, int64_t begin, int64_t end) {
  if constexpr (A == Algorithm::kGradientDescent) {
    GradientDescentBlock<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kMomentum) {
    MomentumBlock<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kKerasMomentum) {
    KerasMomentumBlock<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kAdam) {
    AdamBlock<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kAdamWithAmsgrad) {
    AdamWithAmsgradBlock<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kAdaMax) {
    AdaMaxBlock<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kAdagrad) {
    AdagradBlock<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kAdagradV2) {
    AdagradV2Block<T>(o, begin, end);
  } else if constexpr (A == Algorithm::kRMSProp) {
    RMSPropBlock<T>(o, begin, end);
  } else {
    CenteredRMSPropBlock<T>(o, begin, end);
  }
}

// Rough cycles per element, for the thread pool's block sizes.
template <Algorithm A>
constexpr int64_t CyclesPerElement() {
  return A == Algorithm::kAdam || A == Algorithm::kAdamWithAmsgrad ||
                 A == Algorithm::kAdaMax || A == Algorithm::kRMSProp ||
                 A == Algorithm::kCenteredRMSProp
             ? 8
         : A == Algorithm::kGradientDescent ? 2
                                            : 4;
}

// Locks up to four variables' mutexes at once, each distinct mutex once.
class VarLocks {
 public:
  template <size_t N>
  explicit VarLocks(const std::array<Var*, N>& vars) {
    static_assert(N >= 1 && N <= 4, "one to four variables");
    for (Var* v : vars) {
      std::mutex* mu = &v->mu();
      if (std::find(mus_.begin(), mus_.begin() + n_, mu) == mus_.begin() + n_) {
        mus_[n_++] = mu;
      }
    }
    switch (n_) {
      case 1:
        mus_[0]->lock();
        break;
      case 2:
        std::lock(*mus_[0], *mus_[1]);
        break;
      case 3:
        std::lock(*mus_[0], *mus_[1], *mus_[2]);
        break;
      default:
        std::lock(*mus_[0], *mus_[1], *mus_[2], *mus_[3]);
        break;
    }
  }
  ~VarLocks() {
    for (int i = 0; i < n_; ++i) mus_[i]->unlock();
  }
  VarLocks(const VarLocks&) = delete;
  VarLocks& operator=(const VarLocks&) = delete;

 private:
  std::array<std::mutex*, 4> mus_{};
  int n_ = 0;
};

template <typename T, Algorithm A>
class ApplyOp : public OpKernel {
 public:
  using L = Layout<A>;
  static constexpr int kNumVars = L::kNumVars;
  static constexpr int kNumScalars = static_cast<int>(L::kScalars.size());

  explicit ApplyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().FindAttr("use_nesterov") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
    }
    if (ctx->node().FindAttr("update_slots") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("update_slots", &update_slots_));
    }
    is_ref_ = IsRefType(ctx->node().input_type(0));
    const OpDef& def = ctx->node().op_def();
    for (int i = 0; i < def.input_arg_size(); ++i) {
      arg_names_.push_back(def.input_arg(i).name());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr DataType kType = DataTypeToEnum<T>::value;
    Operands<T, kNumVars, kNumScalars> o;
    o.use_nesterov = use_nesterov_;
    o.update_slots = update_slots_;

    // Values first (see the file comment), then the variables' locks.
    for (int k = 0; k < kNumScalars; ++k) {
      const int i = L::kScalars[k];
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, s.dtype() == kType, WrongType(i, s.dtype()));
      OP_REQUIRES(ctx, s.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "'", arg_names_[i], "' must be a scalar but has shape ",
                      s.shape().ToString())));
      o.scalars[k] = *s.data<T>();
    }
    const Tensor& grad = ctx->input(L::kGrad);
    OP_REQUIRES(ctx, grad.dtype() == kType, WrongType(L::kGrad, grad.dtype()));

    std::array<Var*, kNumVars> vars;
    for (int k = 0; k < kNumVars; ++k) {
      vars[k] = ctx->input_var(k);
      OP_REQUIRES(ctx, vars[k] != nullptr,
                  absl::InternalError(absl::StrCat("input '", arg_names_[k],
                                                   "' is not a variable")));
      OP_REQUIRES(
          ctx, vars[k]->dtype() == kType,
          absl::InvalidArgumentError(absl::StrCat(
              "variable '", vars[k]->name(), "' ('", arg_names_[k], "') holds ",
              DataTypeName(vars[k]->dtype()), " but this op updates ",
              DataTypeName(kType), " variables; make T the variable's dtype")));
    }

    std::array<Tensor, kNumVars> fresh;
    {
      VarLocks locks(vars);
      // A copy: the value it comes from may be replaced below.
      const TensorShape shape = vars[0]->value()->shape();
      for (int k = 0; k < kNumVars; ++k) {
        Var* var = vars[k];
        OP_REQUIRES(ctx, var->initialized(),
                    UninitializedValueError(
                        var->name(),
                        absl::StrCat("input '", arg_names_[k], "'")));
        OP_REQUIRES(ctx, var->value()->shape() == shape,
                    absl::InvalidArgumentError(absl::StrCat(
                        "variable '", var->name(), "' ('", arg_names_[k],
                        "') has shape ", var->value()->shape().ToString(),
                        " but variable '", vars[0]->name(), "' ('",
                        arg_names_[0], "') has shape ", shape.ToString(),
                        "; a variable and its slots must have one shape")));
      }
      OP_REQUIRES(
          ctx, grad.shape() == shape,
          absl::InvalidArgumentError(absl::StrCat(
              "'", arg_names_[L::kGrad], "' has shape ",
              grad.shape().ToString(), " but variable '", vars[0]->name(),
              "' ('", arg_names_[0], "') has shape ", shape.ToString(),
              "; the update must have the variable's shape")));

      for (int k = 0; k < kNumVars; ++k) {
        Tensor* value = vars[k]->value();
        // The same variable passed twice (var and accum one variable) is
        // updated in place statement after statement, as in TensorFlow:
        // every occurrence reads and writes one buffer.
        bool repeated = false;
        int first = k;
        for (int j = kNumVars - 1; j >= 0; --j) {
          if (j != k && vars[j] == vars[k]) {
            repeated = true;
            if (j < k) first = j;
          }
        }
        if (first < k) {
          o.in[k] = o.out[k] = o.out[first];
        } else if (state_kernels::NeedsCopyBeforeUpdate(value, is_ref_)) {
          // Copy on write (kernel_util_state.h). The pass reads the old
          // buffer and writes a fresh one (a repeated variable is copied
          // first).
          OP_REQUIRES_OK(ctx, ctx->allocate_temp(kType, shape, &fresh[k]));
          o.out[k] = fresh[k].template data<T>();
          if (repeated) {
            std::copy_n(value->data<T>(), value->NumElements(), o.out[k]);
            o.in[k] = o.out[k];
          } else {
            o.in[k] = value->data<T>();
          }
        } else {
          o.in[k] = o.out[k] = value->data<T>();
        }
      }
      o.grad = grad.data<T>();

      const int64_t n = shape.num_elements();
      const int64_t blocks = (n + kBlock - 1) / kBlock;
      auto run = [&o, n](int64_t first_block, int64_t last_block) {
        for (int64_t b = first_block; b < last_block; ++b) {
          const int64_t begin = b * kBlock;
          UpdateBlock<T, A>(o, begin, std::min(n, begin + kBlock));
        }
      };
      if (n < kMinParallelElements) {
        run(0, blocks);
      } else {
        ParallelForShards(ctx, blocks, kBlock * CyclesPerElement<A>(), run);
      }

      for (int k = 0; k < kNumVars; ++k) {
        if (fresh[k].IsInitialized()) {
          *vars[k]->value() = std::move(fresh[k]);
          state_kernels::AdoptUpdatedValue(vars[k]->value(), is_ref_);
        }
      }
    }
    if (is_ref_) ctx->set_output_var(0, vars[0]);
  }

 private:
  absl::Status WrongType(int i, DataType got) const {
    return absl::InvalidArgumentError(
        absl::StrCat("'", arg_names_[i], "' is ", DataTypeName(got),
                     " but T is ", DataTypeName(DataTypeToEnum<T>::value)));
  }

  bool use_nesterov_ = false;
  bool update_slots_ = true;
  bool is_ref_ = true;
  std::vector<std::string> arg_names_;
};

#define DFLOW_REGISTER_APPLY(op, algorithm, T)                        \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      ApplyOp<T, algorithm>);                                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Resource" op)               \
                            .Device(kDeviceCpu)                       \
                            .TypeConstraint<T>("T"),                  \
                        ApplyOp<T, algorithm>)

#define DFLOW_REGISTER_APPLY_ALL(T)                                         \
  DFLOW_REGISTER_APPLY("ApplyGradientDescent", Algorithm::kGradientDescent, \
                       T);                                                  \
  DFLOW_REGISTER_APPLY("ApplyMomentum", Algorithm::kMomentum, T);           \
  DFLOW_REGISTER_APPLY("ApplyAdam", Algorithm::kAdam, T);                   \
  DFLOW_REGISTER_APPLY("ApplyAdagrad", Algorithm::kAdagrad, T);             \
  DFLOW_REGISTER_APPLY("ApplyAdagradV2", Algorithm::kAdagradV2, T);         \
  DFLOW_REGISTER_APPLY("ApplyRMSProp", Algorithm::kRMSProp, T);             \
  DFLOW_REGISTER_APPLY("ApplyCenteredRMSProp", Algorithm::kCenteredRMSProp, T); \
  DFLOW_REGISTER_APPLY("ApplyAdaMax", Algorithm::kAdaMax, T);               \
  /* These two exist in the resource form only. */                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceApplyKerasMomentum")      \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T"),                        \
                        ApplyOp<T, Algorithm::kKerasMomentum>);             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceApplyAdamWithAmsgrad")    \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T"),                        \
                        ApplyOp<T, Algorithm::kAdamWithAmsgrad>)

DFLOW_REGISTER_APPLY_ALL(float);
DFLOW_REGISTER_APPLY_ALL(double);

}  // namespace
}  // namespace dflow
