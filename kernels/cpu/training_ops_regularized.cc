// Optimizer updates computed element by element on the CPU: Adadelta,
// Ftrl and FtrlV2 (l2_shrinkage, multiply_linear_by_lr), ProximalAdagrad,
// ProximalGradientDescent and AdagradDA, each in its four forms (Apply*,
// ResourceApply*, SparseApply*, ResourceSparseApply*), for float and double.
//
// The element formulas are TensorFlow's CPU functors', in the same order of
// operations, so the values agree with TensorFlow's to the last bit or
// nearly. rsqrt is 1 / sqrt, as TensorFlow's scalar path computes it.
//
// One kernel serves every form: it reads its layout (which inputs are the
// variables, the gradient, the indices and the scalars) from the op's
// argument names at construction. A dense step is one pass over all
// elements, split over the thread pool when large (-O3 vectorizes the
// loops: the kernels are built with -fno-math-errno). A sparse step takes
// row indices[i] of the variable and its slots with gradient row grad[i],
// in order, so a repeated index steps its row once per occurrence; every
// index is checked before anything is written.
//
// Locking and copy on write follow training_ops_sparse.cc: the value inputs
// are read first, then every variable is locked in address order, and a
// variable whose buffer a reader still holds is copied before the update.
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
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_state.h"
#include "kernels/cpu/training_ops_locks.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

enum class Rule {
  kAdadelta,
  kProximalAdagrad,
  kProximalGradientDescent,
  kFtrl,  // FtrlV2 too: l2_shrinkage is 0 for Ftrl
  kAdagradDA
};

// The scalar inputs, by name. Those an op does not have stay 0.
template <typename T>
struct Scalars {
  T lr = 0;  // "lr", or ProximalGradientDescent's "alpha"
  T rho = 0;
  T epsilon = 0;
  T l1 = 0;
  T l2 = 0;
  T l2_shrinkage = 0;
  T lr_power = 0;
  // AdagradDA's int64 step, as TensorFlow uses it: through float.
  T global_step = 0;
  bool has_shrinkage = false;
  bool multiply_linear_by_lr = false;
};

template <typename T>
T Sign(T x) {
  return x == T(0) ? T(0) : (x < T(0) ? T(-1) : T(1));
}

// Applies the rule to n elements: v[0] the variable, v[1], v[2] its slots
// (in input order), g the gradient; all at the same offset.
template <typename T, Rule R>
void Step(const std::array<T*, 3>& v, const T* g, int64_t n,
          const Scalars<T>& s) {
  T* var = v[0];
  if constexpr (R == Rule::kAdadelta) {
    T* accum = v[1];
    T* accum_update = v[2];
    for (int64_t k = 0; k < n; ++k) {
      accum[k] = accum[k] * s.rho + g[k] * g[k] * (T(1) - s.rho);
      const T update = std::sqrt(accum_update[k] + s.epsilon) *
                       (T(1) / std::sqrt(accum[k] + s.epsilon)) * g[k];
      var[k] -= update * s.lr;
      accum_update[k] =
          accum_update[k] * s.rho + update * update * (T(1) - s.rho);
    }
  } else if constexpr (R == Rule::kProximalAdagrad) {
    T* accum = v[1];
    for (int64_t k = 0; k < n; ++k) {
      accum[k] += g[k] * g[k];
      const T rate = s.lr * (T(1) / std::sqrt(accum[k]));
      const T prox = var[k] - g[k] * rate;
      if (s.l1 > T(0)) {
        var[k] = Sign(prox) * std::max(std::abs(prox) - rate * s.l1, T(0)) /
                 (T(1) + s.l2 * rate);
      } else {
        var[k] = prox / (T(1) + s.l2 * rate);
      }
    }
  } else if constexpr (R == Rule::kProximalGradientDescent) {
    const T shrink = T(1) + s.l2 * s.lr;
    const T threshold = s.lr * s.l1;
    for (int64_t k = 0; k < n; ++k) {
      const T prox = var[k] - g[k] * s.lr;
      if (s.l1 > T(0)) {
        var[k] =
            Sign(prox) * std::max(std::abs(prox) - threshold, T(0)) / shrink;
      } else {
        var[k] = prox / shrink;
      }
    }
  } else if constexpr (R == Rule::kFtrl) {
    T* accum = v[1];
    T* linear = v[2];
    const bool half = s.lr_power == T(-0.5);
    // With multiply_linear_by_lr `linear` holds lr times the usual value,
    // and the thresholds and denominators scale with it.
    const bool by_lr = s.multiply_linear_by_lr;
    const T threshold = by_lr ? s.l1 * s.lr : s.l1;
    const T two_l2 = by_lr ? T(2) * s.l2 * s.lr : T(2) * s.l2;
    for (int64_t k = 0; k < n; ++k) {
      const T grad_shrunk =
          s.has_shrinkage ? g[k] + T(2) * s.l2_shrinkage * var[k] : g[k];
      const T old_accum = accum[k];
      const T new_accum = old_accum + g[k] * g[k];
      const T new_pow =
          half ? std::sqrt(new_accum) : std::pow(new_accum, -s.lr_power);
      const T old_pow =
          half ? std::sqrt(old_accum) : std::pow(old_accum, -s.lr_power);
      T x, y;
      if (by_lr) {
        linear[k] += grad_shrunk * s.lr - (new_pow - old_pow) * var[k];
        x = threshold * Sign(linear[k]) - linear[k];
        y = new_pow + two_l2;
      } else {
        linear[k] += grad_shrunk - (new_pow - old_pow) / s.lr * var[k];
        x = s.l1 * Sign(linear[k]) - linear[k];
        y = new_pow / s.lr + two_l2;
      }
      var[k] = std::abs(linear[k]) > threshold ? x / y : T(0);
      accum[k] = new_accum;
    }
  } else {
    T* grad_accum = v[1];
    T* grad_squared_accum = v[2];
    const T step_l1 = s.global_step * s.l1;
    const T step_l2 = s.l2 * (s.global_step * s.lr);
    for (int64_t k = 0; k < n; ++k) {
      grad_accum[k] += g[k];
      grad_squared_accum[k] += g[k] * g[k];
      const T denom = step_l2 + std::sqrt(grad_squared_accum[k]);
      if (s.l1 > T(0)) {
        var[k] = s.lr * T(-1) * Sign(grad_accum[k]) *
                 std::max(std::abs(grad_accum[k]) - step_l1, T(0)) / denom;
      } else {
        var[k] = s.lr * grad_accum[k] * T(-1) / denom;
      }
    }
  }
}

// Rough cycles per element, for the thread pool's shard sizes.
constexpr int64_t kCyclesPerElement = 16;

template <typename T, typename Index, Rule R>
class RegularizedApplyOp : public OpKernel {
 public:
  explicit RegularizedApplyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().FindAttr("multiply_linear_by_lr") != nullptr) {
      ctx->SetStatus(
          ctx->GetAttr("multiply_linear_by_lr", &multiply_linear_by_lr_));
    }
    is_ref_ = IsRefType(ctx->node().input_type(0));
    const OpDef& def = ctx->node().op_def();
    for (int i = 0; i < def.input_arg_size(); ++i) {
      const std::string& name = def.input_arg(i).name();
      arg_names_.push_back(name);
      const DataType type = ctx->node().input_type(i);
      if (IsRefType(type) || type == DT_RESOURCE) {
        var_inputs_.push_back(i);
      } else if (name == "grad" || name == "delta") {
        grad_ = i;
      } else if (name == "indices") {
        indices_ = i;
      } else {
        scalar_inputs_.push_back(i);
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr DataType kType = DataTypeToEnum<T>::value;
    const bool sparse = indices_ >= 0;
    // Values first (see the file comment), then the variables' locks.
    Scalars<T> s;
    s.multiply_linear_by_lr = multiply_linear_by_lr_;
    for (int i : scalar_inputs_) {
      const Tensor& t = ctx->input(i);
      const std::string& name = arg_names_[i];
      OP_REQUIRES(ctx, t.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "'", name, "' must be a scalar but has shape ",
                      t.shape().ToString())));
      if (name == "global_step") {
        OP_REQUIRES(ctx, t.dtype() == DT_INT64, WrongType(i, t.dtype()));
        s.global_step = static_cast<T>(static_cast<float>(*t.data<int64_t>()));
        continue;
      }
      OP_REQUIRES(ctx, t.dtype() == kType, WrongType(i, t.dtype()));
      const T value = *t.data<T>();
      if (name == "lr" || name == "alpha") {
        s.lr = value;
      } else if (name == "rho") {
        s.rho = value;
      } else if (name == "epsilon") {
        s.epsilon = value;
      } else if (name == "l1") {
        s.l1 = value;
      } else if (name == "l2") {
        s.l2 = value;
      } else if (name == "l2_shrinkage") {
        s.l2_shrinkage = value;
        s.has_shrinkage = true;
      } else if (name == "lr_power") {
        s.lr_power = value;
      }
    }
    const Tensor& grad = ctx->input(grad_);
    OP_REQUIRES(ctx, grad.dtype() == kType, WrongType(grad_, grad.dtype()));

    std::vector<Var*> vars;
    std::vector<std::mutex*> mus;
    for (int i : var_inputs_) {
      Var* var = ctx->input_var(i);
      OP_REQUIRES(ctx, var != nullptr,
                  absl::InternalError(absl::StrCat("input '", arg_names_[i],
                                                   "' is not a variable")));
      OP_REQUIRES(
          ctx, var->dtype() == kType,
          absl::InvalidArgumentError(absl::StrCat(
              "variable '", var->name(), "' ('", arg_names_[i], "') holds ",
              DataTypeName(var->dtype()), " but this op updates ",
              DataTypeName(kType), " variables; make T the variable's dtype")));
      vars.push_back(var);
      mus.push_back(&var->mu());
    }

    OrderedLocks locks(std::move(mus));
    for (size_t k = 0; k < vars.size(); ++k) {
      OP_REQUIRES(
          ctx, vars[k]->initialized(),
          UninitializedValueError(
              vars[k]->name(),
              absl::StrCat("input '", arg_names_[var_inputs_[k]], "'")));
    }
    const TensorShape shape = vars[0]->value()->shape();
    for (size_t k = 1; k < vars.size(); ++k) {
      OP_REQUIRES(
          ctx, vars[k]->value()->shape() == shape,
          absl::InvalidArgumentError(absl::StrCat(
              "variable '", vars[k]->name(), "' ('", arg_names_[var_inputs_[k]],
              "') has shape ", vars[k]->value()->shape().ToString(),
              " but variable '", vars[0]->name(), "' ('",
              arg_names_[var_inputs_[0]], "') has shape ", shape.ToString(),
              "; a variable and its slots must have one shape")));
    }
    int64_t rows = 0;
    int64_t inner = shape.num_elements();
    if (sparse) {
      OP_REQUIRES_OK(ctx, CheckSparse(ctx, grad, shape, vars[0]->name()));
      rows = shape.dim(0);
      inner = rows == 0 ? 0 : shape.num_elements() / rows;
    } else {
      OP_REQUIRES(ctx, grad.shape() == shape,
                  absl::InvalidArgumentError(absl::StrCat(
                      "'", arg_names_[grad_], "' has shape ",
                      grad.shape().ToString(), " but variable '",
                      vars[0]->name(), "' has shape ", shape.ToString(),
                      "; the update must have the variable's shape")));
    }

    std::array<T*, 3> base{};
    for (size_t k = 0; k < vars.size(); ++k) {
      Tensor* value = vars[k]->value();
      bool seen = false;
      for (size_t j = 0; j < k; ++j) seen = seen || vars[j] == vars[k];
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
    if (!sparse) {
      ParallelForShards(ctx, inner, kCyclesPerElement,
                        [&](int64_t begin, int64_t end) {
                          std::array<T*, 3> at{};
                          for (size_t k = 0; k < vars.size(); ++k) {
                            at[k] = base[k] + begin;
                          }
                          Step<T, R>(at, g + begin, end - begin, s);
                        });
    } else {
      const Tensor& indices = ctx->input(indices_);
      const Index* idx = indices.data<Index>();
      for (int64_t i = 0; i < indices.NumElements(); ++i) {
        std::array<T*, 3> row{};
        for (size_t k = 0; k < vars.size(); ++k) {
          row[k] = base[k] + static_cast<int64_t>(idx[i]) * inner;
        }
        Step<T, R>(row, g + i * inner, inner, s);
      }
    }
    if (is_ref_) ctx->set_output_var(0, vars[0]);
  }

 private:
  // The sparse forms' shapes and indices, checked before anything changes.
  absl::Status CheckSparse(OpKernelContext* ctx, const Tensor& grad,
                           const TensorShape& shape,
                           const std::string& var_name) const {
    const Tensor& indices = ctx->input(indices_);
    if (indices.shape().rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("'indices' must be a vector but has shape ",
                       indices.shape().ToString()));
    }
    if (shape.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", var_name, "' is a scalar; a sparse update needs rows"));
    }
    bool same_rows = grad.shape().rank() == shape.rank() &&
                     grad.shape().dim(0) == indices.NumElements();
    for (int i = 1; same_rows && i < shape.rank(); ++i) {
      same_rows = grad.shape().dim(i) == shape.dim(i);
    }
    if (!same_rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'grad' ", grad.shape().ToString(), " must have one row per index (",
          indices.NumElements(), " indices) of the shape of variable '",
          var_name, "' ", shape.ToString(), " past its first dimension"));
    }
    const Index* idx = indices.data<Index>();
    const int64_t rows = shape.dim(0);
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        return absl::InvalidArgumentError(
            absl::StrCat("indices[", i, "] = ", idx[i], " is not in [0, ", rows,
                         ") (the rows of variable '", var_name, "')"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status WrongType(int i, DataType got) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", arg_names_[i], "' is ", DataTypeName(got),
        arg_names_[i] == "global_step"
            ? " but must be int64"
            : absl::StrCat(" but T is ",
                           DataTypeName(DataTypeToEnum<T>::value))));
  }

  bool multiply_linear_by_lr_ = false;
  bool is_ref_ = true;
  std::vector<std::string> arg_names_;
  std::vector<int> var_inputs_;
  std::vector<int> scalar_inputs_;
  int grad_ = -1;
  int indices_ = -1;
};

// The dense forms have no Tindices; their kernel's Index is unused.
#define DFLOW_REGISTER_DENSE(op, rule, T)                             \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      RegularizedApplyOp<T, int32_t, rule>);                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Resource" op)               \
                            .Device(kDeviceCpu)                       \
                            .TypeConstraint<T>("T"),                  \
                        RegularizedApplyOp<T, int32_t, rule>)

#define DFLOW_REGISTER_SPARSE(op, rule, T, Index)               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Sparse" op)           \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T")             \
                            .TypeConstraint<Index>("Tindices"), \
                        RegularizedApplyOp<T, Index, rule>);    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceSparse" op)   \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T")             \
                            .TypeConstraint<Index>("Tindices"), \
                        RegularizedApplyOp<T, Index, rule>)

#define DFLOW_REGISTER_RULE_T(op, rule, T)     \
  DFLOW_REGISTER_DENSE(op, rule, T);           \
  DFLOW_REGISTER_SPARSE(op, rule, T, int32_t); \
  DFLOW_REGISTER_SPARSE(op, rule, T, int64_t)

#define DFLOW_REGISTER_RULE(op, rule)     \
  DFLOW_REGISTER_RULE_T(op, rule, float); \
  DFLOW_REGISTER_RULE_T(op, rule, double)

DFLOW_REGISTER_RULE("ApplyAdadelta", Rule::kAdadelta);
DFLOW_REGISTER_RULE("ApplyProximalAdagrad", Rule::kProximalAdagrad);
DFLOW_REGISTER_RULE("ApplyProximalGradientDescent",
                    Rule::kProximalGradientDescent);
DFLOW_REGISTER_RULE("ApplyFtrl", Rule::kFtrl);
DFLOW_REGISTER_RULE("ApplyFtrlV2", Rule::kFtrl);
DFLOW_REGISTER_RULE("ApplyAdagradDA", Rule::kAdagradDA);

}  // namespace
}  // namespace dflow
