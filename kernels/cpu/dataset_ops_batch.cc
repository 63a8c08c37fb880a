// Batching datasets: BatchDataset, BatchDatasetV2 and ParallelBatchDataset
// stack batch_size elements along a new 0th dimension (the elements of a
// batch must have equal shapes); PaddedBatchDataset(V2) first pads each
// component to padded_shapes (-1: the batch's largest) with its padding
// value; UnbatchDataset splits elements back into rows.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/dataset_ops.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

int64_t BatchCardinality(int64_t n, int64_t batch_size, bool drop) {
  if (n == kInfiniteCardinality || n == kUnknownCardinality) return n;
  return drop ? n / batch_size : (n + batch_size - 1) / batch_size;
}

// Up to batch_size elements of `input` (fewer only at its end; none when
// it has ended or, with drop_remainder, when fewer are left).
absl::Status NextElements(DatasetIterator* input, const DatasetContext& ctx,
                          int64_t batch_size, bool drop_remainder,
                          std::vector<Element>* elements, bool* end) {
  elements->clear();
  bool input_end = false;
  while (static_cast<int64_t>(elements->size()) < batch_size) {
    Element element;
    if (absl::Status s = input->GetNext(ctx, &element, &input_end); !s.ok()) {
      return s;
    }
    if (input_end) break;
    elements->push_back(std::move(element));
  }
  *end =
      elements->empty() ||
      (drop_remainder && static_cast<int64_t>(elements->size()) < batch_size);
  return absl::OkStatus();
}

class BatchDatasetImpl : public Dataset {
 public:
  BatchDatasetImpl(Info info, DatasetPtr input, int64_t batch_size, bool drop)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        batch_size_(batch_size),
        drop_(drop) {}

  int64_t Cardinality() const override {
    return BatchCardinality(input_->Cardinality(), batch_size_, drop_);
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
        input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<BatchDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const BatchDatasetImpl> d,
             std::unique_ptr<DatasetIterator> input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      std::vector<Element> elements;
      if (input_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      if (absl::Status s = NextElements(input_.get(), ctx, d_->batch_size_,
                                        d_->drop_, &elements, end);
          !s.ok() || *end) {
        if (*end) input_.reset();
        return s;
      }
      const size_t n = elements[0].size();
      Element batch;
      for (size_t c = 0; c < n; ++c) {
        const Tensor& first = elements[0][c];
        // The first element's shape is the batch's; TensorFlow 2.21 then
        // copies any element with as many values (and refuses others).
        for (size_t e = 1; e < elements.size(); ++e) {
          const Tensor& t = elements[e][c];
          if (t.NumElements() != first.NumElements() ||
              t.dtype() != first.dtype()) {
            return DatasetError(
                *d_, absl::InvalidArgumentError(absl::StrCat(
                         "Cannot add tensor to the batch: number of elements "
                         "does not match. Shapes are: [tensor]: ",
                         t.shape().ToString(), ", [batch]: ",
                         first.shape().ToString(), " (component ", c,
                         ", element ", e, " of the batch)")));
          }
        }
        TensorShape shape = first.shape();
        shape.InsertDim(0, static_cast<int64_t>(elements.size()));
        absl::StatusOr<Tensor> stacked =
            Tensor::Allocate(ctx.allocator(), first.dtype(), shape);
        if (!stacked.ok()) return DatasetError(*d_, stacked.status());
        for (size_t e = 0; e < elements.size(); ++e) {
          CopyIntoRow(elements[e][c], static_cast<int64_t>(e), &*stacked);
        }
        batch.push_back(*std::move(stacked));
      }
      *out = std::move(batch);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const BatchDatasetImpl> d_;
    std::unique_ptr<DatasetIterator> input_;
  };

  const DatasetPtr input_;
  const int64_t batch_size_;
  const bool drop_;
};

// BatchDataset (batch_size), BatchDatasetV2 (batch_size, drop_remainder)
// and ParallelBatchDataset (batch_size, num_parallel_calls,
// drop_remainder).
class BatchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    absl::StatusOr<int64_t> batch_size = Int64Input(ctx, 1, "batch_size");
    if (!batch_size.ok()) return batch_size.status();
    if (*batch_size <= 0) {
      return absl::InvalidArgumentError(
          "Batch size must be greater than zero.");
    }
    bool drop = false;
    if (num_inputs() > 2) {
      absl::StatusOr<bool> d =
          BoolInput(ctx, num_inputs() - 1, "drop_remainder");
      if (!d.ok()) return d.status();
      drop = *d;
    }
    return NewBatchDataset(info(), *std::move(input), *batch_size, drop);
  }
};

// ---- PaddedBatchDataset.

class PaddedBatchDatasetImpl : public Dataset {
 public:
  PaddedBatchDatasetImpl(Info info, DatasetPtr input, int64_t batch_size,
                         bool drop, std::vector<std::vector<int64_t>> padded,
                         std::vector<Tensor> padding_values)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        batch_size_(batch_size),
        drop_(drop),
        padded_(std::move(padded)),
        padding_values_(std::move(padding_values)) {}

  int64_t Cardinality() const override {
    return BatchCardinality(input_->Cardinality(), batch_size_, drop_);
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
        input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<PaddedBatchDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const PaddedBatchDatasetImpl> d,
             std::unique_ptr<DatasetIterator> input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (input_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      std::vector<Element> elements;
      if (absl::Status s = NextElements(input_.get(), ctx, d_->batch_size_,
                                        d_->drop_, &elements, end);
          !s.ok() || *end) {
        if (*end) input_.reset();
        return s;
      }
      Element batch;
      for (size_t c = 0; c < d_->padded_.size(); ++c) {
        absl::StatusOr<Tensor> padded = PadComponent(ctx, elements, c);
        if (!padded.ok()) return DatasetError(*d_, padded.status());
        batch.push_back(*std::move(padded));
      }
      *out = std::move(batch);
      return absl::OkStatus();
    }

   private:
    absl::StatusOr<Tensor> PadComponent(const DatasetContext& ctx,
                                        const std::vector<Element>& elements,
                                        size_t c) const {
      const std::vector<int64_t>& padded = d_->padded_[c];
      const int rank = static_cast<int>(padded.size());
      std::vector<int64_t> dims(padded.begin(), padded.end());
      for (int k = 0; k < rank; ++k) {
        if (dims[k] == -1) dims[k] = 0;
      }
      for (const Element& e : elements) {
        if (c >= e.size()) {
          return absl::InvalidArgumentError(
              "the element has fewer components than padded_shapes");
        }
        const TensorShape& shape = e[c].shape();
        if (shape.rank() != rank) {
          return absl::InvalidArgumentError(
              absl::StrCat("component ", c, " has shape ", shape.ToString(),
                           " but its padded shape has rank ", rank));
        }
        for (int k = 0; k < rank; ++k) {
          if (padded[k] == -1) {
            dims[k] = std::max(dims[k], shape.dim(k));
          } else if (shape.dim(k) > padded[k]) {
            // DataLoss, as TensorFlow's.
            return absl::DataLossError(absl::StrCat(
                "Attempted to pad to a smaller size than the input element: "
                "component ",
                c, " has shape ", shape.ToString(), ", padded shape [",
                absl::StrJoin(padded, ","), "]"));
          }
        }
      }
      std::vector<int64_t> batch_dims = {static_cast<int64_t>(elements.size())};
      batch_dims.insert(batch_dims.end(), dims.begin(), dims.end());
      absl::StatusOr<Tensor> batch = FilledTensor(
          d_->padding_values_[c], TensorShape(batch_dims), ctx.allocator());
      if (!batch.ok()) return batch.status();
      // Row-major strides of one padded row.
      std::vector<int64_t> stride(rank + 1, 1);
      for (int k = rank - 1; k >= 0; --k) stride[k] = stride[k + 1] * dims[k];
      for (size_t b = 0; b < elements.size(); ++b) {
        const Tensor& src = elements[b][c];
        if (src.dtype() != batch->dtype()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "component ", c, " is ", DataTypeName(src.dtype()),
              " but its padding value is ", DataTypeName(batch->dtype())));
        }
        const int64_t n = src.NumElements();
        if (n == 0) continue;
        const int64_t base = static_cast<int64_t>(b) * stride[0];
        if (rank == 0) {
          CopyTensorElements(src, 0, &*batch, base, 1);
          continue;
        }
        // Copy each innermost run of the element into its place.
        const int64_t run = src.shape().dim(rank - 1);
        std::vector<int64_t> index(rank, 0);
        for (int64_t offset = 0; offset < n; offset += run) {
          int64_t dst = base;
          for (int k = 0; k < rank - 1; ++k) dst += index[k] * stride[k + 1];
          CopyTensorElements(src, offset, &*batch, dst, run);
          for (int k = rank - 2; k >= 0; --k) {
            if (++index[k] < src.shape().dim(k)) break;
            index[k] = 0;
          }
        }
      }
      return batch;
    }

    const std::shared_ptr<const PaddedBatchDatasetImpl> d_;
    std::unique_ptr<DatasetIterator> input_;
  };

  const DatasetPtr input_;
  const int64_t batch_size_;
  const bool drop_;
  const std::vector<std::vector<int64_t>> padded_;
  const std::vector<Tensor> padding_values_;
};

class PaddedBatchDatasetOp : public DatasetOpKernel {
 public:
  explicit PaddedBatchDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("N", &n_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    absl::StatusOr<int64_t> batch_size = Int64Input(ctx, 1, "batch_size");
    if (!batch_size.ok()) return batch_size.status();
    if (*batch_size <= 0) {
      return absl::InvalidArgumentError(
          "Batch size must be greater than zero.");
    }
    const int n = static_cast<int>(n_);
    std::vector<std::vector<int64_t>> padded;
    std::vector<Tensor> values;
    for (int i = 0; i < n; ++i) {
      const Tensor& shape = ctx->input(2 + i);
      if (shape.dtype() != DT_INT64 || shape.shape().rank() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("All padded shapes must be vectors, padded_shapes[", i,
                         "] has shape ", shape.shape().ToString()));
      }
      std::vector<int64_t> dims(shape.flat<int64_t>().begin(),
                                shape.flat<int64_t>().end());
      for (int64_t d : dims) {
        if (d < -1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "padded_shapes[", i, "] has dimension ", d,
              "; each must be >= 0, or -1 for the batch's largest"));
        }
      }
      padded.push_back(std::move(dims));
      const Tensor& value = ctx->input(2 + n + i);
      if (value.NumElements() != 1 || value.shape().rank() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("All padding values must be scalars, padding_values[",
                         i, "] has shape ", value.shape().ToString()));
      }
      values.push_back(value);
    }
    if ((*input)->types().size() != static_cast<size_t>(n)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Number of padded shapes (", n,
          ") must match the number of components in the input dataset's "
          "elements (",
          (*input)->types().size(), ")"));
    }
    bool drop = false;
    if (num_inputs() > 2 + 2 * n) {
      absl::StatusOr<bool> d = BoolInput(ctx, 2 + 2 * n, "drop_remainder");
      if (!d.ok()) return d.status();
      drop = *d;
    }
    return std::make_shared<PaddedBatchDatasetImpl>(
        info(), *std::move(input), *batch_size, drop, std::move(padded),
        std::move(values));
  }

  int64_t n_ = 0;
};

// ---- UnbatchDataset.

class UnbatchDatasetImpl : public Dataset {
 public:
  UnbatchDatasetImpl(Info info, DatasetPtr input)
      : Dataset(std::move(info)), input_(std::move(input)) {}

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
        input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<UnbatchDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const UnbatchDatasetImpl> d,
             std::unique_ptr<DatasetIterator> input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      while (row_ >= rows_) {
        if (absl::Status s = input_->GetNext(ctx, &batch_, end);
            !s.ok() || *end) {
          return s;
        }
        row_ = 0;
        rows_ = -1;
        for (size_t c = 0; c < batch_.size(); ++c) {
          const TensorShape& shape = batch_[c].shape();
          if (shape.rank() < 1 || (rows_ >= 0 && shape.dim(0) != rows_)) {
            return DatasetError(
                *d_, absl::InvalidArgumentError(absl::StrCat(
                         "Input element must have a non-scalar value in each "
                         "component, all with the same 0th dimension; "
                         "component ",
                         c, " has shape ", shape.ToString())));
          }
          rows_ = shape.dim(0);
        }
      }
      Element element;
      for (const Tensor& t : batch_) {
        absl::StatusOr<Tensor> row = CopyRow(t, row_, ctx.allocator());
        if (!row.ok()) return row.status();
        element.push_back(*std::move(row));
      }
      ++row_;
      *out = std::move(element);
      *end = false;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const UnbatchDatasetImpl> d_;
    const std::unique_ptr<DatasetIterator> input_;
    Element batch_;
    int64_t row_ = 0, rows_ = 0;
  };

  const DatasetPtr input_;
};

class UnbatchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    return std::make_shared<UnbatchDatasetImpl>(info(), *std::move(input));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("BatchDataset").Device(kDeviceCpu),
                      BatchDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("BatchDatasetV2").Device(kDeviceCpu),
                      BatchDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ParallelBatchDataset").Device(kDeviceCpu),
    BatchDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PaddedBatchDataset").Device(kDeviceCpu),
                      PaddedBatchDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("PaddedBatchDatasetV2").Device(kDeviceCpu),
    PaddedBatchDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnbatchDataset").Device(kDeviceCpu),
                      UnbatchDatasetOp);

}  // namespace

DatasetPtr NewBatchDataset(Dataset::Info info, DatasetPtr input,
                           int64_t batch_size, bool drop_remainder) {
  return std::make_shared<BatchDatasetImpl>(std::move(info), std::move(input),
                                            batch_size, drop_remainder);
}

}  // namespace dflow
