// The GPU implementations of StridedSlice and StridedSliceGrad: the box a
// slice spec selects is gathered from (or, for the gradient, scattered
// into zeros of) device memory with one strided copy (array_ops_gpu.h);
// begin/end/strides and the gradient's shape are host-memory arguments
// (kernels/gpu/kernel_defs_shape.cc). The int32 definitions keep every
// argument in host memory: the same classes copy on the host there.
//
// The spec's semantics (TensorFlow's masks, ellipsis, new and shrunk axes)
// and error messages must match the CPU kernel exactly: BuildStridedBox and
// its helpers below are a copy of kernels/cpu/slicing_ops_slice.cc's, whose
// anonymous namespace keeps them from being shared (moving them into
// kernels/cpu/slicing_ops_util.h would let both files use one copy).
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/gpu/array_ops_gpu.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;

std::string Ints(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}


// --- StridedSlice ---

struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

// Where each output dimension comes from: a dense (input) dimension, a new
// axis of size 1, or nowhere (a shrunk dimension).
constexpr int64_t kNewAxis = -1;
constexpr int64_t kShrunk = -2;

// The box a strided slice spec selects: per input dimension the first
// index, the step and the count (`sizes`), and the output shape.
struct StridedBox {
  IndexVec begin, strides, sizes;
  TensorShape out_shape;
  bool identity = true;
};

// TensorFlow's semantics: the spec is "sparse" (it may hold one ellipsis,
// standing for as many whole dimensions as needed, and new axes); it is
// first expanded to one entry per input dimension, then each entry's
// begin/end are made canonical (negative from the end, clamped, masks).
absl::Status BuildStridedBox(const TensorShape& shape, const IndexVec& sb,
                             const IndexVec& se, const IndexVec& ss,
                             const StridedSliceMasks& m, StridedBox* box) {
  const int rank = shape.rank();
  const int n = static_cast<int>(sb.size());
  const auto spec = [&] {
    return absl::StrCat("begin = ", Ints(sb), ", end = ", Ints(se),
                        ", strides = ", Ints(ss), " on shape ",
                        shape.ToString());
  };
  if (n > 63) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a slice spec has at most 63 entries, got ", n, " (", spec(), ")"));
  }
  const uint64_t ellipsis_mask = static_cast<uint64_t>(m.ellipsis);
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ellipsis_mask ", m.ellipsis,
                     " marks more than one ellipsis (", spec(), ")"));
  }
  // New axes after the ellipsis do not consume input dimensions.
  int sparse_dims = n;
  int new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < n; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (ellipsis_seen && (m.new_axis & bit) != 0) ++new_axes_after_ellipsis;
    if ((ellipsis_mask & bit) != 0) ellipsis_seen = true;
  }
  uint64_t ellipsis = ellipsis_mask;
  if (!ellipsis_seen) {
    // An implied ellipsis at the end: unmentioned dimensions are taken
    // whole.
    ellipsis |= uint64_t{1} << n;
    ++sparse_dims;
  }

  // Dense spec: one entry per input dimension.
  IndexVec begin(rank, 0), end(rank, 0), strides(rank, 1);
  absl::InlinedVector<bool, 8> begin_masked(rank, true), end_masked(rank, true),
      shrink(rank, false);
  IndexVec gather;  // output dim -> dense dim, kNewAxis or kShrunk
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if ((ellipsis & bit) != 0) {
      const int next = std::min(
          rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < next; ++full) gather.push_back(full);
    } else if ((static_cast<uint64_t>(m.new_axis) & bit) != 0) {
      gather.push_back(kNewAxis);
    } else {
      if (full == rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the slice spec indexes more dimensions than the input's ", rank,
            " (", spec(), ")"));
      }
      begin[full] = sb[i];
      end[full] = se[i];
      strides[full] = ss[i];
      begin_masked[full] = (static_cast<uint64_t>(m.begin) & bit) != 0;
      end_masked[full] = (static_cast<uint64_t>(m.end) & bit) != 0;
      if ((static_cast<uint64_t>(m.shrink) & bit) != 0) {
        shrink[full] = true;
        gather.push_back(kShrunk);
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }

  box->begin.resize(rank);
  box->strides.resize(rank);
  box->sizes.resize(rank);
  box->identity = true;
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = shape.dim(i);
    const int64_t stride = strides[i];
    if (stride == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the stride for dimension ", i,
                       " is 0; strides must be non-zero (", spec(), ")"));
    }
    int64_t b = 0, e = 0;
    if (shrink[i]) {
      if (stride < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dimension ", i, " is indexed (shrink_axis_mask) with stride ",
            stride, "; indexing needs a positive stride (", spec(), ")"));
      }
      b = begin[i] < 0 ? dim + begin[i] : begin[i];
      if (b < 0 || b >= dim) {
        return absl::InvalidArgumentError(
            absl::StrCat("index ", begin[i], " is out of range for dimension ",
                         i, " of size ", dim, " (", spec(), ")"));
      }
      e = b + 1;
    } else {
      // Valid positions: [0, dim] going forward, [-1, dim - 1] backward
      // (-1 meaning "before the first element").
      const int64_t lo = stride > 0 ? 0 : -1;
      const int64_t hi = stride > 0 ? dim : dim - 1;
      const auto canonical = [&](int64_t x, bool masked, bool is_begin) {
        if (masked) return (stride > 0) == is_begin ? lo : hi;
        const int64_t fwd = x < 0 ? dim + x : x;
        return fwd < lo ? lo : (fwd > hi ? hi : fwd);
      };
      b = canonical(begin[i], begin_masked[i], true);
      e = canonical(end[i], end_masked[i], false);
    }
    const int64_t interval = e - b;
    int64_t size = 0;
    if (interval != 0 && (interval < 0) == (stride < 0)) {
      size = interval / stride + (interval % stride != 0 ? 1 : 0);
    }
    box->begin[i] = b;
    box->strides[i] = stride;
    box->sizes[i] = size;
    box->identity = box->identity && stride == 1 && b == 0 && e == dim;
  }
  box->out_shape = TensorShape();
  for (int64_t g : gather) {
    if (g >= 0) {
      box->out_shape.AddDim(box->sizes[g]);
    } else if (g == kNewAxis) {
      box->out_shape.AddDim(1);
    }
  }
  return absl::OkStatus();
}

// The five mask attrs of StridedSlice and StridedSliceGrad.
void ReadMasks(OpKernelConstruction* ctx, StridedSliceMasks* masks) {
  for (auto [name, field] :
       {std::pair<const char*, int64_t*>{"begin_mask", &masks->begin},
        {"end_mask", &masks->end},
        {"ellipsis_mask", &masks->ellipsis},
        {"new_axis_mask", &masks->new_axis},
        {"shrink_axis_mask", &masks->shrink}}) {
    absl::Status s = ctx->GetAttr(name, field);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
  }
}

// Reads begin/end/strides (inputs first..first+2) and builds the box they
// select in `shape`.
absl::Status ReadStridedBox(OpKernelContext* ctx, int first,
                            const TensorShape& shape,
                            const StridedSliceMasks& masks, StridedBox* box) {
  const Tensor& b = ctx->input(first);
  const Tensor& e = ctx->input(first + 1);
  const Tensor& s = ctx->input(first + 2);
  if (b.shape().rank() != 1 || b.shape() != e.shape() ||
      b.shape() != s.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "begin, end and strides must be vectors of one length, but have "
        "shapes ",
        b.shape().ToString(), ", ", e.shape().ToString(), " and ",
        s.shape().ToString()));
  }
  IndexVec begin, end, strides;
  for (auto [t, what, out] :
       {std::tuple<const Tensor*, const char*, IndexVec*>{&b, "begin", &begin},
        {&e, "end", &end},
        {&s, "strides", &strides}}) {
    absl::Status status = array_kernels::ReadIndexVector(*t, what, out);
    if (!status.ok()) return status;
  }
  return BuildStridedBox(shape, begin, end, strides, masks, box);
}

// The strided copy between the box (per input dimension: begin, step,
// count) of a tensor of `shape` and a dense tensor of the box's elements:
// gather (box -> dense) or scatter (dense -> box).
absl::Status CopyBox(OpKernelContext* ctx, const char* what,
                     const TensorShape& shape, const StridedBox& box,
                     bool gather, const Tensor& src, Tensor* dst) {
  const std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> box_strides(dims.size());
  int64_t offset = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    box_strides[d] = strides[d] * box.strides[d];
    offset += box.begin[d] * strides[d];
  }
  const std::vector<int64_t> dense = RowMajorStrides(box.sizes);
  absl::StatusOr<GpuStridedCopy> plan =
      gather ? MakeGpuStridedCopy(box.sizes, box_strides, dense, offset, 0, {},
                                  what)
             : MakeGpuStridedCopy(box.sizes, dense, box_strides, 0, offset, {},
                                  what);
  if (!plan.ok()) return plan.status();
  if (ctx->kernel().output_in_host_memory(0)) {
    // The int32 definitions: every argument in host memory.
    HostStridedCopy(static_cast<int>(DataTypeSize(src.dtype())), *plan,
                    src.raw_data(), dst->raw_data());
    return absl::OkStatus();
  }
  return LaunchGpuStridedCopy(static_cast<int>(DataTypeSize(src.dtype())),
                              *plan, src.raw_data(), dst->raw_data(),
                              GpuComputeStreamOf(ctx));
}

class StridedSliceGpuOp : public OpKernel {
 public:
  explicit StridedSliceGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    StridedBox box;
    OP_REQUIRES_OK(ctx, ReadStridedBox(ctx, 1, input.shape(), masks_, &box));
    if (box.identity) {
      absl::StatusOr<Tensor> view = input.Reshaped(box.out_shape);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(0, *std::move(view));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, box.out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, CopyBox(ctx, "StridedSlice", input.shape(), box,
                                /*gather=*/true, input, out));
  }

 private:
  StridedSliceMasks masks_;
};

// Zeros of `shape` with `dy` written into the box the spec selects.
class StridedSliceGradGpuOp : public OpKernel {
 public:
  explicit StridedSliceGradGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, shape_t.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("shape must be a vector, but has shape ",
                                 shape_t.shape().ToString())));
    IndexVec dims;
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexVector(shape_t, "shape", &dims));
    TensorShape shape;
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(
                      absl::StrCat("shape [", absl::StrJoin(dims, ","),
                                   "] has a negative dimension")));
      shape.AddDim(d);
    }
    StridedBox box;
    OP_REQUIRES_OK(ctx, ReadStridedBox(ctx, 1, shape, masks_, &box));
    OP_REQUIRES(ctx, dy.shape() == box.out_shape,
                absl::InvalidArgumentError(absl::StrCat(
                    "dy has shape ", dy.shape().ToString(),
                    " but the slice of a tensor of shape ", shape.ToString(),
                    " has shape ", box.out_shape.ToString())));
    if (box.identity) {
      absl::StatusOr<Tensor> view = dy.Reshaped(shape);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(0, *std::move(view));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->TotalBytes() == 0) return;
    if (output_in_host_memory(0)) {
      std::memset(out->raw_data(), 0, out->TotalBytes());
    } else {
      DFLOW_GPU_OP_REQUIRES_CUDA(
          ctx,
          cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(),
                          GpuStreamOf(ctx)),
          "clearing StridedSliceGrad's output");
    }
    if (dy.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, CopyBox(ctx, "StridedSliceGrad", shape, box,
                                /*gather=*/false, dy, out));
  }

 private:
  StridedSliceMasks masks_;
};

DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder("StridedSlice")
        .Device(kDeviceGpu)
        .TypeConstraint("T", gpu_kernel_defs::DeviceMovable())
        .TypeConstraint("Index", {DT_INT32, DT_INT64})
        .HostMemory("begin")
        .HostMemory("end")
        .HostMemory("strides"),
    StridedSliceGpuOp);
DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder("StridedSliceGrad")
        .Device(kDeviceGpu)
        .TypeConstraint("T", gpu_kernel_defs::DeviceMovable())
        .TypeConstraint("Index", {DT_INT32, DT_INT64})
        .HostMemory("shape")
        .HostMemory("begin")
        .HostMemory("end")
        .HostMemory("strides"),
    StridedSliceGradGpuOp);
// The int32 definitions keep every argument in host memory.
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("StridedSlice")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", {DT_INT32})
                              .TypeConstraint("Index", {DT_INT32, DT_INT64})
                              .HostMemory("input")
                              .HostMemory("begin")
                              .HostMemory("end")
                              .HostMemory("strides")
                              .HostMemory("output"),
                          StridedSliceGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("StridedSliceGrad")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", {DT_INT32})
                              .TypeConstraint("Index", {DT_INT32, DT_INT64})
                              .HostMemory("shape")
                              .HostMemory("begin")
                              .HostMemory("end")
                              .HostMemory("strides")
                              .HostMemory("dy")
                              .HostMemory("output"),
                          StridedSliceGradGpuOp);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
