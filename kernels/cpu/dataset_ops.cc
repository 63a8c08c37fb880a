// What every tf.data kernel shares (kernels/cpu/dataset_ops.h): the
// dataset kernel base, reading inputs, checking and copying elements.
#include "kernels/cpu/dataset_ops.h"

#include <atomic>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/allocator.h"
#include "kernels/cpu/kernel_util_array.h"

namespace dflow {

Allocator* DatasetContext::allocator() const {
  return device != nullptr ? static_cast<Allocator*>(device->allocator())
                           : DefaultCpuAllocator();
}

std::string Dataset::Label() const {
  return absl::StrCat(info_.op, " '", info_.node, "'");
}

absl::Status DatasetError(const Dataset& dataset, const absl::Status& error) {
  if (error.ok()) return error;
  return absl::Status(error.code(),
                      absl::StrCat(dataset.Label(), ": ", error.message()));
}

DatasetOpKernel::DatasetOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
  // Sources of their own dtype (TFRecordDataset) have no element attrs;
  // their kernels call set_element.
  if (ctx->node().FindAttr("output_types") != nullptr) {
    ctx->SetStatus(ctx->GetAttr("output_types", &types_));
  } else if (ctx->node().FindAttr("Toutput_types") != nullptr) {
    ctx->SetStatus(ctx->GetAttr("Toutput_types", &types_));
  }
  if (ctx->node().FindAttr("output_shapes") != nullptr) {
    ctx->SetStatus(ctx->GetAttr("output_shapes", &shapes_));
  }
  if (ctx->status().ok() && !shapes_.empty() &&
      shapes_.size() != types_.size()) {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "output_shapes has ", shapes_.size(), " shapes but the element has ",
        types_.size(), " dtypes")));
  }
}

void DatasetOpKernel::Compute(OpKernelContext* ctx) {
  absl::StatusOr<DatasetPtr> dataset = MakeDataset(ctx);
  OP_REQUIRES_OK(ctx, dataset.status());
  ctx->set_output(0, DatasetTensor(*std::move(dataset)));
}

Dataset::Info DatasetOpKernel::info() const {
  std::vector<TensorShape> shapes = shapes_;
  if (shapes.empty()) shapes.assign(types_.size(), TensorShape::Unknown());
  return {name(), type_string(), types_, std::move(shapes)};
}

std::string AnonymousResourceKey(OpKernelContext* ctx) {
  static std::atomic<int64_t> counter{0};
  return absl::StrCat(ctx->kernel().name(), "/_anonymous_", counter++);
}

namespace {

absl::StatusOr<const Tensor*> ScalarInput(OpKernelContext* ctx, int i,
                                          absl::string_view name,
                                          DataType dtype) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != dtype || t.NumElements() != 1 || t.shape().rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input '", name, "' must be a ", DataTypeName(dtype), " scalar, got a ",
        DataTypeName(t.dtype()), " tensor of shape ", t.shape().ToString()));
  }
  return &t;
}

}  // namespace

absl::StatusOr<DatasetPtr> DatasetOfTensor(const Tensor& t,
                                           absl::string_view what) {
  const Dataset* dataset =
      t.dtype() == DT_VARIANT && t.NumElements() == 1 && t.IsInitialized()
          ? t.data<Variant>()->get<Dataset>()
          : nullptr;
  if (dataset == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what,
        " must be a dataset (a variant scalar made by a dataset op), "
        "got a ",
        DataTypeName(t.dtype()), " tensor of shape ", t.shape().ToString(),
        t.dtype() == DT_VARIANT && t.NumElements() == 1
            ? absl::StrCat(" holding ", t.data<Variant>()->TypeName())
            : ""));
  }
  return dataset->shared_from_this();
}

absl::StatusOr<DatasetPtr> DatasetInput(OpKernelContext* ctx, int i,
                                        absl::string_view name) {
  return DatasetOfTensor(ctx->input(i), absl::StrCat("input '", name, "'"));
}

absl::StatusOr<int64_t> Int64Input(OpKernelContext* ctx, int i,
                                   absl::string_view name) {
  absl::StatusOr<const Tensor*> t = ScalarInput(ctx, i, name, DT_INT64);
  if (!t.ok()) return t.status();
  return *(*t)->data<int64_t>();
}

absl::StatusOr<bool> BoolInput(OpKernelContext* ctx, int i,
                               absl::string_view name) {
  absl::StatusOr<const Tensor*> t = ScalarInput(ctx, i, name, DT_BOOL);
  if (!t.ok()) return t.status();
  return *(*t)->data<bool>();
}

absl::StatusOr<std::string> StringInput(OpKernelContext* ctx, int i,
                                        absl::string_view name) {
  absl::StatusOr<const Tensor*> t = ScalarInput(ctx, i, name, DT_STRING);
  if (!t.ok()) return t.status();
  return *(*t)->data<std::string>();
}

Tensor DatasetTensor(DatasetPtr dataset) {
  Tensor t(DT_VARIANT, TensorShape({}));
  *t.data<Variant>() = Variant(std::move(dataset));
  return t;
}

absl::Status CheckElement(const Element& element,
                          const std::vector<DataType>& types,
                          const std::vector<TensorShape>& shapes,
                          absl::string_view label) {
  if (element.size() != types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": the element has ", element.size(),
                     " components, expected ", types.size()));
  }
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != types[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": component ", i, " of the element is ",
                       DataTypeName(element[i].dtype()), ", expected ",
                       DataTypeName(types[i])));
    }
    if (i < shapes.size() && !shapes[i].IsCompatibleWith(element[i].shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": component ", i, " of the element has shape ",
                       element[i].shape().ToString(), ", incompatible with ",
                       shapes[i].ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSpec(const Dataset& dataset,
                       const std::vector<DataType>& types,
                       const std::vector<TensorShape>& shapes,
                       absl::string_view consumer) {
  auto names = [](const std::vector<DataType>& t) {
    return absl::StrJoin(t, ", ", [](std::string* out, DataType d) {
      out->append(DataTypeName(d));
    });
  };
  if (dataset.types() != types) {
    return absl::InvalidArgumentError(
        absl::StrCat(consumer, " expects elements of (", names(types), ") but ",
                     dataset.Label(), " has (", names(dataset.types()), ")"));
  }
  for (size_t i = 0; i < shapes.size() && i < dataset.shapes().size(); ++i) {
    if (!shapes[i].IsCompatibleWith(dataset.shapes()[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat(consumer, " expects component ", i, " of shape ",
                       shapes[i].ToString(), " but ", dataset.Label(), " has ",
                       dataset.shapes()[i].ToString()));
    }
  }
  return absl::OkStatus();
}

namespace {

// Copies `n` elements of `dtype` from src[src_offset] to dst[dst_offset]
// (offsets in elements).
void CopyElements(DataType dtype, const void* src, int64_t src_offset,
                  void* dst, int64_t dst_offset, int64_t n) {
  if (dtype == DT_VARIANT) {
    const Variant* from = static_cast<const Variant*>(src) + src_offset;
    Variant* to = static_cast<Variant*>(dst) + dst_offset;
    for (int64_t k = 0; k < n; ++k) to[k] = from[k];
    return;
  }
  array_kernels::VisitCopyType(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* from = static_cast<const T*>(src) + src_offset;
    T* to = static_cast<T*>(dst) + dst_offset;
    if constexpr (std::is_same_v<T, std::string>) {
      for (int64_t k = 0; k < n; ++k) to[k] = from[k];
    } else if (n > 0) {
      std::memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
    }
  });
}

}  // namespace

absl::StatusOr<Tensor> CopyRow(const Tensor& t, int64_t row,
                               Allocator* allocator) {
  TensorShape shape = t.shape();
  const int64_t rows = shape.dim(0);
  shape.RemoveDim(0);
  absl::StatusOr<Tensor> out = Tensor::Allocate(allocator, t.dtype(), shape);
  if (!out.ok()) return out.status();
  const int64_t per_row = rows == 0 ? 0 : t.NumElements() / rows;
  CopyElements(t.dtype(), t.raw_data(), row * per_row, out->raw_data(), 0,
               per_row);
  return out;
}

void CopyIntoRow(const Tensor& src, int64_t row, Tensor* dst) {
  const int64_t n = src.NumElements();
  CopyElements(src.dtype(), src.raw_data(), 0, dst->raw_data(), row * n, n);
}

void CopyTensorElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                        int64_t dst_offset, int64_t n) {
  CopyElements(src.dtype(), src.raw_data(), src_offset, dst->raw_data(),
               dst_offset, n);
}

absl::StatusOr<Tensor> FilledTensor(const Tensor& value,
                                    const TensorShape& shape,
                                    Allocator* allocator) {
  absl::StatusOr<Tensor> out =
      Tensor::Allocate(allocator, value.dtype(), shape);
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < out->NumElements(); ++i) {
    CopyElements(value.dtype(), value.raw_data(), 0, out->raw_data(), i, 1);
  }
  return out;
}

}  // namespace dflow
