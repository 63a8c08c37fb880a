// Sparse optimizer updates on the CPU: SparseApplyAdagrad(V2),
// SparseApplyMomentum, SparseApplyRMSProp, SparseApplyCenteredRMSProp and
// their ResourceSparseApply*
// twins, and ResourceSparseApplyKerasMomentum, for float and double. Row indices[i] of the variable and of its
// slots takes the step with gradient row grad[i]; rows not named keep their
// values, and a repeated index steps its row once per occurrence, in order.
//
// The element formulas are TensorFlow's CPU functors', in the same order of
// operations (they differ from the dense ones: the sparse RMSProp is
// ms * rho + grad^2 * (1 - rho), and TensorFlow computes Adagrad's rank-1
// case as lr * g / sqrt(a) but the general case as lr * g * rsqrt(a)), so
// results agree with TensorFlow's bit for bit. rsqrt is 1 / sqrt, as
// TensorFlow's scalar path computes it.
//
// Every index is checked before anything is written: a bad one is an
// InvalidArgument naming it and the range and leaves the variables as they
// were. Locking and copy on write are as in training_ops.cc.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_state.h"
#include "kernels/cpu/training_ops_locks.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

enum class Sparse {
  kAdagrad,
  kAdagradV2,
  kMomentum,
  kKerasMomentum,
  kRMSProp,
  kCenteredRMSProp
};

template <Sparse A>
struct SparseLayout;
template <>
struct SparseLayout<Sparse::kAdagrad> {
  static constexpr int kNumVars = 2;                   // var, accum
  static constexpr std::array<int, 1> kScalars = {2};  // lr
  static constexpr int kGrad = 3;
  static constexpr int kIndices = 4;
};
template <>
struct SparseLayout<Sparse::kMomentum> {
  static constexpr int kNumVars = 2;                      // var, accum
  static constexpr std::array<int, 2> kScalars = {2, 5};  // lr, momentum
  static constexpr int kGrad = 3;
  static constexpr int kIndices = 4;
};
template <>
struct SparseLayout<Sparse::kKerasMomentum> : SparseLayout<Sparse::kMomentum> {
};
template <>
struct SparseLayout<Sparse::kRMSProp> {
  static constexpr int kNumVars = 3;  // var, ms, mom
  // lr, rho, momentum, epsilon
  static constexpr std::array<int, 4> kScalars = {3, 4, 5, 6};
  static constexpr int kGrad = 7;
  static constexpr int kIndices = 8;
};

template <>
struct SparseLayout<Sparse::kAdagradV2> {
  static constexpr int kNumVars = 2;                      // var, accum
  static constexpr std::array<int, 2> kScalars = {2, 3};  // lr, epsilon
  static constexpr int kGrad = 4;
  static constexpr int kIndices = 5;
};
template <>
struct SparseLayout<Sparse::kCenteredRMSProp> {
  static constexpr int kNumVars = 4;  // var, mg, ms, mom
  // lr, rho, momentum, epsilon
  static constexpr std::array<int, 4> kScalars = {4, 5, 6, 7};
  static constexpr int kGrad = 8;
  static constexpr int kIndices = 9;
};

// One row's step: `v` the rows of the variables (var first), `g` the
// gradient row, `n` elements, `s` the scalars in input order.
template <typename T, Sparse A>
void StepRow(const std::array<T*, SparseLayout<A>::kNumVars>& v, const T* g,
             int64_t n, const T* s, bool flag, bool rank1) {
  if constexpr (A == Sparse::kAdagrad) {
    const T lr = s[0];
    const bool update_slots = flag;
    T* var = v[0];
    T* accum = v[1];
    for (int64_t k = 0; k < n; ++k) {
      if (update_slots) accum[k] += g[k] * g[k];
      if (rank1) {
        var[k] -= lr * g[k] / std::sqrt(accum[k]);
      } else {
        var[k] -= lr * g[k] * (T(1) / std::sqrt(accum[k]));
      }
    }
  } else if constexpr (A == Sparse::kAdagradV2) {
    const T lr = s[0];
    const T epsilon = s[1];
    const bool update_slots = flag;
    T* var = v[0];
    T* accum = v[1];
    for (int64_t k = 0; k < n; ++k) {
      if (update_slots) accum[k] += g[k] * g[k];
      var[k] -= lr * g[k] / (std::sqrt(accum[k]) + epsilon);
    }
  } else if constexpr (A == Sparse::kCenteredRMSProp) {
    const T lr = s[0];
    const T rho = s[1];
    const T momentum = s[2];
    const T epsilon = s[3];
    T* var = v[0];
    T* mg = v[1];
    T* ms = v[2];
    T* mom = v[3];
    for (int64_t k = 0; k < n; ++k) {
      ms[k] = ms[k] * rho + g[k] * g[k] * (T(1) - rho);
      mg[k] = mg[k] * rho + g[k] * (T(1) - rho);
      const T denom = (ms[k] - mg[k] * mg[k]) + epsilon;
      mom[k] = mom[k] * momentum + (T(1) / std::sqrt(denom)) * lr * g[k];
      var[k] -= mom[k];
    }
  } else if constexpr (A == Sparse::kMomentum) {
    const T lr = s[0];
    const T momentum = s[1];
    const bool use_nesterov = flag;
    T* var = v[0];
    T* accum = v[1];
    for (int64_t k = 0; k < n; ++k) {
      accum[k] = accum[k] * momentum + g[k];
      if (use_nesterov) {
        var[k] -= lr * g[k] + lr * momentum * accum[k];
      } else {
        var[k] -= lr * accum[k];
      }
    }
  } else if constexpr (A == Sparse::kKerasMomentum) {
    // Keras's SGD: the accumulator is the step, lr folded in.
    const T lr = s[0];
    const T momentum = s[1];
    const bool use_nesterov = flag;
    T* var = v[0];
    T* accum = v[1];
    for (int64_t k = 0; k < n; ++k) {
      accum[k] = accum[k] * momentum - g[k] * lr;
      if (use_nesterov) {
        var[k] += accum[k] * momentum - g[k] * lr;
      } else {
        var[k] += accum[k];
      }
    }
  } else {
    const T lr = s[0];
    const T rho = s[1];
    const T momentum = s[2];
    const T epsilon = s[3];
    T* var = v[0];
    T* ms = v[1];
    T* mom = v[2];
    for (int64_t k = 0; k < n; ++k) {
      ms[k] = ms[k] * rho + g[k] * g[k] * (T(1) - rho);
      mom[k] = mom[k] * momentum +
               (T(1) / std::sqrt(ms[k] + epsilon)) * lr * g[k];
      var[k] -= mom[k];
    }
  }
}

template <typename T, typename Index, Sparse A>
class SparseApplyOp : public OpKernel {
 public:
  using L = SparseLayout<A>;
  static constexpr int kNumVars = L::kNumVars;
  static constexpr int kNumScalars = static_cast<int>(L::kScalars.size());

  explicit SparseApplyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    for (const char* flag : {"use_nesterov", "update_slots"}) {
      if (ctx->node().FindAttr(flag) != nullptr) {
        ctx->SetStatus(ctx->GetAttr(flag, &flag_));
      }
    }
    is_ref_ = IsRefType(ctx->node().input_type(0));
    const OpDef& def = ctx->node().op_def();
    for (int i = 0; i < def.input_arg_size(); ++i) {
      arg_names_.push_back(def.input_arg(i).name());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr DataType kType = DataTypeToEnum<T>::value;
    std::array<T, kNumScalars> scalars;
    for (int k = 0; k < kNumScalars; ++k) {
      const int i = L::kScalars[k];
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, s.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "'", arg_names_[i], "' must be a scalar but has shape ",
                      s.shape().ToString())));
      scalars[k] = *s.data<T>();
    }
    const Tensor& grad = ctx->input(L::kGrad);
    const Tensor& indices = ctx->input(L::kIndices);
    OP_REQUIRES(ctx, indices.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "'indices' must be a vector but has shape ",
                    indices.shape().ToString())));
    OP_REQUIRES(ctx,
                grad.shape().rank() >= 1 &&
                    grad.shape().dim(0) == indices.NumElements(),
                absl::InvalidArgumentError(absl::StrCat(
                    "'grad' ", grad.shape().ToString(),
                    " must have one row per index; there are ",
                    indices.NumElements(), " indices")));

    std::array<Var*, kNumVars> vars;
    std::vector<std::mutex*> mus;
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
      mus.push_back(&vars[k]->mu());
    }

    OrderedLocks locks(std::move(mus));
    for (int k = 0; k < kNumVars; ++k) {
      OP_REQUIRES(ctx, vars[k]->initialized(),
                  UninitializedValueError(
                      vars[k]->name(),
                      absl::StrCat("input '", arg_names_[k], "'")));
    }
    const TensorShape shape = vars[0]->value()->shape();
    for (int k = 1; k < kNumVars; ++k) {
      OP_REQUIRES(ctx, vars[k]->value()->shape() == shape,
                  absl::InvalidArgumentError(absl::StrCat(
                      "variable '", vars[k]->name(), "' ('", arg_names_[k],
                      "') has shape ", vars[k]->value()->shape().ToString(),
                      " but variable '", vars[0]->name(), "' ('",
                      arg_names_[0], "') has shape ", shape.ToString(),
                      "; a variable and its slots must have one shape")));
    }
    OP_REQUIRES(ctx, shape.rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "variable '", vars[0]->name(),
                    "' is a scalar; a sparse update needs rows")));
    bool same_rows = grad.shape().rank() == shape.rank();
    for (int i = 1; same_rows && i < shape.rank(); ++i) {
      same_rows = grad.shape().dim(i) == shape.dim(i);
    }
    OP_REQUIRES(ctx, same_rows,
                absl::InvalidArgumentError(absl::StrCat(
                    "'grad' ", grad.shape().ToString(),
                    " must have the rows of variable '", vars[0]->name(),
                    "' ", shape.ToString())));
    const int64_t rows = shape.dim(0);
    const int64_t inner = rows == 0 ? 0 : shape.num_elements() / rows;
    const Index* idx = indices.data<Index>();
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      OP_REQUIRES(ctx, idx[i] >= 0 && idx[i] < rows,
                  absl::InvalidArgumentError(absl::StrCat(
                      "indices[", i, "] = ", idx[i], " is not in [0, ", rows,
                      ") (the rows of variable '", vars[0]->name(), "')")));
    }

    std::array<T*, kNumVars> base;
    for (int k = 0; k < kNumVars; ++k) {
      Tensor* value = vars[k]->value();
      bool seen = false;
      for (int j = 0; j < k; ++j) seen = seen || vars[j] == vars[k];
      if (!seen && state_kernels::NeedsCopyBeforeUpdate(value, is_ref_)) {
        // Copy on write (kernel_util_state.h).
        Tensor copy;
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(kType, shape, &copy));
        std::copy_n(value->data<T>(), value->NumElements(), copy.data<T>());
        *value = std::move(copy);
        state_kernels::AdoptUpdatedValue(value, is_ref_);
      }
      base[k] = value->data<T>();
    }
    const T* g = grad.data<T>();
    const bool rank1 = shape.rank() == 1;
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      std::array<T*, kNumVars> row;
      for (int k = 0; k < kNumVars; ++k) {
        row[k] = base[k] + static_cast<int64_t>(idx[i]) * inner;
      }
      StepRow<T, A>(row, g + i * inner, inner, scalars.data(), flag_, rank1);
    }
    if (is_ref_) ctx->set_output_var(0, vars[0]);
  }

 private:
  // update_slots (Adagrad's, default true) / use_nesterov (default false)
  bool flag_ = A == Sparse::kAdagrad || A == Sparse::kAdagradV2;
  bool is_ref_ = true;
  std::vector<std::string> arg_names_;
};

#define DFLOW_REGISTER_SPARSE_ONE(op, algorithm, T, Index)          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                        \
                            .Device(kDeviceCpu)                     \
                            .TypeConstraint<T>("T")                 \
                            .TypeConstraint<Index>("Tindices"),     \
                        SparseApplyOp<T, Index, algorithm>);        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Resource" op)             \
                            .Device(kDeviceCpu)                     \
                            .TypeConstraint<T>("T")                 \
                            .TypeConstraint<Index>("Tindices"),     \
                        SparseApplyOp<T, Index, algorithm>)

#define DFLOW_REGISTER_SPARSE(op, algorithm)                    \
  DFLOW_REGISTER_SPARSE_ONE(op, algorithm, float, int32_t);     \
  DFLOW_REGISTER_SPARSE_ONE(op, algorithm, float, int64_t);     \
  DFLOW_REGISTER_SPARSE_ONE(op, algorithm, double, int32_t);    \
  DFLOW_REGISTER_SPARSE_ONE(op, algorithm, double, int64_t)

DFLOW_REGISTER_SPARSE("SparseApplyAdagrad", Sparse::kAdagrad);
DFLOW_REGISTER_SPARSE("SparseApplyMomentum", Sparse::kMomentum);
DFLOW_REGISTER_SPARSE("SparseApplyRMSProp", Sparse::kRMSProp);
DFLOW_REGISTER_SPARSE("SparseApplyAdagradV2", Sparse::kAdagradV2);
DFLOW_REGISTER_SPARSE("SparseApplyCenteredRMSProp", Sparse::kCenteredRMSProp);

// Keras's momentum has the resource form only.
#define DFLOW_REGISTER_KERAS_MOMENTUM(T, Index)                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceSparseApplyKerasMomentum") \
                            .Device(kDeviceCpu)                          \
                            .TypeConstraint<T>("T")                      \
                            .TypeConstraint<Index>("Tindices"),          \
                        SparseApplyOp<T, Index, Sparse::kKerasMomentum>)
DFLOW_REGISTER_KERAS_MOMENTUM(float, int32_t);
DFLOW_REGISTER_KERAS_MOMENTUM(float, int64_t);
DFLOW_REGISTER_KERAS_MOMENTUM(double, int32_t);
DFLOW_REGISTER_KERAS_MOMENTUM(double, int64_t);

}  // namespace
}  // namespace dflow
