// CPU kernels of the TensorList ops that move many elements at once
// between a list and one tensor: TensorListGather and the scatters (a
// TensorFlow 2 TensorArray's gather and scatter, and each other's
// gradient), TensorListConcatV2 and TensorListSplit (its concat and split,
// elements of different 0th sizes). An element never set counts as zeros
// of the element shape, which must then be known (data_flow_ops_tensor_list.h
// has the shared helpers).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/data_flow_ops_tensor_list.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using tensor_list::CheckDtype;
using tensor_list::Element;
using tensor_list::ListInput;
using tensor_list::ListKernel;
using tensor_list::ListToChange;
using tensor_list::MergeShapes;
using tensor_list::PartialShape;
using tensor_list::SetListOutput;

// The int32 vector (or scalar) input `i`, every value >= 0.
absl::StatusOr<std::vector<int64_t>> Indices(OpKernelContext* ctx, int i) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_INT32 || t.shape().rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices must be an int32 vector, got ", DataTypeName(t.dtype()),
        " of shape ", t.shape().ToString()));
  }
  std::vector<int64_t> out(t.data<int32_t>(),
                           t.data<int32_t>() + t.NumElements());
  for (int64_t index : out) {
    if (index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("index ", index, " is negative; list indices are >= 0"));
    }
  }
  return out;
}

// The int64 vector input `i` of lengths, every one >= 0.
absl::StatusOr<std::vector<int64_t>> Lengths(OpKernelContext* ctx, int i) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_INT64 || t.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lengths must be an int64 vector, got ", DataTypeName(t.dtype()),
        " of shape ", t.shape().ToString()));
  }
  std::vector<int64_t> out(t.data<int64_t>(),
                           t.data<int64_t>() + t.NumElements());
  for (int64_t length : out) {
    if (length < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("lengths must be >= 0, got ", length));
    }
  }
  return out;
}

// The shape of t without its 0th dimension (t has rank >= 1).
TensorShape RowShape(const TensorShape& t) {
  TensorShape row;
  for (int d = 1; d < t.rank(); ++d) row.AddDim(t.dim(d));
  return row;
}

// Copies `parts` one after the other into `out` (all of its dtype).
void CopyParts(const std::vector<Tensor>& parts, Tensor* out) {
  VisitStorageType(out->dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* dst = out->data<T>();
    for (const Tensor& part : parts) {
      dst = std::copy_n(part.data<T>(), part.NumElements(), dst);
    }
  });
}

// Sets rows of `tensor` at `indices` of `list` (a scatter): `list` grows to
// reach the largest index.
absl::Status ScatterInto(const Tensor& tensor,
                         const std::vector<int64_t>& indices,
                         TensorList* list) {
  if (tensor.shape().rank() < 1 ||
      tensor.shape().dim(0) != static_cast<int64_t>(indices.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("scatters a tensor of shape ", tensor.shape().ToString(),
                     " to ", indices.size(),
                     " indices; its 0th dimension must be ", indices.size()));
  }
  const TensorShape row = RowShape(tensor.shape());
  absl::StatusOr<TensorShape> merged =
      MergeShapes(list->element_shape, row, "the scattered rows");
  if (!merged.ok()) return merged.status();
  for (size_t r = 0; r < indices.size(); ++r) {
    const size_t index = static_cast<size_t>(indices[r]);
    if (index >= list->tensors.size()) list->tensors.resize(index + 1);
    // A view of row r: the elements share the tensor's buffer.
    absl::StatusOr<Tensor> slice = tensor.SliceChecked(r, r + 1);
    if (!slice.ok()) return slice.status();
    absl::StatusOr<Tensor> element = slice->Reshaped(row);
    if (!element.ok()) return element.status();
    list->tensors[index] = *std::move(element);
  }
  return absl::OkStatus();
}

class TensorListGatherOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = TypedList(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorList& list = **in;
    absl::StatusOr<std::vector<int64_t>> indices = Indices(ctx, 1);
    OP_REQUIRES_OK(ctx, indices.status());
    absl::StatusOr<TensorShape> shape = ElementShapeOf(ctx, list, 2);
    OP_REQUIRES_OK(ctx, shape.status());
    for (int64_t index : *indices) {
      OP_REQUIRES(ctx, index < static_cast<int64_t>(list.tensors.size()),
                  absl::InvalidArgumentError(
                      absl::StrCat("gathers index ", index, " of a list of ",
                                   list.tensors.size(), " tensors")));
      const Tensor& t = list.tensors[index];
      if (!t.IsInitialized()) continue;
      shape = MergeShapes(*shape, t.shape(), "a gathered element");
      OP_REQUIRES_OK(ctx, shape.status());
    }
    OP_REQUIRES(
        ctx, shape->IsFullyDefined(),
        absl::InvalidArgumentError(absl::StrCat(
            "TensorListGather needs the element shape, but it is ",
            shape->ToString(), " (give a fully defined element_shape)")));
    std::vector<Tensor> parts;
    parts.reserve(indices->size());
    for (int64_t index : *indices) {
      absl::StatusOr<Tensor> element = Element(ctx, list, index, *shape);
      OP_REQUIRES_OK(ctx, element.status());
      parts.push_back(*std::move(element));
    }
    TensorShape stacked({static_cast<int64_t>(indices->size())});
    for (int64_t d : shape->dims()) stacked.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, stacked, &out));
    CopyParts(parts, out);
  }
};

// TensorListScatter and TensorListScatterV2: a new list of the tensor's
// rows at the indices, as long as the largest index + 1 (V2: at least
// num_elements when that is not -1).
class TensorListScatterOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tensor = ctx->input(0);
    absl::StatusOr<std::vector<int64_t>> indices = Indices(ctx, 1);
    OP_REQUIRES_OK(ctx, indices.status());
    absl::StatusOr<TensorShape> declared = PartialShape(ctx->input(2));
    OP_REQUIRES_OK(ctx, declared.status());
    auto list = std::make_shared<TensorList>();
    list->element_dtype = tensor.dtype();
    list->element_shape = *declared;
    if (num_inputs() > 3) {
      const Tensor& n = ctx->input(3);
      OP_REQUIRES(
          ctx, n.dtype() == DT_INT32 && n.shape().rank() == 0,
          absl::InvalidArgumentError("num_elements must be an int32 scalar"));
      const int64_t count = *n.data<int32_t>();
      OP_REQUIRES(ctx, count >= -1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "num_elements is ", count,
                      "; give -1 for as many as the indices reach")));
      if (count > 0) list->tensors.resize(static_cast<size_t>(count));
    }
    OP_REQUIRES_OK(ctx, ScatterInto(tensor, *indices, list.get()));
    absl::StatusOr<TensorShape> merged = MergeShapes(
        list->element_shape, RowShape(tensor.shape()), "the scattered rows");
    OP_REQUIRES_OK(ctx, merged.status());
    list->element_shape = *merged;
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(list)));
  }
};

class TensorListScatterIntoExistingListOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = TypedList(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    const Tensor& tensor = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckDtype(**in, tensor.dtype()));
    absl::StatusOr<std::vector<int64_t>> indices = Indices(ctx, 2);
    OP_REQUIRES_OK(ctx, indices.status());
    std::shared_ptr<TensorList> out = ListToChange(ctx, 0, **in);
    OP_REQUIRES_OK(ctx, ScatterInto(tensor, *indices, out.get()));
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(out)));
  }
};

// TensorListConcatV2: the elements joined along their 0th dimension (they
// may differ there only), and each one's size there. An element never set
// is zeros of the element shape, its 0th size from element_shape or else
// from leading_dims.
class TensorListConcatOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = TypedList(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorList& list = **in;
    absl::StatusOr<TensorShape> shape = ElementShapeOf(ctx, list, 1);
    OP_REQUIRES_OK(ctx, shape.status());
    OP_REQUIRES(ctx, shape->unknown_rank() || shape->rank() >= 1,
                absl::InvalidArgumentError(
                    "TensorListConcat joins elements of rank >= 1; the "
                    "element shape is a scalar's"));
    const Tensor& leading = ctx->input(2);
    OP_REQUIRES(
        ctx, leading.dtype() == DT_INT64 && leading.shape().rank() <= 1,
        absl::InvalidArgumentError("leading_dims must be an int64 vector"));
    // The shape every element shares past dimension 0.
    TensorShape rows =
        shape->unknown_rank() ? TensorShape::Unknown() : RowShape(*shape);
    for (const Tensor& t : list.tensors) {
      if (!t.IsInitialized()) continue;
      OP_REQUIRES(ctx, t.shape().rank() >= 1,
                  absl::InvalidArgumentError(
                      "TensorListConcat joins elements of rank >= 1; the "
                      "list holds a scalar"));
      absl::StatusOr<TensorShape> merged =
          MergeShapes(rows, RowShape(t.shape()), "an element's rows");
      OP_REQUIRES_OK(ctx, merged.status());
      rows = *merged;
    }
    const int64_t n = static_cast<int64_t>(list.tensors.size());
    std::vector<Tensor> parts;
    parts.reserve(list.tensors.size());
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &lengths));
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = list.tensors[i];
      if (t.IsInitialized()) {
        parts.push_back(t);
      } else {
        int64_t first =
            shape->unknown_rank() ? TensorShape::kUnknownDim : shape->dim(0);
        if (first == TensorShape::kUnknownDim && i < leading.NumElements()) {
          first = leading.data<int64_t>()[i];
        }
        OP_REQUIRES(ctx, first >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "list element ", i,
                        " was never set and its 0th size is unknown (give "
                        "element_shape's first size or leading_dims)")));
        TensorShape zeros_shape({first});
        if (!rows.unknown_rank()) {
          for (int64_t d : rows.dims()) zeros_shape.AddDim(d);
        }
        absl::StatusOr<Tensor> zeros = tensor_list::Zeros(
            ctx, element_dtype_,
            rows.unknown_rank() ? TensorShape::Unknown() : zeros_shape,
            absl::StrCat("list element ", i));
        OP_REQUIRES_OK(ctx, zeros.status());
        parts.push_back(*std::move(zeros));
      }
      lengths->data<int64_t>()[i] = parts.back().shape().dim(0);
      total += parts.back().shape().dim(0);
    }
    OP_REQUIRES(ctx, n > 0 || rows.IsFullyDefined(),
                absl::InvalidArgumentError(absl::StrCat(
                    "concatenating an empty list needs the element shape "
                    "past its 0th dimension, but it is ",
                    rows.ToString())));
    TensorShape joined({total});
    for (int64_t d : rows.dims()) joined.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, joined, &out));
    CopyParts(parts, out);
  }
};

// TensorListSplit: a list of consecutive pieces of the tensor along its
// 0th dimension, of the given lengths.
class TensorListSplitOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tensor = ctx->input(0);
    OP_REQUIRES(ctx, tensor.shape().rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "TensorListSplit splits a tensor of rank >= 1, got shape ",
                    tensor.shape().ToString())));
    absl::StatusOr<TensorShape> declared = PartialShape(ctx->input(1));
    OP_REQUIRES_OK(ctx, declared.status());
    absl::StatusOr<std::vector<int64_t>> lengths = Lengths(ctx, 2);
    OP_REQUIRES_OK(ctx, lengths.status());
    int64_t total = 0;
    for (int64_t length : *lengths) total += length;
    OP_REQUIRES(
        ctx, total == tensor.shape().dim(0),
        absl::InvalidArgumentError(absl::StrCat(
            "split lengths add up to ", total,
            " but the tensor's 0th dimension is ", tensor.shape().dim(0),
            " (shape ", tensor.shape().ToString(), "); they must be equal")));
    TensorShape pieces({TensorShape::kUnknownDim});
    for (int64_t d : RowShape(tensor.shape()).dims()) pieces.AddDim(d);
    absl::StatusOr<TensorShape> shape =
        MergeShapes(*declared, pieces, "the tensor's pieces");
    OP_REQUIRES_OK(ctx, shape.status());
    auto list = std::make_shared<TensorList>();
    list->element_dtype = tensor.dtype();
    list->element_shape = *shape;
    int64_t begin = 0;
    for (int64_t length : *lengths) {
      absl::StatusOr<Tensor> piece = tensor.SliceChecked(begin, begin + length);
      OP_REQUIRES_OK(ctx, piece.status());
      list->tensors.push_back(*std::move(piece));
      begin += length;
    }
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(list)));
  }
};

#define DFLOW_REGISTER_LIST_OP(NAME, KERNEL) \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(NAME).Device(kDeviceCpu), KERNEL)

DFLOW_REGISTER_LIST_OP("TensorListGather", TensorListGatherOp);
DFLOW_REGISTER_LIST_OP("TensorListScatter", TensorListScatterOp);
DFLOW_REGISTER_LIST_OP("TensorListScatterV2", TensorListScatterOp);
DFLOW_REGISTER_LIST_OP("TensorListScatterIntoExistingList",
                       TensorListScatterIntoExistingListOp);
DFLOW_REGISTER_LIST_OP("TensorListConcatV2", TensorListConcatOp);
DFLOW_REGISTER_LIST_OP("TensorListSplit", TensorListSplitOp);

#undef DFLOW_REGISTER_LIST_OP

}  // namespace
}  // namespace dflow
