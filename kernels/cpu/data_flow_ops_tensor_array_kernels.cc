// CPU kernels of the TensorArray ops (graph/ops/data_flow_ops_tensor_array.cc)
// over the TensorArray of data_flow_ops_tensor_array.h. TensorArrayV3 makes
// a new array each time it runs, owned by the step
// (runtime/step_container.h), as TensorFlow's per-step container does: a
// dynamic_rnn's arrays of one run are not the next run's, and nothing
// outlives the run. The flow outputs carry no data (0, or flow_in passed
// on): they exist to order reads after writes. None of these waits.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/data_flow_ops_tensor_array.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/step_container.h"

namespace dflow {
namespace {

absl::StatusOr<TensorArray*> ArrayOf(OpKernelContext* ctx) {
  TensorArray* array = ResourceOfInput<TensorArray>(ctx, 0);
  if (array == nullptr) {
    return absl::InvalidArgumentError(
        "input 0 is not the handle of a TensorArray (connect it to a "
        "TensorArrayV3 or TensorArrayGradV3)");
  }
  return array;
}

// The int32 indices input `i` as int64s: a scalar or a vector.
absl::Status Indices(OpKernelContext* ctx, int i, const char* what,
                     std::vector<int64_t>* out) {
  array_kernels::IndexVec v;
  if (absl::Status s = array_kernels::ReadIndexVector(ctx->input(i), what, &v);
      !s.ok()) {
    return s;
  }
  out->assign(v.begin(), v.end());
  return absl::OkStatus();
}

// The op's `dtype` attr must be the array's: reading floats as ints would
// reinterpret their bytes.
absl::Status CheckDtype(const TensorArray& array, DataType dtype) {
  if (array.dtype() == dtype) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "reads ", DataTypeName(dtype), " from ", array.DebugString(), " of ",
      DataTypeName(array.dtype()), " elements; set dtype to the array's"));
}

void SetFlow(OpKernelContext* ctx, int i, float value) {
  ctx->set_output(i, Tensor::Scalar<float>(value));
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &options_.dtype));
    ctx->GetAttr("element_shape", &options_.element_shape).IgnoreError();
    ctx->SetStatus(ctx->GetAttr("dynamic_size", &options_.dynamic_size));
    ctx->SetStatus(
        ctx->GetAttr("clear_after_read", &options_.clear_after_read));
    ctx->SetStatus(ctx->GetAttr("identical_element_shapes",
                                &options_.identical_element_shapes));
    ctx->GetAttr("tensor_array_name", &name_).IgnoreError();
    if (name_.empty()) name_ = ctx->name();
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->step_container() != nullptr,
                absl::FailedPreconditionError(
                    "TensorArrayV3 runs only inside a step (an executor's "
                    "run), which owns the array"));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(ctx->input(0),
                                                       "input 'size'", &size));
    OP_REQUIRES(ctx, size >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("size must be >= 0, got ", size)));
    TensorArray::Options options = options_;
    // A distinct name per array made (one per outer iteration when the op
    // sits in a loop), so errors tell them apart.
    options.name = absl::StrCat(name_, "_", count_++);
    Var* var = ctx->step_container()->Add(
        options.name, std::make_unique<TensorArray>(options, size));
    ctx->set_output_var(0, var);
    SetFlow(ctx, 1, 0.0f);
  }
  bool IsExpensive() const override { return false; }

 private:
  TensorArray::Options options_;
  std::string name_;
  std::atomic<int64_t> count_{0};
};

class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("source", &source_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    OP_REQUIRES(ctx, ctx->step_container() != nullptr,
                absl::FailedPreconditionError(
                    "TensorArrayGradV3 runs only inside a step (an "
                    "executor's run), which owns the array"));
    absl::StatusOr<Var*> grad = (*array)->Grad(source_, ctx->step_container());
    OP_REQUIRES_OK(ctx, grad.status());
    ctx->set_output_var(0, *grad);
    ctx->set_output(1, ctx->input(1));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string source_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(
                            ctx->input(1), "input 'index'", &index));
    OP_REQUIRES_OK(ctx, (*array)->Write(index, ctx->input(2), ctx));
    ctx->set_output(0, ctx->input(3));
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    OP_REQUIRES_OK(ctx, CheckDtype(**array, dtype_));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(
                            ctx->input(1), "input 'index'", &index));
    absl::StatusOr<Tensor> value = (*array)->Read(index, ctx);
    OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, *std::move(value));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
};

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->GetAttr("element_shape", &element_shape_).IgnoreError();
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    OP_REQUIRES_OK(ctx, CheckDtype(**array, dtype_));
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, Indices(ctx, 1, "input 'indices'", &indices));
    absl::StatusOr<Tensor> value =
        (*array)->Gather(indices, element_shape_, ctx);
    OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, *std::move(value));
  }

 private:
  DataType dtype_ = DT_INVALID;
  TensorShape element_shape_ = TensorShape::Unknown();
};

class TensorArrayScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, Indices(ctx, 1, "input 'indices'", &indices));
    const Tensor& value = ctx->input(2);
    const int64_t n = static_cast<int64_t>(indices.size());
    OP_REQUIRES(ctx, value.shape().rank() >= 1 && value.shape().dim(0) == n,
                absl::InvalidArgumentError(absl::StrCat(
                    "scatters a value of shape ", value.shape().ToString(),
                    " to ", n, " indices; its 0th dimension must be ", n)));
    std::vector<int64_t> dims;
    for (int d = 1; d < value.shape().rank(); ++d)
      dims.push_back(value.shape().dim(d));
    const TensorShape element(dims);
    for (int64_t i = 0; i < n; ++i) {
      // Each element shares the value's buffer (a row of it).
      absl::StatusOr<Tensor> row = value.Slice(i, i + 1).Reshaped(element);
      OP_REQUIRES_OK(ctx, row.status());
      OP_REQUIRES_OK(ctx, (*array)->Write(indices[i], *row, ctx));
    }
    ctx->set_output(0, ctx->input(3));
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->GetAttr("element_shape_except0", &element_shape_except0_)
        .IgnoreError();
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    OP_REQUIRES_OK(ctx, CheckDtype(**array, dtype_));
    std::vector<int64_t> lengths;
    absl::StatusOr<Tensor> value =
        (*array)->Concat(element_shape_except0_, &lengths, ctx);
    OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, *std::move(value));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 1, TensorShape({static_cast<int64_t>(lengths.size())}), &out));
    std::copy(lengths.begin(), lengths.end(), out->data<int64_t>());
  }

 private:
  DataType dtype_ = DT_INVALID;
  TensorShape element_shape_except0_ = TensorShape::Unknown();
};

class TensorArraySplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    const Tensor& lengths_in = ctx->input(2);
    OP_REQUIRES(ctx,
                lengths_in.dtype() == DT_INT64 && lengths_in.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "input 'lengths' must be an int64 vector, got ",
                    DataTypeName(lengths_in.dtype()), " of shape ",
                    lengths_in.shape().ToString())));
    const int64_t* l = lengths_in.data<int64_t>();
    std::vector<int64_t> lengths(l, l + lengths_in.NumElements());
    OP_REQUIRES_OK(ctx, (*array)->Split(ctx->input(1), lengths, ctx));
    ctx->set_output(0, ctx->input(3));
  }
  bool IsExpensive() const override { return false; }
};

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    absl::StatusOr<int64_t> size = (*array)->Size();
    OP_REQUIRES_OK(ctx, size.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(*size)));
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorArray*> array = ArrayOf(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    (*array)->Close();
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorArrayV3").Device(kDeviceCpu),
                      TensorArrayOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorArrayGradV3").Device(kDeviceCpu),
                      TensorArrayGradOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorArrayWriteV3").Device(kDeviceCpu),
                      TensorArrayWriteOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorArrayReadV3").Device(kDeviceCpu),
                      TensorArrayReadOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("TensorArrayGatherV3").Device(kDeviceCpu),
    TensorArrayGatherOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("TensorArrayScatterV3").Device(kDeviceCpu),
    TensorArrayScatterOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("TensorArrayConcatV3").Device(kDeviceCpu),
    TensorArrayConcatOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorArraySplitV3").Device(kDeviceCpu),
                      TensorArraySplitOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorArraySizeV3").Device(kDeviceCpu),
                      TensorArraySizeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorArrayCloseV3").Device(kDeviceCpu),
                      TensorArrayCloseOp);

}  // namespace
}  // namespace dflow
