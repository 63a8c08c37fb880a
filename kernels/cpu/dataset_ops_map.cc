// The datasets that call a function per element: MapDataset and its
// parallel forms (ParallelMapDataset, ParallelMapDatasetV2,
// MapAndBatchDataset), FilterDataset, FlatMapDataset and InterleaveDataset
// (with ParallelInterleaveDatasetV4), and the kernels that fold a whole
// dataset (ReduceDataset, DatasetToSingleElement).
//
// The parallel forms compute one element after the other on the caller's
// thread (dataset_ops.h): their elements and order are those TensorFlow
// gives deterministically, which is also a valid answer where it may
// reorder (deterministic: false / sloppy).
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/dataset_ops.h"
#include "kernels/cpu/dataset_ops_function.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

// ---- MapDataset.

class MapDatasetImpl : public Dataset {
 public:
  MapDatasetImpl(Info info, DatasetPtr input,
                 std::shared_ptr<const DatasetFunction> f,
                 std::vector<TensorValue> captured, bool preserve_cardinality)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        f_(std::move(f)),
        captured_(std::move(captured)),
        preserve_cardinality_(preserve_cardinality) {}

  int64_t Cardinality() const override {
    return preserve_cardinality_ ? input_->Cardinality() : kUnknownCardinality;
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
        input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<MapDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const MapDatasetImpl> d,
             std::unique_ptr<DatasetIterator> input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      Element element;
      if (absl::Status s = input_->GetNext(ctx, &element, end);
          !s.ok() || *end) {
        return s;
      }
      std::vector<Tensor> results;
      absl::Status s = CallDatasetFunction(*d_, *d_->f_, ctx, element,
                                           d_->captured_, &results);
      if (absl::IsOutOfRange(s)) {
        // A function's OutOfRange ends the sequence, as TensorFlow's
        // map does, unless the dataset promised its input's length.
        if (d_->preserve_cardinality_) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Function invocation produced OutOfRangeError: ", s.message()));
        }
        *end = true;
        return absl::OkStatus();
      }
      if (!s.ok()) return s;
      *out = std::move(results);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const MapDatasetImpl> d_;
    const std::unique_ptr<DatasetIterator> input_;
  };

  const DatasetPtr input_;
  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<TensorValue> captured_;
  const bool preserve_cardinality_;
};

// What the kernels of function-calling datasets share: the function from
// attr `attr` and the layout of their inputs (the dataset, the captured
// arguments, then `trailing` scalar inputs).
class FunctionDatasetOp : public DatasetOpKernel {
 public:
  FunctionDatasetOp(OpKernelConstruction* ctx, const char* attr, int trailing)
      : DatasetOpKernel(ctx), trailing_(trailing) {
    f_ = DatasetFunctionAttr(ctx, attr);
    if (f_ == nullptr) return;
    if (ctx->node().FindAttr("preserve_cardinality") != nullptr) {
      ctx->SetStatus(
          ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
    }
  }

 protected:
  int first_trailing() const { return num_inputs() - trailing_; }
  std::vector<TensorValue> Captured(OpKernelContext* ctx) const {
    return CapturedInputs(ctx, 1, first_trailing());
  }
  std::shared_ptr<const DatasetFunction> f() const { return f_; }
  bool preserve_cardinality() const { return preserve_cardinality_; }

 private:
  const int trailing_;
  std::shared_ptr<const DatasetFunction> f_;
  bool preserve_cardinality_ = false;
};

class MapDatasetOp : public FunctionDatasetOp {
 public:
  // MapDataset has no trailing input; the parallel forms end with
  // num_parallel_calls.
  MapDatasetOp(OpKernelConstruction* ctx)  // NOLINT
      : FunctionDatasetOp(ctx, "f", ctx->node().op() == "MapDataset" ? 0 : 1) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    if (first_trailing() < num_inputs()) {
      const Tensor& calls = ctx->input(first_trailing());
      if (calls.NumElements() != 1) {
        return absl::InvalidArgumentError(
            "`num_parallel_calls` must be a scalar");
      }
    }
    return std::make_shared<MapDatasetImpl>(
        info(), *std::move(input), f(), Captured(ctx), preserve_cardinality());
  }
};

// ---- FilterDataset.

class FilterDatasetImpl : public Dataset {
 public:
  FilterDatasetImpl(Info info, DatasetPtr input,
                    std::shared_ptr<const DatasetFunction> predicate,
                    std::vector<TensorValue> captured)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        predicate_(std::move(predicate)),
        captured_(std::move(captured)) {}

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
        input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<FilterDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const FilterDatasetImpl> d,
             std::unique_ptr<DatasetIterator> input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      while (true) {
        Element element;
        if (absl::Status s = input_->GetNext(ctx, &element, end);
            !s.ok() || *end) {
          return s;
        }
        std::vector<Tensor> results;
        if (absl::Status s = CallDatasetFunction(
                *d_, *d_->predicate_, ctx, element, d_->captured_, &results);
            !s.ok()) {
          return s;
        }
        if (results.size() != 1 || results[0].dtype() != DT_BOOL ||
            results[0].NumElements() != 1 || results[0].shape().rank() != 0) {
          return DatasetError(
              *d_, absl::InvalidArgumentError(
                       "Filter predicate `predicate` must return a scalar "
                       "bool."));
        }
        if (*results[0].data<bool>()) {
          *out = std::move(element);
          return absl::OkStatus();
        }
      }
    }

   private:
    const std::shared_ptr<const FilterDatasetImpl> d_;
    const std::unique_ptr<DatasetIterator> input_;
  };

  const DatasetPtr input_;
  const std::shared_ptr<const DatasetFunction> predicate_;
  const std::vector<TensorValue> captured_;
};

class FilterDatasetOp : public FunctionDatasetOp {
 public:
  explicit FilterDatasetOp(OpKernelConstruction* ctx)
      : FunctionDatasetOp(ctx, "predicate", 0) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    return std::make_shared<FilterDatasetImpl>(info(), *std::move(input), f(),
                                               Captured(ctx));
  }
};

// ---- FlatMapDataset and InterleaveDataset: a dataset per element.

// Makes an iterator over the dataset `f` returns for `element`.
absl::StatusOr<std::unique_ptr<DatasetIterator>> IteratorOfElement(
    const Dataset& dataset, const DatasetFunction& f, const DatasetContext& ctx,
    const Element& element, const std::vector<TensorValue>& captured) {
  std::vector<Tensor> results;
  if (absl::Status s =
          CallDatasetFunction(dataset, f, ctx, element, captured, &results);
      !s.ok()) {
    return s;
  }
  if (results.size() != 1) {
    return DatasetError(dataset, absl::InvalidArgumentError(
                                     absl::StrCat("function '", f.name(),
                                                  "' must return one dataset, "
                                                  "returned ",
                                                  results.size(), " values")));
  }
  absl::StatusOr<DatasetPtr> inner = DatasetOfTensor(
      results[0], absl::StrCat("the result of function '", f.name(), "'"));
  if (!inner.ok()) return DatasetError(dataset, inner.status());
  if (absl::Status s = CheckSpec(**inner, dataset.types(), dataset.shapes(),
                                 dataset.Label());
      !s.ok()) {
    return s;
  }
  return (*inner)->MakeIterator(ctx);
}

// Interleave with cycle_length 1 and block_length 1 is flat_map: one class
// serves both. TensorFlow's order: cycle through `cycle_length` open
// datasets (opened from input elements in order, each in the slot that
// became free), taking `block_length` elements from each in turn; a slot
// whose dataset ends takes the next input element when its turn comes.
class InterleaveDatasetImpl : public Dataset {
 public:
  InterleaveDatasetImpl(Info info, DatasetPtr input,
                        std::shared_ptr<const DatasetFunction> f,
                        std::vector<TensorValue> captured, int64_t cycle_length,
                        int64_t block_length)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        f_(std::move(f)),
        captured_(std::move(captured)),
        cycle_length_(cycle_length),
        block_length_(block_length) {}

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
        input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<InterleaveDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const InterleaveDatasetImpl> d,
             std::unique_ptr<DatasetIterator> input)
        : d_(std::move(d)),
          input_(std::move(input)),
          open_(static_cast<size_t>(d_->cycle_length_)) {}

    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      while (!end_of_input_ || num_open_ > 0) {
        std::unique_ptr<DatasetIterator>& slot = open_[cycle_index_];
        if (slot != nullptr) {
          bool inner_end = false;
          if (absl::Status s = slot->GetNext(ctx, out, &inner_end); !s.ok()) {
            return s;
          }
          if (!inner_end) {
            if (++block_index_ == d_->block_length_) NextInCycle();
            *end = false;
            return absl::OkStatus();
          }
          slot.reset();
          --num_open_;
          NextInCycle();
        } else if (!end_of_input_) {
          Element element;
          if (absl::Status s = input_->GetNext(ctx, &element, &end_of_input_);
              !s.ok()) {
            return s;
          }
          if (!end_of_input_) {
            absl::StatusOr<std::unique_ptr<DatasetIterator>> inner =
                IteratorOfElement(*d_, *d_->f_, ctx, element, d_->captured_);
            if (!inner.ok()) return inner.status();
            slot = *std::move(inner);
            ++num_open_;
          }
        } else {
          NextInCycle();
        }
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    void NextInCycle() {
      block_index_ = 0;
      cycle_index_ = (cycle_index_ + 1) % open_.size();
    }

    const std::shared_ptr<const InterleaveDatasetImpl> d_;
    const std::unique_ptr<DatasetIterator> input_;
    std::vector<std::unique_ptr<DatasetIterator>> open_;
    size_t cycle_index_ = 0;
    int64_t block_index_ = 0;
    int64_t num_open_ = 0;
    bool end_of_input_ = false;
  };

  const DatasetPtr input_;
  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<TensorValue> captured_;
  const int64_t cycle_length_;
  const int64_t block_length_;
};

class InterleaveDatasetOp : public FunctionDatasetOp {
 public:
  // FlatMapDataset: no trailing inputs. InterleaveDataset: cycle_length,
  // block_length. ParallelInterleaveDatasetV4: those, then
  // buffer_output_elements, prefetch_input_elements and num_parallel_calls.
  explicit InterleaveDatasetOp(OpKernelConstruction* ctx)
      : FunctionDatasetOp(ctx, "f", Trailing(ctx->node().op())) {}

 private:
  static int Trailing(const std::string& op) {
    if (op == "FlatMapDataset") return 0;
    if (op == "InterleaveDataset") return 2;
    return 5;
  }

  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    int64_t cycle_length = 1, block_length = 1;
    if (first_trailing() < num_inputs()) {
      absl::StatusOr<int64_t> cycle =
          Int64Input(ctx, first_trailing(), "cycle_length");
      if (!cycle.ok()) return cycle.status();
      absl::StatusOr<int64_t> block =
          Int64Input(ctx, first_trailing() + 1, "block_length");
      if (!block.ok()) return block.status();
      cycle_length = *cycle;
      block_length = *block;
      // AUTOTUNE (-1): TensorFlow uses the machine's parallelism, so the
      // order then depends on the machine; so does dflow's.
      if (cycle_length == -1) {
        cycle_length = std::max(1u, std::thread::hardware_concurrency());
      }
      if (cycle_length <= 0) {
        return absl::InvalidArgumentError(
            "cycle_length must be greater than zero.");
      }
      if (block_length <= 0) {
        return absl::InvalidArgumentError(
            "block_length must be greater than zero.");
      }
    }
    return std::make_shared<InterleaveDatasetImpl>(info(), *std::move(input),
                                                   f(), Captured(ctx),
                                                   cycle_length, block_length);
  }
};

// ---- ReduceDataset and DatasetToSingleElement: the whole dataset in one
// kernel run.

absl::Status ReadAll(OpKernelContext* ctx, const DatasetPtr& dataset,
                     const std::function<absl::Status(Element)>& each) {
  const DatasetContext dctx = DatasetContext::Of(ctx);
  absl::StatusOr<std::unique_ptr<DatasetIterator>> it =
      dataset->MakeIterator(dctx);
  if (!it.ok()) return it.status();
  while (true) {
    Element element;
    bool end = false;
    if (absl::Status s = (*it)->GetNext(dctx, &element, &end); !s.ok()) {
      return s;
    }
    if (end) return absl::OkStatus();
    if (absl::Status s = each(std::move(element)); !s.ok()) return s;
  }
}

class ReduceDatasetOp : public OpKernel {
 public:
  explicit ReduceDatasetOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<DataType> state;
    ctx->SetStatus(ctx->GetAttr("Tstate", &state));
    num_state_ = static_cast<int>(state.size());
    absl::StatusOr<std::shared_ptr<DatasetFunction>> f =
        DatasetFunction::FromAttr(ctx, "f");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    f_ = *std::move(f);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = DatasetInput(ctx, 0, "input_dataset");
    OP_REQUIRES_OK(ctx, dataset.status());
    std::vector<Tensor> state;
    for (int i = 0; i < num_state_; ++i) state.push_back(ctx->input(1 + i));
    const std::vector<TensorValue> captured =
        CapturedInputs(ctx, 1 + num_state_, num_inputs());
    const DatasetContext dctx = DatasetContext::Of(ctx);
    OP_REQUIRES_OK(ctx, ReadAll(ctx, *dataset, [&](Element element) {
                     std::vector<TensorValue> args;
                     for (const Tensor& t : state) args.push_back({t, nullptr});
                     for (Tensor& t : element)
                       args.push_back({std::move(t), nullptr});
                     args.insert(args.end(), captured.begin(), captured.end());
                     std::vector<Tensor> next;
                     absl::Status s = f_->Call(dctx, args, &next);
                     if (!s.ok()) {
                       return absl::Status(
                           s.code(), absl::StrCat("in function '", f_->name(),
                                                  "': ", s.message()));
                     }
                     if (next.size() != state.size()) {
                       return absl::InvalidArgumentError(absl::StrCat(
                           "function '", f_->name(), "' returned ", next.size(),
                           " values for a state of ", state.size()));
                     }
                     state = std::move(next);
                     return absl::OkStatus();
                   }));
    OP_REQUIRES(
        ctx, static_cast<int>(state.size()) == num_outputs(),
        absl::InvalidArgumentError(absl::StrCat("the state has ", state.size(),
                                                " components but "
                                                "output_types names ",
                                                num_outputs())));
    for (int i = 0; i < num_outputs(); ++i) {
      OP_REQUIRES(
          ctx, state[i].dtype() == output_type(i),
          absl::InvalidArgumentError(absl::StrCat(
              "state component ", i, " is ", DataTypeName(state[i].dtype()),
              ", output_types says ", DataTypeName(output_type(i)))));
      ctx->set_output(i, state[i]);
    }
  }

 private:
  int num_state_ = 0;
  std::shared_ptr<DatasetFunction> f_;
};

class DatasetToSingleElementOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = DatasetInput(ctx, 0, "dataset");
    OP_REQUIRES_OK(ctx, dataset.status());
    int count = 0;
    Element first;
    OP_REQUIRES_OK(ctx, ReadAll(ctx, *dataset, [&](Element element) {
                     if (++count > 1) {
                       return absl::InvalidArgumentError(
                           "Dataset had more than one element.");
                     }
                     first = std::move(element);
                     return absl::OkStatus();
                   }));
    OP_REQUIRES(ctx, count == 1,
                absl::InvalidArgumentError("Dataset was empty."));
    OP_REQUIRES(ctx, static_cast<int>(first.size()) == num_outputs(),
                absl::InvalidArgumentError("the element does not have the "
                                           "components output_types names"));
    for (int i = 0; i < num_outputs(); ++i) {
      OP_REQUIRES(ctx, first[i].dtype() == output_type(i),
                  absl::InvalidArgumentError(absl::StrCat(
                      "component ", i, " is ", DataTypeName(first[i].dtype()),
                      ", output_types says ", DataTypeName(output_type(i)))));
      ctx->set_output(i, first[i]);
    }
  }
};

// MapAndBatchDataset: a map, then a batch of its elements.
class MapAndBatchDatasetOp : public FunctionDatasetOp {
 public:
  // Trailing inputs: batch_size, num_parallel_calls, drop_remainder.
  explicit MapAndBatchDatasetOp(OpKernelConstruction* ctx)
      : FunctionDatasetOp(ctx, "f", 3) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    absl::StatusOr<int64_t> batch_size =
        Int64Input(ctx, first_trailing(), "batch_size");
    if (!batch_size.ok()) return batch_size.status();
    absl::StatusOr<bool> drop =
        BoolInput(ctx, first_trailing() + 2, "drop_remainder");
    if (!drop.ok()) return drop.status();
    if (*batch_size <= 0) {
      return absl::InvalidArgumentError(
          "batch_size must be greater than zero.");
    }
    // The map's elements: the batch's, without the batch dimension.
    Dataset::Info map_info = info();
    map_info.op = "MapDataset";
    for (TensorShape& shape : map_info.shapes) {
      shape = shape.unknown_rank() || shape.rank() == 0
                  ? TensorShape::Unknown()
                  : [&] {
                      TensorShape row = shape;
                      row.RemoveDim(0);
                      return row;
                    }();
    }
    DatasetPtr mapped = std::make_shared<MapDatasetImpl>(
        std::move(map_info), *std::move(input), f(), Captured(ctx),
        preserve_cardinality());
    return NewBatchDataset(info(), std::move(mapped), *batch_size, *drop);
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("MapDataset").Device(kDeviceCpu),
                      MapDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParallelMapDataset").Device(kDeviceCpu),
                      MapDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ParallelMapDatasetV2").Device(kDeviceCpu), MapDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MapAndBatchDataset").Device(kDeviceCpu),
                      MapAndBatchDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("FilterDataset").Device(kDeviceCpu),
                      FilterDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("FlatMapDataset").Device(kDeviceCpu),
                      InterleaveDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("InterleaveDataset").Device(kDeviceCpu),
                      InterleaveDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ParallelInterleaveDatasetV4").Device(kDeviceCpu),
    InterleaveDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReduceDataset").Device(kDeviceCpu),
                      ReduceDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("DatasetToSingleElement").Device(kDeviceCpu),
    DatasetToSingleElementOp);

}  // namespace
}  // namespace dflow
