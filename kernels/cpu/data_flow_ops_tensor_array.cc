#include "kernels/cpu/data_flow_ops_tensor_array.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util_array.h"

namespace dflow {

namespace {

// Zeros of `shape`: all-zero bytes are zero for every number type.
absl::StatusOr<Tensor> Zeros(DataType dtype, const TensorShape& shape,
                             OpKernelContext* ctx) {
  Tensor out;
  if (absl::Status s = ctx->allocate_temp(dtype, shape, &out); !s.ok()) {
    return s;
  }
  array_kernels::VisitCopyType(dtype, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    T* data = array_kernels::CopyData<T>(&out);
    std::fill_n(data, out.NumElements(), T{});
  });
  return out;
}

template <typename T>
void AddInto(const Tensor& a, const Tensor& b, Tensor* out) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = out->data<T>();
  for (int64_t i = 0; i < out->NumElements(); ++i) z[i] = x[i] + y[i];
}

// a + b (same dtype and shape), in a new tensor: either may be shared.
absl::StatusOr<Tensor> Sum(const Tensor& a, const Tensor& b,
                           OpKernelContext* ctx) {
  Tensor out;
  if (absl::Status s = ctx->allocate_temp(a.dtype(), a.shape(), &out);
      !s.ok()) {
    return s;
  }
  switch (a.dtype()) {
    case DT_FLOAT:
      AddInto<float>(a, b, &out);
      break;
    case DT_DOUBLE:
      AddInto<double>(a, b, &out);
      break;
    case DT_INT32:
      AddInto<int32_t>(a, b, &out);
      break;
    case DT_INT64:
      AddInto<int64_t>(a, b, &out);
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("adding up gradients of dtype ", DataTypeName(a.dtype()),
                       " is not supported (float, double, int32, int64 are)"));
  }
  return out;
}

}  // namespace

TensorArray::TensorArray(Options options, int64_t size)
    : options_(std::move(options)), elements_(static_cast<size_t>(size)) {}

std::string TensorArray::DebugString() const {
  return absl::StrCat("TensorArray '", options_.name, "'");
}

absl::Status TensorArray::CheckOpen() const {
  if (!closed_) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat(DebugString(),
                   " was closed (TensorArrayCloseV3) earlier "
                   "in this run; use it before closing it"));
}

absl::Status TensorArray::Write(int64_t index, const Tensor& value,
                                OpKernelContext* ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  return WriteLocked(index, value, ctx);
}

absl::Status TensorArray::WriteLocked(int64_t index, const Tensor& value,
                                      OpKernelContext* ctx) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  const int64_t size = static_cast<int64_t>(elements_.size());
  if (index < 0 || (!options_.dynamic_size && index >= size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": cannot write index ", index, ": its size is ", size,
        options_.dynamic_size ? "" : " and it is not dynamic_size",
        "; write indices in [0, size)"));
  }
  if (value.dtype() != options_.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": cannot write a ", DataTypeName(value.dtype()),
        " at index ", index, " of an array of ", DataTypeName(options_.dtype),
        "; write its dtype"));
  }
  if (!options_.element_shape.IsCompatibleWith(value.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": cannot write a value of shape ",
        value.shape().ToString(), " at index ", index,
        ": its elements have shape ", options_.element_shape.ToString(),
        options_.identical_element_shapes ? " (identical_element_shapes)" : "",
        "; write values of that shape"));
  }
  if (index >= size) elements_.resize(static_cast<size_t>(index) + 1);
  Element& e = elements_[index];
  if (e.read) {
    return absl::InvalidArgumentError(
        absl::StrCat(DebugString(), ": cannot write index ", index,
                     " after it was read; write each index before reading it"));
  }
  if (e.written && !options_.multiple_writes_aggregate) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": index ", index,
        " was already written; a TensorArray's elements are written once"));
  }
  if (options_.identical_element_shapes &&
      !options_.element_shape.IsFullyDefined()) {
    options_.element_shape = value.shape();
  }
  if (!e.written) {
    e.value = value;
    e.shape = value.shape();
    e.written = true;
    return absl::OkStatus();
  }
  // A gradient array's second write to an index: add.
  if (e.shape != value.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat(DebugString(), ": cannot add a gradient of shape ",
                     value.shape().ToString(), " to index ", index,
                     " of shape ", e.shape.ToString()));
  }
  if (!e.value.IsInitialized()) {  // zeros so far
    e.value = value;
    return absl::OkStatus();
  }
  absl::StatusOr<Tensor> sum = Sum(e.value, value, ctx);
  if (!sum.ok()) return sum.status();
  e.value = *std::move(sum);
  return absl::OkStatus();
}

absl::StatusOr<Tensor> TensorArray::Read(int64_t index, OpKernelContext* ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  return ReadLocked(index, ctx);
}

absl::StatusOr<Tensor> TensorArray::ReadLocked(int64_t index,
                                               OpKernelContext* ctx) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  const int64_t size = static_cast<int64_t>(elements_.size());
  if (index < 0 || index >= size) {
    return absl::InvalidArgumentError(
        absl::StrCat(DebugString(), ": cannot read index ", index,
                     ": its size is ", size, "; read indices in [0, size)"));
  }
  Element& e = elements_[index];
  if (!e.written) {
    // TensorFlow reads zeros where no write reached when the element shape
    // is fully known (dynamic_rnn with sequence_length shorter than its
    // time steps stacks such elements); else it fails, as here.
    if (options_.element_shape.IsFullyDefined()) {
      e.read = true;
      return Zeros(options_.dtype, options_.element_shape, ctx);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": cannot read index ", index,
        ", which no write reached yet, and the element shape ",
        options_.element_shape.ToString(),
        " is not fully defined; write it first or give the TensorArray a "
        "full element_shape (then unwritten elements read as zeros)"));
  }
  if (e.cleared) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": cannot read index ", index,
        " twice: the first read cleared it (clear_after_read; set it to "
        "false on the TensorArrayV3 to read elements again)"));
  }
  Tensor value = e.value;
  if (!value.IsInitialized()) {
    absl::StatusOr<Tensor> zeros = Zeros(options_.dtype, e.shape, ctx);
    if (!zeros.ok()) return zeros.status();
    value = *std::move(zeros);
  }
  e.read = true;
  if (options_.clear_after_read) {
    e.value = Tensor();
    e.cleared = true;
  }
  return value;
}

absl::StatusOr<Tensor> TensorArray::Gather(const std::vector<int64_t>& indices,
                                           const TensorShape& element_shape,
                                           OpKernelContext* ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  std::vector<Tensor> values;
  values.reserve(indices.size());
  for (int64_t index : indices) {
    absl::StatusOr<Tensor> v = ReadLocked(index, ctx);
    if (!v.ok()) return v.status();
    if (!values.empty() && v->shape() != values.front().shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          DebugString(), ": cannot gather elements of different shapes (",
          values.front().shape().ToString(), " at index ", indices.front(),
          ", ", v->shape().ToString(), " at index ", index,
          "); gather elements of one shape"));
    }
    values.push_back(*std::move(v));
  }
  TensorShape element = element_shape;
  if (!values.empty()) {
    element = values.front().shape();
  } else if (!element.IsFullyDefined()) {
    element = options_.element_shape;
  }
  if (!element.IsFullyDefined()) {
    return absl::InvalidArgumentError(
        absl::StrCat(DebugString(),
                     ": gathering no elements needs a fully defined "
                     "element shape (the op's or the array's element_shape "
                     "attr); got ",
                     element.ToString()));
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
  for (int d = 0; d < element.rank(); ++d) dims.push_back(element.dim(d));
  Tensor out;
  if (absl::Status s =
          ctx->allocate_temp(options_.dtype, TensorShape(dims), &out);
      !s.ok()) {
    return s;
  }
  const int64_t count = element.num_elements();
  array_kernels::VisitCopyType(options_.dtype, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    T* dst = array_kernels::CopyData<T>(&out);
    for (size_t i = 0; i < values.size(); ++i) {
      std::copy_n(array_kernels::CopyData<T>(values[i]), count,
                  dst + static_cast<int64_t>(i) * count);
    }
  });
  return out;
}

absl::StatusOr<Tensor> TensorArray::Concat(
    const TensorShape& element_shape_except0, std::vector<int64_t>* lengths,
    OpKernelContext* ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  std::vector<Tensor> values;
  values.reserve(elements_.size());
  lengths->clear();
  int64_t rows = 0;
  for (size_t i = 0; i < elements_.size(); ++i) {
    absl::StatusOr<Tensor> v = ReadLocked(static_cast<int64_t>(i), ctx);
    if (!v.ok()) return v.status();
    const TensorShape& shape = v->shape();
    if (shape.rank() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          DebugString(), ": cannot concatenate its element ", i,
          ", a scalar; concatenation joins elements of rank >= 1 along "
          "their 0th dimension (use stack for scalars)"));
    }
    if (!values.empty()) {
      const TensorShape& first = values.front().shape();
      bool same = first.rank() == shape.rank();
      for (int d = 1; same && d < shape.rank(); ++d) {
        same = first.dim(d) == shape.dim(d);
      }
      if (!same) {
        return absl::InvalidArgumentError(absl::StrCat(
            DebugString(), ": cannot concatenate element ", i, " of shape ",
            shape.ToString(), " after element 0 of shape ", first.ToString(),
            "; elements may differ in their 0th dimension only"));
      }
    }
    lengths->push_back(shape.dim(0));
    rows += shape.dim(0);
    values.push_back(*std::move(v));
  }
  std::vector<int64_t> dims = {rows};
  if (!values.empty()) {
    const TensorShape& first = values.front().shape();
    for (int d = 1; d < first.rank(); ++d) dims.push_back(first.dim(d));
  } else if (element_shape_except0.IsFullyDefined()) {
    for (int64_t d : element_shape_except0.dims()) dims.push_back(d);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(),
        ": concatenating no elements needs a fully defined "
        "element_shape_except0 attr, got ",
        element_shape_except0.ToString()));
  }
  Tensor out;
  if (absl::Status s =
          ctx->allocate_temp(options_.dtype, TensorShape(dims), &out);
      !s.ok()) {
    return s;
  }
  array_kernels::VisitCopyType(options_.dtype, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    T* dst = array_kernels::CopyData<T>(&out);
    for (const Tensor& v : values) {
      dst = std::copy_n(array_kernels::CopyData<T>(v), v.NumElements(), dst);
    }
  });
  return out;
}

absl::Status TensorArray::Split(const Tensor& value,
                                const std::vector<int64_t>& lengths,
                                OpKernelContext* ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  if (value.shape().rank() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": cannot split a scalar; split a value of rank >= 1 "
        "along its 0th dimension"));
  }
  const int64_t size = static_cast<int64_t>(elements_.size());
  const int64_t n = static_cast<int64_t>(lengths.size());
  if (!options_.dynamic_size && n != size) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": cannot split into ", n, " pieces: its size is ",
        size, " and it is not dynamic_size; give one length per element"));
  }
  int64_t total = 0;
  for (int64_t length : lengths) {
    if (length < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          DebugString(), ": split lengths must be >= 0, got ", length));
    }
    total += length;
  }
  if (total != value.shape().dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), ": split lengths add up to ", total,
        " but the value's 0th dimension is ", value.shape().dim(0),
        " (shape ", value.shape().ToString(), "); they must be equal"));
  }
  int64_t begin = 0;
  for (int64_t i = 0; i < n; ++i) {
    // Each piece shares the value's buffer (rows of it).
    absl::StatusOr<Tensor> piece =
        value.SliceChecked(begin, begin + lengths[i]);
    if (!piece.ok()) return piece.status();
    if (absl::Status s = WriteLocked(i, *piece, ctx); !s.ok()) return s;
    begin += lengths[i];
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> TensorArray::Size() {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  return static_cast<int64_t>(elements_.size());
}

void TensorArray::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  elements_.clear();  // frees the memory now; the handle lives on
}

absl::StatusOr<Var*> TensorArray::Grad(const std::string& source,
                                       StepContainer* step) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  auto it = grads_.find(source);
  if (it != grads_.end()) return it->second;
  options_.dynamic_size = false;
  Options grad;
  grad.name = absl::StrCat(options_.name, "@", source);
  grad.dtype = options_.dtype;
  grad.element_shape = options_.element_shape;
  grad.identical_element_shapes = options_.identical_element_shapes;
  grad.clear_after_read = true;
  grad.multiple_writes_aggregate = true;
  auto array = std::make_unique<TensorArray>(
      grad, static_cast<int64_t>(elements_.size()));
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (!elements_[i].written) continue;
    array->elements_[i].shape = elements_[i].shape;
    array->elements_[i].written = true;
  }
  Var* var = step->Add(grad.name, std::move(array));
  grads_.emplace(source, var);
  return var;
}

}  // namespace dflow
