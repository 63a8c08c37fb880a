// The value behind a DT_VARIANT TensorList (TensorFlow's TensorList, the
// list ops of graph/ops/data_flow_ops_tensor_list.cc): a vector of tensors
// of one dtype and a (partial) element shape. Ops never change a list
// another tensor can still see; they make a new one (the tensors themselves
// are shared, so that costs a vector of handles, not the data), except
// when their input is the list's only holder: then they change it in place
// (ListToChange in the .cc file).
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_LIST_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_LIST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "graph/variant.h"
#include "runtime/op_kernel.h"

namespace dflow {

struct TensorList : public VariantValue {
  DataType element_dtype = DT_INVALID;
  // May be partial or of unknown rank.
  TensorShape element_shape = TensorShape::Unknown();
  // -1: no limit (EmptyTensorList's max_num_elements).
  int64_t max_num_elements = -1;
  // An element never set (TensorListReserve) is an uninitialized Tensor.
  std::vector<Tensor> tensors;

  std::string TypeName() const override { return "TensorList"; }
  std::string DebugString() const override {
    return absl::StrCat("TensorList<", DataTypeName(element_dtype), " ",
                        element_shape.ToString(), " x", tensors.size(), ">");
  }
};

// What the list kernels (data_flow_ops_tensor_list.cc, the whole-list ops
// of data_flow_ops_tensor_list_slices.cc) share.
namespace tensor_list {

// The list a variant input holds.
absl::StatusOr<const TensorList*> ListInput(OpKernelContext* ctx, int i);
absl::Status SetListOutput(OpKernelContext* ctx, int i,
                           std::shared_ptr<const TensorList> list);
// TensorFlow's partial shape encoding: the scalar -1 (unknown rank) or a
// vector with -1 for unknown sizes.
absl::StatusOr<TensorShape> PartialShape(const Tensor& t);
// a merged with b; an error naming `what` (b) when they conflict.
absl::StatusOr<TensorShape> MergeShapes(const TensorShape& a,
                                        const TensorShape& b,
                                        absl::string_view what);
absl::Status CheckDtype(const TensorList& list, DataType dtype);
// Zeros of `dtype` and `shape`, which must be fully defined (else an error
// naming `what`, the element never set).
absl::StatusOr<Tensor> Zeros(OpKernelContext* ctx, DataType dtype,
                             const TensorShape& shape, absl::string_view what);
// The list's element `index`, or zeros of `shape` when it was never set.
absl::StatusOr<Tensor> Element(OpKernelContext* ctx, const TensorList& list,
                               int64_t index, const TensorShape& shape);
// The list of input `i` for an op to change and return: itself when no
// one else can see it, else a copy (see the .cc file).
std::shared_ptr<TensorList> ListToChange(OpKernelContext* ctx, int i,
                                         const TensorList& list);

class ListKernel : public OpKernel {
 public:
  explicit ListKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().def().attr().count("element_dtype")) {
      ctx->SetStatus(ctx->GetAttr("element_dtype", &element_dtype_));
    }
  }
  bool IsExpensive() const override { return false; }

 protected:
  // The list of input 0, checked to hold this op's element_dtype.
  absl::StatusOr<const TensorList*> TypedList(OpKernelContext* ctx) const {
    absl::StatusOr<const TensorList*> list = ListInput(ctx, 0);
    if (!list.ok()) return list;
    if (absl::Status s = CheckDtype(**list, element_dtype_); !s.ok()) return s;
    return list;
  }

  // The list's element shape completed by the element_shape input `i`.
  static absl::StatusOr<TensorShape> ElementShapeOf(OpKernelContext* ctx,
                                                    const TensorList& list,
                                                    int i) {
    absl::StatusOr<TensorShape> declared = PartialShape(ctx->input(i));
    if (!declared.ok()) return declared;
    return MergeShapes(list.element_shape, *declared, "element_shape");
  }

  DataType element_dtype_ = DT_INVALID;
};

}  // namespace tensor_list

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_LIST_H_
