// The iterator ops: an iterator is a resource of the session (an
// IteratorResource in its VariableStore, named by shared_name or the node,
// like a queue) that holds a dataset and the DatasetIterator reading it.
//
// - OneShotIterator runs its dataset_factory function on its first run and
//   starts the iterator there; later runs hand out the same iterator (a
//   factory that failed fails every run the same way).
// - IteratorV2 / Iterator make an empty iterator; MakeIterator (the
//   initializer of make_initializable_iterator) starts it at the
//   beginning of a dataset, again each time it runs.
// - AnonymousIterator(V2, V3) make a new one on every run; DeleteIterator
//   lets go of what it holds.
// - IteratorGetNext(Sync) returns the next element, OutOfRange "End of
//   sequence" after the last (as TensorFlow: `dflow run` then stops as at
//   the end of a queue's input), FailedPrecondition before MakeIterator.
//   IteratorGetNextAsOptional returns it as an Optional.
// - IteratorToStringHandle / IteratorFromStringHandle(V2): a feedable
//   iterator's handle is a serialized ResourceHandleProto naming the
//   iterator's store key; it is good in the session that made it.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/data_flow_ops_optional.h"
#include "kernels/cpu/dataset_ops.h"
#include "kernels/cpu/dataset_ops_function.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "proto/resource_handle.pb.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

constexpr char kIteratorTypeName[] = "dflow::IteratorResource";

class IteratorResource : public ResourceBase {
 public:
  IteratorResource(std::string name, std::vector<DataType> types,
                   std::vector<TensorShape> shapes)
      : name_(std::move(name)),
        types_(std::move(types)),
        shapes_(std::move(shapes)) {}

  std::string DebugString() const override {
    return absl::StrCat("Iterator '", name_, "'");
  }
  const std::vector<DataType>& types() const { return types_; }
  const std::vector<TensorShape>& shapes() const { return shapes_; }

  // Starts reading `dataset` from its beginning (what was read before is
  // dropped).
  absl::Status SetDataset(const DatasetContext& ctx, DatasetPtr dataset) {
    if (absl::Status s = CheckSpec(*dataset, types_, shapes_, DebugString());
        !s.ok()) {
      return s;
    }
    std::lock_guard<std::mutex> lock(mu_);
    absl::StatusOr<std::unique_ptr<DatasetIterator>> it =
        dataset->MakeIterator(ctx);
    if (!it.ok()) return it.status();
    dataset_ = std::move(dataset);
    iterator_ = *std::move(it);
    return absl::OkStatus();
  }

  // The next element, or *end at the end of the sequence.
  absl::Status GetNext(const DatasetContext& ctx, Element* out, bool* end) {
    std::lock_guard<std::mutex> lock(mu_);
    if (iterator_ == nullptr) {
      return absl::FailedPreconditionError(
          "GetNext() failed because the iterator has not been initialized. "
          "Ensure that you have run the initializer operation for this "
          "iterator before getting the next element.");
    }
    return iterator_->GetNext(ctx, out, end);
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    iterator_.reset();
    dataset_.reset();
  }

  // A one-shot iterator's start: made once, its outcome kept.
  absl::Status StartOnce(const std::function<absl::Status()>& start) {
    std::lock_guard<std::mutex> lock(once_mu_);
    if (!started_) {
      started_ = true;
      start_status_ = start();
    }
    return start_status_;
  }

 private:
  const std::string name_;
  const std::vector<DataType> types_;
  const std::vector<TensorShape> shapes_;
  // Held while an element is computed: one reader at a time.
  std::mutex mu_;
  DatasetPtr dataset_;                         // mu_
  std::unique_ptr<DatasetIterator> iterator_;  // mu_
  std::mutex once_mu_;
  bool started_ = false;       // once_mu_
  absl::Status start_status_;  // once_mu_
};

// What the iterator-making kernels share: the element attrs.
class IteratorHandleOp : public OpKernel {
 public:
  explicit IteratorHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("output_types", &types_));
    ctx->SetStatus(ctx->GetAttr("output_shapes", &shapes_));
  }
  bool IsExpensive() const override { return false; }

 protected:
  absl::StatusOr<Var*> Resource(OpKernelContext* ctx, const std::string& key) {
    return LookupOrCreateResource<IteratorResource>(ctx, key, "Iterator", [&] {
      return std::make_unique<IteratorResource>(name(), types_, shapes_);
    });
  }

 private:
  std::vector<DataType> types_;
  std::vector<TensorShape> shapes_;
};

// IteratorV2, Iterator: the iterator of this node (or shared_name).
class IteratorOp : public IteratorHandleOp {
 public:
  explicit IteratorOp(OpKernelConstruction* ctx)
      : IteratorHandleOp(ctx), key_(ResourceKey(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = Resource(ctx, key_);
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }

 private:
  const std::string key_;
};

// AnonymousIterator, AnonymousIteratorV2 (with a deleter), V3: a new
// iterator every run.
class AnonymousIteratorOp : public IteratorHandleOp {
 public:
  using IteratorHandleOp::IteratorHandleOp;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = Resource(ctx, AnonymousResourceKey(ctx));
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
    if (num_outputs() > 1) {
      ctx->set_output(1, Tensor(DT_VARIANT, TensorShape({})));
    }
  }
};

class OneShotIteratorOp : public IteratorHandleOp {
 public:
  explicit OneShotIteratorOp(OpKernelConstruction* ctx)
      : IteratorHandleOp(ctx), key_(ResourceKey(ctx)) {
    if (!ctx->status().ok()) return;
    absl::StatusOr<std::shared_ptr<DatasetFunction>> f =
        DatasetFunction::FromAttr(ctx, "dataset_factory");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    factory_ = *std::move(f);
    if (!factory_->arg_types().empty() ||
        factory_->result_types() != std::vector<DataType>{DT_VARIANT}) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("dataset_factory '", factory_->name(),
                       "' must take no arguments and return one dataset")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = Resource(ctx, key_);
    OP_REQUIRES_OK(ctx, var.status());
    auto* iterator = dynamic_cast<IteratorResource*>((*var)->resource());
    OP_REQUIRES_OK(ctx, iterator->StartOnce([&]() -> absl::Status {
      const DatasetContext dctx = DatasetContext::Of(ctx);
      std::vector<Tensor> results;
      absl::Status s = factory_->Call(dctx, {}, &results);
      if (!s.ok()) {
        return absl::Status(
            s.code(), absl::StrCat("in dataset_factory '", factory_->name(),
                                   "': ", s.message()));
      }
      absl::StatusOr<DatasetPtr> dataset = DatasetOfTensor(
          results[0], absl::StrCat("the result of dataset_factory '",
                                   factory_->name(), "'"));
      if (!dataset.ok()) return dataset.status();
      return iterator->SetDataset(dctx, *std::move(dataset));
    }));
    ctx->set_output_var(0, *var);
  }

 private:
  const std::string key_;
  std::shared_ptr<DatasetFunction> factory_;
};

// The iterator behind resource input `i`.
absl::StatusOr<IteratorResource*> IteratorInput(OpKernelContext* ctx, int i) {
  IteratorResource* it = ResourceOfInput<IteratorResource>(ctx, i);
  if (it == nullptr) {
    Var* var = ctx->input_var(i);
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", i, " must be an iterator handle, got ",
        var == nullptr               ? std::string("no resource")
        : var->resource() == nullptr ? absl::StrCat("'", var->name(), "'")
                                     : var->resource()->DebugString()));
  }
  return it;
}

class MakeIteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = DatasetInput(ctx, 0, "dataset");
    OP_REQUIRES_OK(ctx, dataset.status());
    absl::StatusOr<IteratorResource*> it = IteratorInput(ctx, 1);
    OP_REQUIRES_OK(ctx, it.status());
    OP_REQUIRES_OK(
        ctx, (*it)->SetDataset(DatasetContext::Of(ctx), *std::move(dataset)));
  }
  bool IsExpensive() const override { return false; }
};

class DeleteIteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<IteratorResource*> it = IteratorInput(ctx, 0);
    OP_REQUIRES_OK(ctx, it.status());
    (*it)->Release();
  }
  bool IsExpensive() const override { return false; }
};

// IteratorGetNext, IteratorGetNextSync and IteratorGetNextAsOptional.
class IteratorGetNextOp : public OpKernel {
 public:
  explicit IteratorGetNextOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        as_optional_(ctx->node().op() == "IteratorGetNextAsOptional") {
    ctx->SetStatus(ctx->GetAttr("output_types", &types_));
    ctx->SetStatus(ctx->GetAttr("output_shapes", &shapes_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<IteratorResource*> it = IteratorInput(ctx, 0);
    OP_REQUIRES_OK(ctx, it.status());
    Element element;
    bool end = false;
    OP_REQUIRES_OK(ctx,
                   (*it)->GetNext(DatasetContext::Of(ctx), &element, &end));
    if (as_optional_) {
      auto value = std::make_shared<OptionalValue>();
      if (!end) {
        OP_REQUIRES_OK(ctx, CheckElement(element, types_, shapes_,
                                         "the iterator's element"));
        value->has_value = true;
        value->components = std::move(element);
      }
      Tensor out(DT_VARIANT, TensorShape({}));
      *out.data<Variant>() = Variant(std::move(value));
      ctx->set_output(0, std::move(out));
      return;
    }
    OP_REQUIRES(ctx, !end, absl::OutOfRangeError("End of sequence"));
    OP_REQUIRES_OK(
        ctx, CheckElement(element, types_, shapes_, "the iterator's element"));
    for (int i = 0; i < num_outputs(); ++i) {
      ctx->set_output(i, std::move(element[i]));
    }
  }

 private:
  const bool as_optional_;
  std::vector<DataType> types_;
  std::vector<TensorShape> shapes_;
};

class IteratorToStringHandleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<IteratorResource*> it = IteratorInput(ctx, 0);
    OP_REQUIRES_OK(ctx, it.status());
    ResourceHandleProto handle;
    handle.set_device(ctx->device()->name());
    handle.set_name(ctx->input_var(0)->name());
    handle.set_maybe_type_name(kIteratorTypeName);
    ctx->set_output(0, Tensor::Scalar<std::string>(handle.SerializeAsString()));
  }
  bool IsExpensive() const override { return false; }
};

class IteratorFromStringHandleOp : public OpKernel {
 public:
  explicit IteratorFromStringHandleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("output_types", &types_));
    ctx->SetStatus(ctx->GetAttr("output_shapes", &shapes_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> text = StringInput(ctx, 0, "string_handle");
    OP_REQUIRES_OK(ctx, text.status());
    ResourceHandleProto handle;
    OP_REQUIRES(
        ctx,
        handle.ParseFromString(*text) &&
            handle.maybe_type_name() == kIteratorTypeName,
        absl::InvalidArgumentError(
            "Could not parse string_handle as a valid ResourceHandle: it "
            "must be what IteratorToStringHandle gave in this session"));
    Var* var = ctx->variables()->Lookup(handle.name());
    auto* it = dynamic_cast<IteratorResource*>(
        var == nullptr ? nullptr : var->resource());
    OP_REQUIRES(ctx, it != nullptr,
                absl::NotFoundError(absl::StrCat(
                    "string_handle names iterator '", handle.name(),
                    "', which this session does not have")));
    if (!types_.empty()) {
      OP_REQUIRES(ctx, types_ == it->types(),
                  absl::InvalidArgumentError(absl::StrCat(
                      it->DebugString(),
                      " has other output_types than this handle expects")));
    }
    for (size_t i = 0; i < shapes_.size() && i < it->shapes().size(); ++i) {
      OP_REQUIRES(ctx, shapes_[i].IsCompatibleWith(it->shapes()[i]),
                  absl::InvalidArgumentError(absl::StrCat(
                      it->DebugString(), " has component ", i, " of shape ",
                      it->shapes()[i].ToString(), ", this handle expects ",
                      shapes_[i].ToString())));
    }
    ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<DataType> types_;
  std::vector<TensorShape> shapes_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("OneShotIterator").Device(kDeviceCpu),
                      OneShotIteratorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("IteratorV2").Device(kDeviceCpu),
                      IteratorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Iterator").Device(kDeviceCpu),
                      IteratorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("AnonymousIterator").Device(kDeviceCpu),
                      AnonymousIteratorOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("AnonymousIteratorV2").Device(kDeviceCpu),
    AnonymousIteratorOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("AnonymousIteratorV3").Device(kDeviceCpu),
    AnonymousIteratorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MakeIterator").Device(kDeviceCpu),
                      MakeIteratorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DeleteIterator").Device(kDeviceCpu),
                      DeleteIteratorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("IteratorGetNext").Device(kDeviceCpu),
                      IteratorGetNextOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("IteratorGetNextSync").Device(kDeviceCpu),
    IteratorGetNextOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("IteratorGetNextAsOptional").Device(kDeviceCpu),
    IteratorGetNextOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("IteratorToStringHandle").Device(kDeviceCpu),
    IteratorToStringHandleOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("IteratorFromStringHandle").Device(kDeviceCpu),
    IteratorFromStringHandleOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("IteratorFromStringHandleV2").Device(kDeviceCpu),
    IteratorFromStringHandleOp);

}  // namespace
}  // namespace dflow
