// CPU kernels of the TensorList ops (graph/ops/data_flow_ops_tensor_list.cc)
// over the TensorList value of data_flow_ops_tensor_list.h, with
// TensorFlow's semantics: an element never set reads as zeros of the
// element shape (which must then be fully known), PopBack of an empty list
// and an index out of range are errors naming the list's length, and every
// op returns a new list. AddN and ZerosLike of lists (the gradients of
// TensorFlow 2's while loops add and zero them) are here too: element by
// element, an unset element counting as zeros.
#include "kernels/cpu/data_flow_ops_optional.h"
#include "kernels/cpu/data_flow_ops_tensor_list.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "graph/variant.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace tensor_list {

// The list a variant input holds.
absl::StatusOr<const TensorList*> ListInput(OpKernelContext* ctx, int i) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_VARIANT || t.shape().rank() != 0 || !t.IsInitialized()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", i, " must be a TensorList (a variant scalar), got a ",
        DataTypeName(t.dtype()), " tensor of shape ", t.shape().ToString()));
  }
  const Variant& v = *t.data<Variant>();
  const TensorList* list = v.get<TensorList>();
  if (list == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", i, " must be a TensorList, but the variant holds ",
        v.TypeName()));
  }
  return list;
}

absl::Status SetListOutput(OpKernelContext* ctx, int i,
                           std::shared_ptr<const TensorList> list) {
  Tensor* out = nullptr;
  if (absl::Status s = ctx->allocate_output(i, TensorShape({}), &out);
      !s.ok()) {
    return s;
  }
  *out->data<Variant>() = Variant(std::move(list));
  return absl::OkStatus();
}

// TensorFlow's partial shape encoding: the scalar -1 (unknown rank) or a
// vector with -1 for unknown sizes.
absl::StatusOr<TensorShape> PartialShape(const Tensor& t) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "element_shape must be int32 or int64, got ", DataTypeName(t.dtype())));
  }
  auto value = [&](int64_t k) -> int64_t {
    return t.dtype() == DT_INT32 ? t.flat<int32_t>()[k] : t.flat<int64_t>()[k];
  };
  if (t.shape().rank() == 0) {
    if (value(0) != -1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a scalar element_shape must be -1 (unknown rank), got ", value(0)));
    }
    return TensorShape::Unknown();
  }
  if (t.shape().rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("element_shape must be a scalar or a vector, got shape ",
                     t.shape().ToString()));
  }
  TensorShape shape;
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    const int64_t d = value(k);
    if (d < -1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "element_shape has dimension ", d, "; sizes are >= 0 or -1"));
    }
    shape.AddDim(d);
  }
  return shape;
}

absl::StatusOr<TensorShape> MergeShapes(const TensorShape& a,
                                        const TensorShape& b,
                                        absl::string_view what) {
  absl::StatusOr<TensorShape> merged = a.Merge(b);
  if (!merged.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": shape ", b.ToString(),
        " does not match the list's element shape ", a.ToString()));
  }
  return merged;
}

absl::Status CheckDtype(const TensorList& list, DataType dtype) {
  if (list.element_dtype == dtype) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the list holds ", DataTypeName(list.element_dtype),
      " tensors but the op's element_dtype is ", DataTypeName(dtype)));
}

// Zeros of `dtype` and `shape`, which must be fully defined.
absl::StatusOr<Tensor> Zeros(OpKernelContext* ctx, DataType dtype,
                             const TensorShape& shape, absl::string_view what) {
  if (!shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what,
        " was never set, and its zeros cannot be made: the element "
        "shape ",
        shape.ToString(),
        " is not fully known (give the op a "
        "fully defined element_shape)"));
  }
  Tensor zeros;
  if (absl::Status s = ctx->allocate_temp(dtype, shape, &zeros); !s.ok()) {
    return s;
  }
  const bool known = VisitStorageType(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    std::fill_n(zeros.data<T>(), zeros.NumElements(), T());
  });
  if (!known) {
    return absl::UnimplementedError(absl::StrCat(
        "no zeros of ", DataTypeName(dtype), " for an unset list element"));
  }
  return zeros;
}

// The list's element `index`, or zeros when it was never set.
absl::StatusOr<Tensor> Element(OpKernelContext* ctx, const TensorList& list,
                               int64_t index, const TensorShape& shape) {
  const Tensor& t = list.tensors[index];
  if (t.IsInitialized()) return t;
  return Zeros(ctx, list.element_dtype, shape,
               absl::StrCat("list element ", index));
}

// The list of input `i` (`list`, read by ListInput) for an op to change and
// return: the list itself when no one else can see it (this node's input
// slot alone holds the tensor, and no other tensor shares its value), else
// a copy. A dynamic_rnn's accumulators (TensorListPushBack in the loop,
// TensorListPopBack in its gradient) then change in place instead of
// being copied whole in every iteration, quadratic in the sequence length.
std::shared_ptr<TensorList> ListToChange(OpKernelContext* ctx, int i,
                                         const TensorList& list) {
  if (ctx->input_held_only_here(i)) {
    const std::shared_ptr<const VariantValue>& value =
        ctx->input(i).data<Variant>()->value();
    if (value.get() == &list && value.use_count() == 1) {
      std::atomic_thread_fence(std::memory_order_acquire);
      // Made as a (non-const) TensorList by these kernels.
      return std::const_pointer_cast<TensorList>(
          std::static_pointer_cast<const TensorList>(value));
    }
  }
  return std::make_shared<TensorList>(list);
}

}  // namespace tensor_list

namespace {

using tensor_list::CheckDtype;
using tensor_list::Element;
using tensor_list::ListInput;
using tensor_list::ListKernel;
using tensor_list::ListToChange;
using tensor_list::MergeShapes;
using tensor_list::PartialShape;
using tensor_list::SetListOutput;
using tensor_list::Zeros;

// EmptyTensorList and TensorListReserve.
class NewListOp : public ListKernel {
 public:
  NewListOp(OpKernelConstruction* ctx, bool reserve)
      : ListKernel(ctx), reserve_(reserve) {}
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = PartialShape(ctx->input(0));
    OP_REQUIRES_OK(ctx, shape.status());
    const Tensor& count = ctx->input(1);
    OP_REQUIRES(ctx, count.dtype() == DT_INT32 && count.shape().rank() == 0,
                absl::InvalidArgumentError(
                    reserve_ ? "num_elements must be an int32 scalar"
                             : "max_num_elements must be an int32 scalar"));
    const int64_t n = *count.data<int32_t>();
    auto list = std::make_shared<TensorList>();
    list->element_dtype = element_dtype_;
    list->element_shape = *shape;
    if (reserve_) {
      OP_REQUIRES(
          ctx, n >= 0,
          absl::InvalidArgumentError(absl::StrCat("num_elements is ", n,
                                                  "; a list cannot be shorter "
                                                  "than 0")));
      list->tensors.resize(static_cast<size_t>(n));
    } else {
      OP_REQUIRES(ctx, n >= -1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "max_num_elements is ", n, "; give -1 for no limit")));
      list->max_num_elements = n;
    }
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(list)));
  }

 private:
  const bool reserve_;
};

class EmptyTensorListOp : public NewListOp {
 public:
  explicit EmptyTensorListOp(OpKernelConstruction* ctx)
      : NewListOp(ctx, false) {}
};
class TensorListReserveOp : public NewListOp {
 public:
  explicit TensorListReserveOp(OpKernelConstruction* ctx)
      : NewListOp(ctx, true) {}
};

class TensorListFromTensorOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    OP_REQUIRES(ctx, t.shape().rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "TensorListFromTensor needs a tensor of rank >= 1 (its "
                    "rows become the elements), got shape ",
                    t.shape().ToString())));
    absl::StatusOr<TensorShape> declared = PartialShape(ctx->input(1));
    OP_REQUIRES_OK(ctx, declared.status());
    TensorShape row;
    for (int d = 1; d < t.shape().rank(); ++d) row.AddDim(t.shape().dim(d));
    absl::StatusOr<TensorShape> shape =
        MergeShapes(*declared, row, "the tensor's rows");
    OP_REQUIRES_OK(ctx, shape.status());
    auto list = std::make_shared<TensorList>();
    list->element_dtype = t.dtype();
    list->element_shape = *shape;
    const int64_t rows = t.shape().dim(0);
    list->tensors.reserve(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      // A view of row r: the rows share the tensor's buffer.
      absl::StatusOr<Tensor> slice = t.SliceChecked(r, r + 1);
      OP_REQUIRES_OK(ctx, slice.status());
      absl::StatusOr<Tensor> element = slice->Reshaped(row);
      OP_REQUIRES_OK(ctx, element.status());
      list->tensors.push_back(*std::move(element));
    }
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(list)));
  }
};

class TensorListPushBackOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = ListInput(ctx, 0);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorList& list = **in;
    const Tensor& item = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckDtype(list, item.dtype()));
    OP_REQUIRES_OK(
        ctx, MergeShapes(list.element_shape, item.shape(), "the pushed tensor")
                 .status());
    OP_REQUIRES(
        ctx,
        list.max_num_elements < 0 ||
            static_cast<int64_t>(list.tensors.size()) < list.max_num_elements,
        absl::InvalidArgumentError(
            absl::StrCat("the list already holds its max_num_elements (",
                         list.max_num_elements, ") tensors")));
    std::shared_ptr<TensorList> out = ListToChange(ctx, 0, list);
    out->tensors.push_back(item);
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(out)));
  }
};

class TensorListPopBackOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = TypedList(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorList& list = **in;
    OP_REQUIRES(ctx, !list.tensors.empty(),
                absl::InvalidArgumentError(
                    "TensorListPopBack of an empty list (it has no tensor "
                    "left to pop)"));
    absl::StatusOr<TensorShape> shape = ElementShapeOf(ctx, list, 1);
    OP_REQUIRES_OK(ctx, shape.status());
    absl::StatusOr<Tensor> last = Element(
        ctx, list, static_cast<int64_t>(list.tensors.size()) - 1, *shape);
    OP_REQUIRES_OK(ctx, last.status());
    // `last` is taken before the pop (ListToChange may hand `list` itself).
    std::shared_ptr<TensorList> out = ListToChange(ctx, 0, list);
    out->tensors.pop_back();
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(out)));
    ctx->set_output(1, *std::move(last));
  }
};

// The int32 scalar index input `i`, within [0, size).
absl::StatusOr<int64_t> Index(OpKernelContext* ctx, int i, size_t size,
                              bool allow_past_end = false) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_INT32 || t.shape().rank() != 0) {
    return absl::InvalidArgumentError("index must be an int32 scalar");
  }
  const int64_t index = *t.data<int32_t>();
  if (index < 0 || (!allow_past_end && index >= static_cast<int64_t>(size))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index ", index, " is outside the list of ", size, " tensors"));
  }
  return index;
}

class TensorListSetItemOp : public ListKernel {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* ctx) : ListKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("resize_if_index_out_of_bounds", &resize_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = ListInput(ctx, 0);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorList& list = **in;
    absl::StatusOr<int64_t> index = Index(ctx, 1, list.tensors.size(), resize_);
    OP_REQUIRES_OK(ctx, index.status());
    const Tensor& item = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckDtype(list, item.dtype()));
    OP_REQUIRES_OK(
        ctx,
        MergeShapes(list.element_shape, item.shape(), "the item set").status());
    std::shared_ptr<TensorList> out = ListToChange(ctx, 0, list);
    if (*index >= static_cast<int64_t>(out->tensors.size())) {
      out->tensors.resize(static_cast<size_t>(*index + 1));
    }
    out->tensors[*index] = item;
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(out)));
  }

 private:
  bool resize_ = false;
};

class TensorListGetItemOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = TypedList(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorList& list = **in;
    absl::StatusOr<int64_t> index = Index(ctx, 1, list.tensors.size());
    OP_REQUIRES_OK(ctx, index.status());
    absl::StatusOr<TensorShape> shape = ElementShapeOf(ctx, list, 2);
    OP_REQUIRES_OK(ctx, shape.status());
    absl::StatusOr<Tensor> item = Element(ctx, list, *index, *shape);
    OP_REQUIRES_OK(ctx, item.status());
    ctx->set_output(0, *std::move(item));
  }
};

class TensorListStackOp : public ListKernel {
 public:
  explicit TensorListStackOp(OpKernelConstruction* ctx) : ListKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_elements", &num_elements_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = TypedList(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorList& list = **in;
    const int64_t n = static_cast<int64_t>(list.tensors.size());
    OP_REQUIRES(ctx, num_elements_ < 0 || num_elements_ == n,
                absl::InvalidArgumentError(
                    absl::StrCat("num_elements is ", num_elements_,
                                 " but the list holds ", n, " tensors")));
    absl::StatusOr<TensorShape> shape = ElementShapeOf(ctx, list, 1);
    OP_REQUIRES_OK(ctx, shape.status());
    // Every set element must have one shape; it completes the element
    // shape that unset elements' zeros take.
    for (const Tensor& t : list.tensors) {
      if (!t.IsInitialized()) continue;
      shape = MergeShapes(*shape, t.shape(), "a list element");
      OP_REQUIRES_OK(ctx, shape.status());
    }
    OP_REQUIRES(ctx, shape->IsFullyDefined(),
                absl::InvalidArgumentError(absl::StrCat(
                    "TensorListStack needs the element shape, but it is ",
                    shape->ToString(),
                    " (give a fully defined "
                    "element_shape)")));
    TensorShape stacked({n});
    for (int64_t d : shape->dims()) stacked.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, stacked, &out));
    const int64_t per = shape->num_elements();
    for (int64_t i = 0; i < n; ++i) {
      absl::StatusOr<Tensor> element = Element(ctx, list, i, *shape);
      OP_REQUIRES_OK(ctx, element.status());
      VisitStorageType(element_dtype_, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        std::copy_n(element->data<T>(), per, out->data<T>() + i * per);
      });
    }
  }

 private:
  int64_t num_elements_ = -1;
};

class TensorListLengthOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = ListInput(ctx, 0);
    OP_REQUIRES_OK(ctx, in.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<int32_t>() = static_cast<int32_t>((*in)->tensors.size());
  }
  bool IsExpensive() const override { return false; }
};

class TensorListElementShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> in = ListInput(ctx, 0);
    OP_REQUIRES_OK(ctx, in.status());
    const TensorShape& shape = (*in)->element_shape;
    std::vector<int64_t> dims = {-1};  // unknown rank: the scalar -1
    if (!shape.unknown_rank())
      dims.assign(shape.dims().begin(), shape.dims().end());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0,
                       shape.unknown_rank()
                           ? TensorShape({})
                           : TensorShape({static_cast<int64_t>(dims.size())}),
                       &out));
    for (size_t k = 0; k < dims.size(); ++k) {
      if (output_type(0) == DT_INT32) {
        out->data<int32_t>()[k] = static_cast<int32_t>(dims[k]);
      } else {
        out->data<int64_t>()[k] = dims[k];
      }
    }
  }
  bool IsExpensive() const override { return false; }
};

// a + b for one element dtype, into a new tensor.
absl::StatusOr<Tensor> AddTensors(OpKernelContext* ctx, const Tensor& a,
                                  const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot add list elements of ", DataTypeName(a.dtype()),
                     " ", a.shape().ToString(), " and ",
                     DataTypeName(b.dtype()), " ", b.shape().ToString()));
  }
  Tensor sum;
  if (absl::Status s = ctx->allocate_temp(a.dtype(), a.shape(), &sum);
      !s.ok()) {
    return s;
  }
  bool added = false;
  VisitStorageType(a.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      for (int64_t k = 0; k < a.NumElements(); ++k) {
        sum.data<T>()[k] = a.data<T>()[k] + b.data<T>()[k];
      }
      added = true;
    }
  });
  if (!added) {
    return absl::UnimplementedError(
        absl::StrCat("adding lists of ", DataTypeName(a.dtype()),
                     " (float, double, int32 and int64 lists add)"));
  }
  return sum;
}

// AddN of TensorLists: element by element, an unset element counting as
// zeros (both unset: unset).
class AddNListsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> first = ListInput(ctx, 0);
    OP_REQUIRES_OK(ctx, first.status());
    std::shared_ptr<TensorList> sum = ListToChange(ctx, 0, **first);
    for (int i = 1; i < num_inputs(); ++i) {
      absl::StatusOr<const TensorList*> in = ListInput(ctx, i);
      OP_REQUIRES_OK(ctx, in.status());
      const TensorList& list = **in;
      OP_REQUIRES(ctx,
                  list.tensors.size() == sum->tensors.size() &&
                      list.element_dtype == sum->element_dtype,
                  absl::InvalidArgumentError(absl::StrCat(
                      "AddN of lists needs equal lengths and dtypes: ",
                      sum->DebugString(), " and ", list.DebugString())));
      for (size_t k = 0; k < list.tensors.size(); ++k) {
        const Tensor& t = list.tensors[k];
        if (!t.IsInitialized()) continue;
        Tensor& acc = sum->tensors[k];
        if (!acc.IsInitialized()) {
          acc = t;
          continue;
        }
        absl::StatusOr<Tensor> added = AddTensors(ctx, acc, t);
        OP_REQUIRES_OK(ctx, added.status());
        acc = *std::move(added);
      }
    }
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(sum)));
  }
};

// ZerosLike of a TensorList: as long, every set element zeros.
// ZerosLike of a variant: a list of zeros, or (second-order gradients of a
// TensorFlow 2 cond) an Optional of zeros.
class ZerosLikeListOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    if (input.dtype() == DT_VARIANT && input.shape().rank() == 0 &&
        input.IsInitialized()) {
      if (const auto* optional = input.data<Variant>()->get<OptionalValue>()) {
        auto zeros = std::make_shared<OptionalValue>();
        zeros->has_value = optional->has_value;
        for (size_t k = 0; k < optional->components.size(); ++k) {
          const Tensor& c = optional->components[k];
          absl::StatusOr<Tensor> z = Zeros(ctx, c.dtype(), c.shape(),
                                           absl::StrCat("component ", k));
          OP_REQUIRES_OK(ctx, z.status());
          zeros->components.push_back(*std::move(z));
        }
        Tensor* out = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
        *out->data<Variant>() = Variant(std::move(zeros));
        return;
      }
    }
    absl::StatusOr<const TensorList*> in = ListInput(ctx, 0);
    OP_REQUIRES_OK(ctx, in.status());
    std::shared_ptr<TensorList> out = ListToChange(ctx, 0, **in);
    for (size_t k = 0; k < out->tensors.size(); ++k) {
      Tensor& t = out->tensors[k];
      if (!t.IsInitialized()) continue;
      absl::StatusOr<Tensor> zeros =
          Zeros(ctx, t.dtype(), t.shape(), absl::StrCat("list element ", k));
      OP_REQUIRES_OK(ctx, zeros.status());
      t = *std::move(zeros);
    }
    OP_REQUIRES_OK(ctx, SetListOutput(ctx, 0, std::move(out)));
  }
};

#define DFLOW_REGISTER_LIST_OP(NAME, KERNEL) \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(NAME).Device(kDeviceCpu), KERNEL)

DFLOW_REGISTER_LIST_OP("EmptyTensorList", EmptyTensorListOp);
DFLOW_REGISTER_LIST_OP("TensorListReserve", TensorListReserveOp);
DFLOW_REGISTER_LIST_OP("TensorListFromTensor", TensorListFromTensorOp);
DFLOW_REGISTER_LIST_OP("TensorListPushBack", TensorListPushBackOp);
DFLOW_REGISTER_LIST_OP("TensorListPopBack", TensorListPopBackOp);
DFLOW_REGISTER_LIST_OP("TensorListSetItem", TensorListSetItemOp);
DFLOW_REGISTER_LIST_OP("TensorListGetItem", TensorListGetItemOp);
DFLOW_REGISTER_LIST_OP("TensorListStack", TensorListStackOp);
DFLOW_REGISTER_LIST_OP("TensorListLength", TensorListLengthOp);
DFLOW_REGISTER_LIST_OP("TensorListElementShape", TensorListElementShapeOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("AddN").Device(kDeviceCpu).TypeConstraint<Variant>("T"),
    AddNListsOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ZerosLike")
                          .Device(kDeviceCpu)
                          .TypeConstraint<Variant>("T"),
                      ZerosLikeListOp);

#undef DFLOW_REGISTER_LIST_OP

}  // namespace
}  // namespace dflow
