#include "kernels/cpu/kernel_util_array.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dflow {
namespace array_kernels {
namespace {

template <typename T>
void AppendAll(const Tensor& t, IndexVec* out) {
  const T* data = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out->push_back(static_cast<int64_t>(data[i]));
  }
}

}  // namespace

const std::vector<DataType>& AllTensorTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DT_FLOAT, DT_DOUBLE,    DT_HALF,       DT_BFLOAT16, DT_INT8,   DT_INT16,
      DT_INT32, DT_INT64,     DT_UINT8,      DT_UINT16,   DT_UINT32, DT_UINT64,
      DT_BOOL,  DT_COMPLEX64, DT_COMPLEX128, DT_STRING};
  return *types;
}

const std::vector<DataType>& AllTypesAndResource() {
  static const std::vector<DataType>* types = [] {
    auto* v = new std::vector<DataType>(AllTensorTypes());
    v->push_back(DT_RESOURCE);
    v->push_back(DT_VARIANT);
    return v;
  }();
  return *types;
}

absl::Status ReadIndexVector(const Tensor& t, absl::string_view what,
                             IndexVec* out) {
  out->clear();
  if (t.shape().rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a vector, but has shape ", t.shape().ToString()));
  }
  switch (t.dtype()) {
    case DT_INT32:
      AppendAll<int32_t>(t, out);
      break;
    case DT_INT64:
      AppendAll<int64_t>(t, out);
      break;
    case DT_INT16:
      AppendAll<int16_t>(t, out);
      break;
    case DT_INT8:
      AppendAll<int8_t>(t, out);
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(what, " must hold int32 or int64 values, not ",
                       DataTypeName(t.dtype())));
  }
  return absl::OkStatus();
}

absl::Status ReadIndexScalar(const Tensor& t, absl::string_view what,
                             int64_t* out) {
  if (t.NumElements() != 1 || t.shape().rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar, but has shape ", t.shape().ToString()));
  }
  IndexVec v;
  absl::Status s = ReadIndexVector(t, what, &v);
  if (!s.ok()) return s;
  *out = v[0];
  return absl::OkStatus();
}

absl::Status CanonicalAxis(int64_t axis, int rank, const TensorShape& shape,
                           absl::string_view what, int* out) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", axis, " is out of range for a tensor of shape ",
        shape.ToString(), ": it must be in [", -rank, ", ", rank, ")"));
  }
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return absl::OkStatus();
}

int64_t DimProduct(const TensorShape& shape, int begin, int end) {
  int64_t product = 1;
  for (int i = begin; i < end; ++i) product *= shape.dim(i);
  return product;
}

absl::StatusOr<TensorShape> ReshapeTarget(const TensorShape& input,
                                          const Tensor& sizes_t) {
  if (sizes_t.shape().rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape must be a vector, not shape ", sizes_t.shape().ToString()));
  }
  IndexVec sizes;
  if (absl::Status s = ReadIndexVector(sizes_t, "shape", &sizes); !s.ok()) {
    return s;
  }
  // Only built for error messages.
  const auto requested = [&sizes] {
    return absl::StrCat("[", absl::StrJoin(sizes, ","), "]");
  };
  // Zero sizes are left out of `product` so that -1 can still be inferred
  // from the other dimensions ([0,4] -> [-1,0] gives [4,0]).
  int unknown = -1;
  int64_t product = 1;
  bool sizes_have_zero = false;
  TensorShape shape;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t size = sizes[d];
    if (size == -1) {
      if (unknown != -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("only one dimension of shape may be -1, not both ",
                         unknown, " and ", d, " (shape = ", requested(), ")"));
      }
      unknown = static_cast<int>(d);
      shape.AddDim(1);
    } else if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", d, " of shape must be >= 0 or -1, not ",
                       size, " (shape = ", requested(), ")"));
    } else {
      if (size == 0) {
        sizes_have_zero = true;
      } else if (__builtin_mul_overflow(product, size, &product)) {
        return absl::InvalidArgumentError(
            absl::StrCat("shape ", requested(), " has too many elements"));
      }
      shape.AddDim(size);
    }
  }
  if (unknown != -1) {
    int64_t input_elements = 1;
    bool input_has_zero = false;
    for (int64_t dim : input.dims()) {
      if (dim > 0 || !sizes_have_zero) {
        input_elements *= dim;
      } else {
        input_has_zero = true;
      }
    }
    const int64_t missing = input_elements / product;
    if (!input_has_zero && missing * product != input_elements) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot reshape a tensor of shape ", input.ToString(), " (",
          input.num_elements(), " elements) to shape ", requested(),
          ": the known dimensions hold ", product,
          " elements, which does not divide ", input.num_elements()));
    }
    shape.set_dim(unknown, missing);
  }
  if (shape.num_elements() != input.num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape a tensor of shape ", input.ToString(),
                     " (", input.num_elements(), " elements) to shape ",
                     requested(), " (", shape.num_elements(), " elements)"));
  }
  return shape;
}

}  // namespace array_kernels
}  // namespace dflow
