// More of tf.data's transformations, with TensorFlow's elements and order:
// ShardDataset, TakeWhileDataset, ScanDataset, UniqueDataset and
// IgnoreErrorsDataset. Windows and groups are in dataset_ops_window.cc,
// sampling from several datasets in dataset_ops_sampling.cc.
#include "kernels/cpu/dataset_ops_more.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/dataset_ops.h"
#include "kernels/cpu/dataset_ops_function.h"
#include "kernels/cpu/random_ops_philox.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using dataset_more::ElementsDataset;
using dataset_more::IteratorPtr;
using dataset_more::ListAttrSize;

// ---- ShardDataset.

// num_shards SHARD_HINT: a dataset that only tf.distribute's rewrite of it
// can read.
constexpr int64_t kShardHint = -1;

class ShardDatasetImpl : public Dataset {
 public:
  ShardDatasetImpl(Info info, DatasetPtr input, int64_t num_shards,
                   int64_t index, bool require_non_empty)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        num_shards_(num_shards),
        index_(index),
        require_non_empty_(require_non_empty) {}

  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n == kInfiniteCardinality || n == kUnknownCardinality) return n;
    if (num_shards_ == kShardHint) return kUnknownCardinality;
    return n / num_shards_ + (index_ < n % num_shards_ ? 1 : 0);
  }

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    if (num_shards_ == kShardHint) {
      return DatasetError(
          *this,
          absl::FailedPreconditionError(
              "`tf.data.Dataset.shard(SHARD_HINT, ...)` can only be used in "
              "`tf.distribute.Strategy.experimental_distribute_dataset()` "
              "with `tf.data.experimental.AutoShardPolicy.HINT` policy, or "
              "tf.data service with "
              "`tf.data.experimental.service.ShardingPolicy.HINT` processing "
              "mode."));
    }
    absl::StatusOr<IteratorPtr> input = input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<ShardDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const ShardDatasetImpl> d, IteratorPtr input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      *end = false;
      if (input_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      int64_t skip = (d_->index_ - next_index_) % d_->num_shards_;
      if (skip < 0) skip += d_->num_shards_;
      for (int64_t i = 0; i < skip; ++i) {
        Element dropped;
        if (absl::Status s = input_->GetNext(ctx, &dropped, end); !s.ok()) {
          return s;
        }
        if (*end) {
          input_.reset();
          return absl::OkStatus();
        }
        ++next_index_;
      }
      Element element;
      if (absl::Status s = input_->GetNext(ctx, &element, end); !s.ok()) {
        return s;
      }
      if (*end) {
        input_.reset();
        return absl::OkStatus();
      }
      ++next_index_;
      if (d_->require_non_empty_ && next_index_ < d_->num_shards_) {
        // TensorFlow's check that every shard gets an element.
        while (next_index_ < d_->num_shards_) {
          Element dropped;
          bool input_end = false;
          if (absl::Status s = input_->GetNext(ctx, &dropped, &input_end);
              !s.ok()) {
            return s;
          }
          if (input_end) {
            return DatasetError(
                *d_, absl::InvalidArgumentError(absl::StrCat(
                         "Could not apply FILE based sharding: the dataset "
                         "only has ",
                         next_index_,
                         " file(s), which is not enough for the "
                         "required ",
                         d_->num_shards_, " shards/workers.")));
          }
          ++next_index_;
        }
      }
      *out = std::move(element);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ShardDatasetImpl> d_;
    IteratorPtr input_;
    int64_t next_index_ = 0;
  };

  const DatasetPtr input_;
  const int64_t num_shards_, index_;
  const bool require_non_empty_;
};

class ShardDatasetOp : public DatasetOpKernel {
 public:
  explicit ShardDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ctx->GetAttr("require_non_empty", &require_non_empty_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    absl::StatusOr<int64_t> num_shards = Int64Input(ctx, 1, "num_shards");
    if (!num_shards.ok()) return num_shards.status();
    absl::StatusOr<int64_t> index = Int64Input(ctx, 2, "index");
    if (!index.ok()) return index.status();
    if (*num_shards <= 0 && *num_shards != kShardHint) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Number of shards must be greater than zero (currently num_shards "
          "= ",
          *num_shards, ")."));
    }
    if (*num_shards != kShardHint && (*index < 0 || *index >= *num_shards)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Index must be between 0 and ", *num_shards - 1,
                       " (currently index = ", *index, ")."));
    }
    return std::make_shared<ShardDatasetImpl>(
        info(), *std::move(input), *num_shards, *index, require_non_empty_);
  }
  bool require_non_empty_ = false;
};

// ---- TakeWhileDataset.

class TakeWhileDatasetImpl : public Dataset {
 public:
  TakeWhileDatasetImpl(Info info, DatasetPtr input,
                       std::shared_ptr<const DatasetFunction> predicate,
                       std::vector<TensorValue> captured)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        predicate_(std::move(predicate)),
        captured_(std::move(captured)) {}

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<IteratorPtr> input = input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<TakeWhileDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const TakeWhileDatasetImpl> d, IteratorPtr input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (input_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      Element element;
      if (absl::Status s = input_->GetNext(ctx, &element, end);
          !s.ok() || *end) {
        if (*end) input_.reset();
        return s;
      }
      std::vector<Tensor> results;
      if (absl::Status s = CallDatasetFunction(
              *d_, *d_->predicate_, ctx, element, d_->captured_, &results);
          !s.ok()) {
        return s;
      }
      if (results.size() != 1 || results[0].dtype() != DT_BOOL ||
          results[0].NumElements() != 1) {
        return DatasetError(*d_, absl::InvalidArgumentError(
                                     "`predicate` must returns a scalar bool "
                                     "tensor."));
      }
      if (!*results[0].data<bool>()) {
        input_.reset();
        *end = true;
        return absl::OkStatus();
      }
      *out = std::move(element);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const TakeWhileDatasetImpl> d_;
    IteratorPtr input_;
  };

  const DatasetPtr input_;
  const std::shared_ptr<const DatasetFunction> predicate_;
  const std::vector<TensorValue> captured_;
};

class TakeWhileDatasetOp : public DatasetOpKernel {
 public:
  explicit TakeWhileDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    predicate_ = DatasetFunctionAttr(ctx, "predicate");
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    return std::make_shared<TakeWhileDatasetImpl>(
        info(), *std::move(input), predicate_,
        CapturedInputs(ctx, 1, num_inputs()));
  }
  std::shared_ptr<const DatasetFunction> predicate_;
};

// ---- ScanDataset.

class ScanDatasetImpl : public Dataset {
 public:
  ScanDatasetImpl(Info info, DatasetPtr input,
                  std::shared_ptr<const DatasetFunction> f,
                  std::vector<Tensor> initial_state,
                  std::vector<DataType> state_types,
                  std::vector<TensorValue> captured, bool preserve_cardinality)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        f_(std::move(f)),
        initial_state_(std::move(initial_state)),
        state_types_(std::move(state_types)),
        captured_(std::move(captured)),
        preserve_cardinality_(preserve_cardinality) {}

  int64_t Cardinality() const override {
    return preserve_cardinality_ ? input_->Cardinality() : kUnknownCardinality;
  }

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<IteratorPtr> input = input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<ScanDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const ScanDatasetImpl> d, IteratorPtr input)
        : d_(std::move(d)),
          input_(std::move(input)),
          state_(d_->initial_state_) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      Element element;
      if (absl::Status s = input_->GetNext(ctx, &element, end);
          !s.ok() || *end) {
        return s;
      }
      Element args = state_;
      for (Tensor& t : element) args.push_back(std::move(t));
      std::vector<Tensor> results;
      absl::Status s =
          CallDatasetFunction(*d_, *d_->f_, ctx, args, d_->captured_, &results);
      if (absl::IsOutOfRange(s)) {
        if (d_->preserve_cardinality_) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Function invocation produced OutOfRangeError: ", s.message()));
        }
        *end = true;
        return absl::OkStatus();
      }
      if (!s.ok()) return s;
      const size_t n_state = d_->state_types_.size();
      if (results.size() != n_state + d_->types().size()) {
        return DatasetError(
            *d_, absl::InvalidArgumentError(absl::StrCat(
                     "Function '", d_->f_->name(), "' returned ",
                     results.size(), " values, expected ",
                     n_state + d_->types().size(), " (state and output)")));
      }
      for (size_t i = 0; i < n_state; ++i) {
        if (results[i].dtype() != d_->state_types_[i]) {
          return DatasetError(
              *d_, absl::InvalidArgumentError(absl::StrCat(
                       "Data type mismatch at component ", i, ": expected ",
                       DataTypeName(d_->state_types_[i]), " but got ",
                       DataTypeName(results[i].dtype()), ".")));
        }
      }
      Element output(std::make_move_iterator(results.begin() + n_state),
                     std::make_move_iterator(results.end()));
      if (absl::Status c =
              CheckElement(output, d_->types(), d_->shapes(), d_->Label());
          !c.ok()) {
        return c;
      }
      state_.assign(std::make_move_iterator(results.begin()),
                    std::make_move_iterator(results.begin() + n_state));
      *out = std::move(output);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ScanDatasetImpl> d_;
    const IteratorPtr input_;
    Element state_;
  };

  const DatasetPtr input_;
  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<Tensor> initial_state_;
  const std::vector<DataType> state_types_;
  const std::vector<TensorValue> captured_;
  const bool preserve_cardinality_;
};

class ScanDatasetOp : public DatasetOpKernel {
 public:
  explicit ScanDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    f_ = DatasetFunctionAttr(ctx, "f");
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ctx->GetAttr("Tstate", &state_types_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(
        ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    const int n_state = static_cast<int>(state_types_.size());
    std::vector<Tensor> state;
    for (int i = 0; i < n_state; ++i) state.push_back(ctx->input(1 + i));
    return std::make_shared<ScanDatasetImpl>(
        info(), *std::move(input), f_, std::move(state), state_types_,
        CapturedInputs(ctx, 1 + n_state, num_inputs()), preserve_cardinality_);
  }
  std::shared_ptr<const DatasetFunction> f_;
  std::vector<DataType> state_types_;
  bool preserve_cardinality_ = false;
};

// ---- UniqueDataset.

// A key for an element's one tensor: its shape and its values.
std::string ElementKey(const Tensor& t) {
  std::string key = t.shape().ToString();
  key.push_back('|');
  if (t.dtype() == DT_STRING) {
    for (const std::string& s : t.flat<std::string>()) {
      absl::StrAppend(&key, s.size(), ":", s);
    }
  } else if (t.dtype() == DT_INT32) {
    for (int32_t v : t.flat<int32_t>()) absl::StrAppend(&key, v, ",");
  } else {
    for (int64_t v : t.flat<int64_t>()) absl::StrAppend(&key, v, ",");
  }
  return key;
}

class UniqueDatasetImpl : public Dataset {
 public:
  UniqueDatasetImpl(Info info, DatasetPtr input)
      : Dataset(std::move(info)), input_(std::move(input)) {}

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<IteratorPtr> input = input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(*std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(IteratorPtr input) : input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      while (true) {
        Element element;
        if (absl::Status s = input_->GetNext(ctx, &element, end);
            !s.ok() || *end) {
          return s;
        }
        if (seen_.insert(ElementKey(element[0])).second) {
          *out = std::move(element);
          return absl::OkStatus();
        }
      }
    }

   private:
    const IteratorPtr input_;
    std::set<std::string> seen_;
  };
  const DatasetPtr input_;
};

class UniqueDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    const std::vector<DataType>& types = (*input)->types();
    if (types.size() != 1) {
      return absl::InvalidArgumentError(
          "UniqueDataset only supports inputs with a single component.");
    }
    if (types[0] != DT_INT32 && types[0] != DT_INT64 && types[0] != DT_STRING) {
      return absl::InvalidArgumentError(
          "UniqueDataset only supports inputs with a single `tf.int32`, "
          "`tf.int64`, or `tf.string` component.");
    }
    return std::make_shared<UniqueDatasetImpl>(info(), *std::move(input));
  }
};

// ---- IgnoreErrorsDataset.

class IgnoreErrorsDatasetImpl : public Dataset {
 public:
  IgnoreErrorsDatasetImpl(Info info, DatasetPtr input)
      : Dataset(std::move(info)), input_(std::move(input)) {}

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<IteratorPtr> input = input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(*std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(IteratorPtr input) : input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (input_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      absl::Status s = input_->GetNext(ctx, out, end);
      while (!s.ok() && !absl::IsCancelled(s)) {
        out->clear();
        s = input_->GetNext(ctx, out, end);
      }
      if (s.ok() && *end) input_.reset();
      return s;
    }

   private:
    IteratorPtr input_;
  };
  const DatasetPtr input_;
};

class IgnoreErrorsDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    return std::make_shared<IgnoreErrorsDatasetImpl>(info(), *std::move(input));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ShardDataset").Device(kDeviceCpu),
                      ShardDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TakeWhileDataset").Device(kDeviceCpu),
                      TakeWhileDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ScanDataset").Device(kDeviceCpu),
                      ScanDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UniqueDataset").Device(kDeviceCpu),
                      UniqueDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("IgnoreErrorsDataset").Device(kDeviceCpu),
    IgnoreErrorsDatasetOp);

}  // namespace
}  // namespace dflow
