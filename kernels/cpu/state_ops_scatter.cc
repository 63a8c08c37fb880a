// Rows of variables: ResourceGather (read rows of a resource variable) and
// the Scatter family (ScatterAdd/Sub/Update/Mul/Div/Max/Min on reference
// variables, their Resource* forms), with TensorFlow's names and semantics.
//
// Every index is checked before anything is written, so a bad index is an
// InvalidArgument naming it and the range and leaves the variable as it
// was (TensorFlow's CPU kernels may have applied the rows before it). A
// scatter updates the variable in place under its lock, copying the buffer
// first when a reader's snapshot still holds it (as AssignAdd does).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_state.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

template <typename Index>
absl::Status CheckIndices(const Tensor& indices, int64_t limit,
                          absl::string_view variable) {
  const Index* idx = indices.data<Index>();
  for (int64_t i = 0; i < indices.NumElements(); ++i) {
    if (idx[i] < 0 || idx[i] >= limit) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = ", idx[i], " is not in [0, ", limit,
          ") (the rows of variable '", variable, "')"));
    }
  }
  return absl::OkStatus();
}

// Copies `n` elements of `dtype` (strings element by element).
void CopyElements(DataType dtype, const Tensor& from, int64_t from_offset,
                  Tensor* to, int64_t to_offset, int64_t n) {
  if (dtype == DT_STRING) {
    const std::string* src = from.data<std::string>() + from_offset;
    std::string* dst = to->data<std::string>() + to_offset;
    for (int64_t k = 0; k < n; ++k) dst[k] = src[k];
    return;
  }
  const size_t size = DataTypeSize(dtype);
  std::memcpy(static_cast<char*>(to->raw_data()) + to_offset * size,
              static_cast<const char*>(from.raw_data()) + from_offset * size,
              n * size);
}

// params[b, indices[b, j], ...] for each batch element b (the leading
// batch_dims dimensions) and index j.
template <typename Index>
class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the resource input is not a variable"));
    const Tensor& indices = ctx->input(1);
    const Tensor params = var->Read();
    OP_REQUIRES(ctx, params.IsInitialized() && params.dtype() == var->dtype(),
                UninitializedValueError(var->name()));
    OP_REQUIRES(ctx, params.dtype() == output_type(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "variable '", var->name(), "' holds ",
                    DataTypeName(params.dtype()), ", gathered as ",
                    DataTypeName(output_type(0)))));
    int64_t bd = batch_dims_;
    if (bd < 0) bd += indices.shape().rank();
    OP_REQUIRES(ctx, bd >= 0 && bd <= indices.shape().rank(),
                absl::InvalidArgumentError(absl::StrCat(
                    "batch_dims ", batch_dims_, " is out of range for indices ",
                    indices.shape().ToString())));
    const TensorShape& ps = params.shape();
    OP_REQUIRES(ctx, ps.rank() >= bd + 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "variable '", var->name(), "' of shape ", ps.ToString(),
                    " has no dimension to gather after batch_dims ", bd)));
    int64_t batch = 1;
    for (int i = 0; i < bd; ++i) {
      OP_REQUIRES(ctx, ps.dim(i) == indices.shape().dim(i),
                  absl::InvalidArgumentError(absl::StrCat(
                      "batch dimension ", i, " of indices ",
                      indices.shape().ToString(), " and of variable '",
                      var->name(), "' ", ps.ToString(), " differ")));
      batch *= ps.dim(i);
    }
    const int64_t rows = ps.dim(bd);
    int64_t inner = 1;
    std::vector<int64_t> out_dims;
    for (int i = 0; i < indices.shape().rank(); ++i) {
      out_dims.push_back(indices.shape().dim(i));
    }
    for (int i = bd + 1; i < ps.rank(); ++i) {
      inner *= ps.dim(i);
      out_dims.push_back(ps.dim(i));
    }
    OP_REQUIRES_OK(ctx, CheckIndices<Index>(indices, rows, var->name()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    const int64_t per_batch = batch == 0 ? 0 : indices.NumElements() / batch;
    const Index* idx = indices.data<Index>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < per_batch; ++j) {
        const int64_t row = idx[b * per_batch + j];
        CopyElements(params.dtype(), params, (b * rows + row) * inner, out,
                     (b * per_batch + j) * inner, inner);
      }
    }
  }

 private:
  int64_t batch_dims_ = 0;
};

enum class ScatterKind { kAdd, kSub, kUpdate, kMul, kDiv, kMax, kMin };

template <typename T, typename Index, ScatterKind K>
class ScatterOp : public OpKernel {
 public:
  explicit ScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    OP_REQUIRES(ctx, var->dtype() == DataTypeToEnum<T>::value,
                absl::InvalidArgumentError(absl::StrCat(
                    "variable '", var->name(), "' holds ",
                    DataTypeName(var->dtype()), " but the updates are ",
                    DataTypeName(DataTypeToEnum<T>::value))));
    {
      std::lock_guard<std::mutex> lock(var->mu());
      OP_REQUIRES(ctx, var->initialized(),
                  UninitializedValueError(var->name()));
      Tensor* value = var->value();
      const TensorShape& vs = value->shape();
      OP_REQUIRES(ctx, vs.rank() >= 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "variable '", var->name(), "' is a scalar; scatter needs ",
                      "at least one dimension")));
      const int64_t rows = vs.dim(0);
      int64_t inner = 1;
      std::vector<int64_t> want;
      for (int i = 0; i < indices.shape().rank(); ++i) {
        want.push_back(indices.shape().dim(i));
      }
      for (int i = 1; i < vs.rank(); ++i) {
        inner *= vs.dim(i);
        want.push_back(vs.dim(i));
      }
      // The resource forms broadcast a scalar update (as TensorFlow's).
      const bool scalar = !is_ref_ && updates.shape().rank() == 0;
      OP_REQUIRES(ctx, scalar || updates.shape() == TensorShape(want),
                  absl::InvalidArgumentError(absl::StrCat(
                      "updates ", updates.shape().ToString(),
                      " must have shape indices.shape + var.shape[1:] = ",
                      TensorShape(want).ToString(), " (indices ",
                      indices.shape().ToString(), ", variable '", var->name(),
                      "' ", vs.ToString(), ")")));
      OP_REQUIRES_OK(ctx, CheckIndices<Index>(indices, rows, var->name()));
      if constexpr (K == ScatterKind::kDiv && std::is_integral_v<T>) {
        // An integer division by zero would trap; TensorFlow's kernel
        // leaves it to the CPU. Checked before anything is written.
        const T* u = updates.data<T>();
        for (int64_t i = 0; i < updates.NumElements(); ++i) {
          OP_REQUIRES(ctx, u[i] != T(0),
                      absl::InvalidArgumentError(absl::StrCat(
                          "updates has a zero at flat position ", i,
                          ": integer division by zero")));
        }
      }
      if (state_kernels::NeedsCopyBeforeUpdate(value, is_ref_)) {
        // Copy on write (kernel_util_state.h).
        Tensor copy;
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(value->dtype(), vs, &copy));
        std::copy_n(value->data<T>(), value->NumElements(), copy.data<T>());
        *value = std::move(copy);
        state_kernels::AdoptUpdatedValue(value, is_ref_);
      }
      T* v = value->data<T>();
      const T* u = updates.data<T>();
      const Index* idx = indices.data<Index>();
      for (int64_t i = 0; i < indices.NumElements(); ++i) {
        T* row = v + static_cast<int64_t>(idx[i]) * inner;
        for (int64_t k = 0; k < inner; ++k) {
          const T x = scalar ? u[0] : u[i * inner + k];
          if constexpr (K == ScatterKind::kAdd) {
            row[k] += x;
          } else if constexpr (K == ScatterKind::kSub) {
            row[k] -= x;
          } else if constexpr (K == ScatterKind::kMul) {
            row[k] *= x;
          } else if constexpr (K == ScatterKind::kDiv) {
            row[k] /= x;
          } else if constexpr (K == ScatterKind::kMax) {
            row[k] = std::max(row[k], x);
          } else if constexpr (K == ScatterKind::kMin) {
            row[k] = std::min(row[k], x);
          } else {
            row[k] = x;
          }
        }
      }
    }
    if (is_ref_) ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool is_ref_ = true;
};

const std::vector<DataType> kGatherTypes = {
    DT_FLOAT, DT_DOUBLE, DT_HALF,      DT_BFLOAT16,  DT_INT8,   DT_INT16,
    DT_INT32, DT_INT64,  DT_UINT8,     DT_UINT16,    DT_UINT32, DT_UINT64,
    DT_BOOL,  DT_STRING, DT_COMPLEX64, DT_COMPLEX128};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceGather")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kGatherTypes)
                          .TypeConstraint<int32_t>("Tindices"),
                      ResourceGatherOp<int32_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceGather")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kGatherTypes)
                          .TypeConstraint<int64_t>("Tindices"),
                      ResourceGatherOp<int64_t>);

#define DFLOW_REGISTER_SCATTER_ONE(op, kind, T, Index)             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                       \
                            .Device(kDeviceCpu)                    \
                            .TypeConstraint<T>("T")                \
                            .TypeConstraint<Index>("Tindices"),    \
                        ScatterOp<T, Index, kind>);                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Resource" op)            \
                            .Device(kDeviceCpu)                    \
                            .TypeConstraint<T>("dtype")            \
                            .TypeConstraint<Index>("Tindices"),    \
                        ScatterOp<T, Index, kind>)

#define DFLOW_REGISTER_SCATTER(T)                                            \
  DFLOW_REGISTER_SCATTER_ONE("ScatterAdd", ScatterKind::kAdd, T, int32_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterAdd", ScatterKind::kAdd, T, int64_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterSub", ScatterKind::kSub, T, int32_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterSub", ScatterKind::kSub, T, int64_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterUpdate", ScatterKind::kUpdate, T,       \
                             int32_t);                                       \
  DFLOW_REGISTER_SCATTER_ONE("ScatterUpdate", ScatterKind::kUpdate, T,       \
                             int64_t);                                       \
  DFLOW_REGISTER_SCATTER_ONE("ScatterMul", ScatterKind::kMul, T, int32_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterMul", ScatterKind::kMul, T, int64_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterDiv", ScatterKind::kDiv, T, int32_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterDiv", ScatterKind::kDiv, T, int64_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterMax", ScatterKind::kMax, T, int32_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterMax", ScatterKind::kMax, T, int64_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterMin", ScatterKind::kMin, T, int32_t);   \
  DFLOW_REGISTER_SCATTER_ONE("ScatterMin", ScatterKind::kMin, T, int64_t)

DFLOW_REGISTER_SCATTER(float);
DFLOW_REGISTER_SCATTER(double);
DFLOW_REGISTER_SCATTER(int32_t);
DFLOW_REGISTER_SCATTER(int64_t);

}  // namespace
}  // namespace dflow
