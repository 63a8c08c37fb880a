// CPU kernels that take a box out of a tensor: Slice (begin and size per
// dimension) and StridedSlice (NumPy's input[begin:end:stride, ...] with
// TensorFlow's begin/end/ellipsis/new-axis/shrink-axis masks), and
// StridedSliceGrad, which writes a box back into zeros (the gradient of
// StridedSlice, with the same spec).
//
// A slice that takes everything forwards the input; one that is a single
// contiguous run of the input (rows of dimension 0, say) is a view sharing
// the input's buffer; anything else is gathered into a new tensor.
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;

std::string Ints(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// Outputs the box begin/strides/sizes of `input` with `out_shape` (the
// sizes with dims added or removed), sharing or copying as described above.
void EmitBox(OpKernelContext* ctx, const Tensor& input, const IndexVec& begin,
             const IndexVec& strides, const IndexVec& sizes, bool identity,
             const TensorShape& out_shape) {
  if (identity) {
    absl::StatusOr<Tensor> view = input.Reshaped(out_shape);
    OP_REQUIRES_OK(ctx, view.status());
    ctx->set_output(0, *std::move(view));
    return;
  }
  int64_t offset = 0;
  if (out_shape.num_elements() > 0 &&
      slicing::ContiguousBox(input.shape().dims(), begin, strides, sizes,
                             &offset)) {
    absl::StatusOr<Tensor> view =
        slicing::SharedRange(input, offset, out_shape);
    OP_REQUIRES_OK(ctx, view.status());
    ctx->set_output(0, *std::move(view));
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  slicing::StridedGather(input, begin, strides, sizes, out, ctx->thread_pool());
}

// --- Slice ---

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_tensor = ctx->input(2);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx,
        begin_t.shape().rank() == 1 && size_tensor.shape().rank() == 1 &&
            begin_t.NumElements() == rank && size_tensor.NumElements() == rank,
        absl::InvalidArgumentError(
            absl::StrCat("begin and size must be vectors of ", rank,
                         " entries for an input of shape ", shape.ToString(),
                         ", but have shapes ", begin_t.shape().ToString(),
                         " and ", size_tensor.shape().ToString())));
    IndexVec begin, sizes;
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexVector(begin_t, "begin", &begin));
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexVector(size_tensor, "size", &sizes));
    bool identity = true;
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = shape.dim(i);
      const int64_t b = begin[i];
      OP_REQUIRES(ctx, b >= 0 && b <= dim,
                  absl::InvalidArgumentError(absl::StrCat(
                      "begin[", i, "] = ", b, " is out of range for dimension ",
                      i, " of shape ", shape.ToString(), " (begin = ",
                      Ints(begin), ", size = ", Ints(sizes), ")")));
      if (sizes[i] == -1) sizes[i] = dim - b;
      OP_REQUIRES(ctx, sizes[i] >= 0 && sizes[i] <= dim - b,
                  absl::InvalidArgumentError(absl::StrCat(
                      "size[", i, "] = ", sizes[i], " is out of range for ",
                      "dimension ", i, " of shape ", shape.ToString(),
                      " from begin[", i, "] = ", b, ": it must be in [0, ",
                      dim - b, "] or -1 (begin = ", Ints(begin), ")")));
      identity = identity && b == 0 && sizes[i] == dim;
      out_shape.AddDim(sizes[i]);
    }
    const IndexVec strides(rank, 1);
    EmitBox(ctx, input, begin, strides, sizes, identity, out_shape);
  }
};

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

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StridedBox box;
    OP_REQUIRES_OK(ctx, ReadStridedBox(ctx, 1, input.shape(), masks_, &box));
    EmitBox(ctx, input, box.begin, box.strides, box.sizes, box.identity,
            box.out_shape);
  }

 private:
  StridedSliceMasks masks_;
};

// --- StridedSliceGrad ---

// Zeros of `shape` with `dy` written into the box the spec selects: every
// element the forward slice read gets its gradient, the others none.
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
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
    slicing::FillZeros(out, ctx->thread_pool());
    slicing::StridedScatter(dy, box.begin, box.strides, box.sizes, out,
                            ctx->thread_pool());
  }

 private:
  StridedSliceMasks masks_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Slice")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index", {DT_INT32, DT_INT64}),
                      SliceOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StridedSlice")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index",
                                          {DT_INT16, DT_INT32, DT_INT64}),
                      StridedSliceOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StridedSliceGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index", {DT_INT32, DT_INT64}),
                      StridedSliceGradOp);

}  // namespace
}  // namespace dflow
