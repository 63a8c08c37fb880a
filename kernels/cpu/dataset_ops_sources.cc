// The datasets of tensors the graph computes: TensorSliceDataset
// (from_tensor_slices), TensorDataset (from_tensors) and RangeDataset.
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/dataset_ops.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

class TensorSliceDatasetImpl : public Dataset {
 public:
  TensorSliceDatasetImpl(Info info, std::vector<Tensor> components)
      : Dataset(std::move(info)), components_(std::move(components)) {}

  int64_t Cardinality() const override { return components_[0].shape().dim(0); }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<TensorSliceDatasetImpl>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const TensorSliceDatasetImpl> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (next_ >= d_->Cardinality()) {
        *end = true;
        return absl::OkStatus();
      }
      Element element;
      for (const Tensor& c : d_->components_) {
        absl::StatusOr<Tensor> row = CopyRow(c, next_, ctx.allocator());
        if (!row.ok()) return DatasetError(*d_, row.status());
        element.push_back(*std::move(row));
      }
      ++next_;
      *out = std::move(element);
      *end = false;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const TensorSliceDatasetImpl> d_;
    int64_t next_ = 0;
  };

  const std::vector<Tensor> components_;
};

class TensorSliceDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::vector<Tensor> components;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& c = ctx->input(i);
      if (c.shape().rank() < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "component ", i, " is a scalar (shape ", c.shape().ToString(),
            "); from_tensor_slices slices components along their 0th "
            "dimension, so each must have at least one"));
      }
      if (i > 0 && c.shape().dim(0) != components[0].shape().dim(0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "all components must have the same size in the 0th dimension: "
            "component 0 has shape ",
            components[0].shape().ToString(), ", component ", i, " has ",
            c.shape().ToString()));
      }
      components.push_back(c);
    }
    if (components.empty()) {
      return absl::InvalidArgumentError("there must be at least one component");
    }
    Dataset::Info dataset_info = info();
    for (size_t i = 0; i < components.size(); ++i) {
      TensorShape row = components[i].shape();
      row.RemoveDim(0);
      if (i < dataset_info.shapes.size() &&
          !dataset_info.shapes[i].IsCompatibleWith(row)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "component ", i, " slices into shape ", row.ToString(),
            " but output_shapes says ", dataset_info.shapes[i].ToString()));
      }
    }
    return std::make_shared<TensorSliceDatasetImpl>(std::move(dataset_info),
                                                    std::move(components));
  }
};

class TensorDatasetImpl : public Dataset {
 public:
  TensorDatasetImpl(Info info, Element element)
      : Dataset(std::move(info)), element_(std::move(element)) {}

  int64_t Cardinality() const override { return 1; }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<TensorDatasetImpl>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const TensorDatasetImpl> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(const DatasetContext&, Element* out,
                         bool* end) override {
      *end = done_;
      if (!done_) *out = d_->element_;
      done_ = true;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const TensorDatasetImpl> d_;
    bool done_ = false;
  };

  const Element element_;
};

class TensorDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    Element element;
    for (int i = 0; i < ctx->num_inputs(); ++i)
      element.push_back(ctx->input(i));
    Dataset::Info dataset_info = info();
    if (absl::Status s = CheckElement(element, dataset_info.types,
                                      dataset_info.shapes, "the components");
        !s.ok()) {
      return s;
    }
    return std::make_shared<TensorDatasetImpl>(std::move(dataset_info),
                                               std::move(element));
  }
};

class RangeDatasetImpl : public Dataset {
 public:
  RangeDatasetImpl(Info info, int64_t start, int64_t stop, int64_t step)
      : Dataset(std::move(info)), start_(start), stop_(stop), step_(step) {}

  int64_t Cardinality() const override {
    if (step_ > 0) {
      return stop_ <= start_ ? 0 : (stop_ - start_ - 1) / step_ + 1;
    }
    return start_ <= stop_ ? 0 : (start_ - stop_ - 1) / -step_ + 1;
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<RangeDatasetImpl>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const RangeDatasetImpl> d)
        : d_(std::move(d)), next_(d_->start_) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if ((d_->step_ > 0 && next_ >= d_->stop_) ||
          (d_->step_ < 0 && next_ <= d_->stop_)) {
        *end = true;
        return absl::OkStatus();
      }
      const DataType dtype = d_->types()[0];
      absl::StatusOr<Tensor> value =
          Tensor::Allocate(ctx.allocator(), dtype, TensorShape({}));
      if (!value.ok()) return value.status();
      switch (dtype) {
        case DT_INT32:
          *value->data<int32_t>() = static_cast<int32_t>(next_);
          break;
        case DT_FLOAT:
          *value->data<float>() = static_cast<float>(next_);
          break;
        case DT_DOUBLE:
          *value->data<double>() = static_cast<double>(next_);
          break;
        default:
          *value->data<int64_t>() = next_;
      }
      next_ += d_->step_;
      *out = {*std::move(value)};
      *end = false;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const RangeDatasetImpl> d_;
    int64_t next_;
  };

  const int64_t start_, stop_, step_;
};

class RangeDatasetOp : public DatasetOpKernel {
 public:
  explicit RangeDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    if (types().size() != 1 ||
        (types()[0] != DT_INT64 && types()[0] != DT_INT32 &&
         types()[0] != DT_FLOAT && types()[0] != DT_DOUBLE)) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "output_types must be one of int64, int32, float or double"));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<int64_t> start = Int64Input(ctx, 0, "start");
    if (!start.ok()) return start.status();
    absl::StatusOr<int64_t> stop = Int64Input(ctx, 1, "stop");
    if (!stop.ok()) return stop.status();
    absl::StatusOr<int64_t> step = Int64Input(ctx, 2, "step");
    if (!step.ok()) return step.status();
    if (*step == 0) {
      return absl::InvalidArgumentError("step must be a non-zero integer.");
    }
    return std::make_shared<RangeDatasetImpl>(info(), *start, *stop, *step);
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorSliceDataset").Device(kDeviceCpu),
                      TensorSliceDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorDataset").Device(kDeviceCpu),
                      TensorDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RangeDataset").Device(kDeviceCpu),
                      RangeDatasetOp);

}  // namespace
}  // namespace dflow
