// More of tf.data's transformations, with TensorFlow's elements and order:
// ShardDataset, TakeWhileDataset, ScanDataset, WindowDataset (each window
// a dataset of its own, one per component), UniqueDataset,
// IgnoreErrorsDataset, DirectedInterleaveDataset with RandomDataset
// (sample_from_datasets / choose_from_datasets; RewriteDataset, which
// choose_from_datasets writes, passes its input through) and
// GroupByWindowDataset (group_by_window, bucket_by_sequence_length).
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

using IteratorPtr = std::unique_ptr<DatasetIterator>;

// Calls `f` on `args`; an error names the dataset and the function.
absl::Status CallOn(const Dataset& dataset, const DatasetFunction& f,
                    const DatasetContext& ctx, const Element& args,
                    const std::vector<TensorValue>& captured,
                    std::vector<Tensor>* results) {
  absl::Status s =
      f.Call(ctx, DatasetFunction::Arguments(args, captured), results);
  if (!s.ok()) {
    return DatasetError(
        dataset, absl::Status(s.code(), absl::StrCat("in function '", f.name(),
                                                     "': ", s.message())));
  }
  return s;
}

absl::StatusOr<std::shared_ptr<DatasetFunction>> FunctionAttr(
    OpKernelConstruction* ctx, const char* attr) {
  return DatasetFunction::FromAttr(ctx, attr);
}

// The number of entries of a list(type) attr (the inputs it types).
int ListAttrSize(OpKernelConstruction* ctx, const char* attr) {
  std::vector<DataType> types;
  if (ctx->node().FindAttr(attr) == nullptr) return 0;
  ctx->SetStatus(ctx->GetAttr(attr, &types));
  return static_cast<int>(types.size());
}

// A dataset of given elements (a window, a group): what window() and
// group_by_window() hand on as a variant.
class ElementsDataset : public Dataset {
 public:
  ElementsDataset(Info info, std::vector<Element> elements)
      : Dataset(std::move(info)), elements_(std::move(elements)) {}
  int64_t Cardinality() const override {
    return static_cast<int64_t>(elements_.size());
  }
  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<ElementsDataset>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const ElementsDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(const DatasetContext&, Element* out,
                         bool* end) override {
      if (next_ >= d_->elements_.size()) {
        *end = true;
        return absl::OkStatus();
      }
      *out = d_->elements_[next_++];
      *end = false;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ElementsDataset> d_;
    size_t next_ = 0;
  };
  const std::vector<Element> elements_;
};

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
                         next_index_, " file(s), which is not enough for the "
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

// ---- What function-calling kernels share: the captured inputs of each
// function, by the list attrs that type them.

class FunctionsDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  std::shared_ptr<const DatasetFunction> Function(OpKernelConstruction* ctx,
                                                  const char* attr) {
    if (!ctx->status().ok()) return nullptr;
    absl::StatusOr<std::shared_ptr<DatasetFunction>> f =
        FunctionAttr(ctx, attr);
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return nullptr;
    }
    return *std::move(f);
  }
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
      if (absl::Status s = CallOn(*d_, *d_->predicate_, ctx, element,
                                  d_->captured_, &results);
          !s.ok()) {
        return s;
      }
      if (results.size() != 1 || results[0].dtype() != DT_BOOL ||
          results[0].NumElements() != 1) {
        return DatasetError(*d_,
                            absl::InvalidArgumentError(
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

class TakeWhileDatasetOp : public FunctionsDatasetOp {
 public:
  explicit TakeWhileDatasetOp(OpKernelConstruction* ctx)
      : FunctionsDatasetOp(ctx) {
    if (!ctx->status().ok()) return;
    predicate_ = Function(ctx, "predicate");
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
        : d_(std::move(d)), input_(std::move(input)), state_(d_->initial_state_) {}
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
      absl::Status s = CallOn(*d_, *d_->f_, ctx, args, d_->captured_, &results);
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

class ScanDatasetOp : public FunctionsDatasetOp {
 public:
  explicit ScanDatasetOp(OpKernelConstruction* ctx) : FunctionsDatasetOp(ctx) {
    if (!ctx->status().ok()) return;
    f_ = Function(ctx, "f");
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
        CapturedInputs(ctx, 1 + n_state, num_inputs()),
        preserve_cardinality_);
  }
  std::shared_ptr<const DatasetFunction> f_;
  std::vector<DataType> state_types_;
  bool preserve_cardinality_ = false;
};

// ---- WindowDataset.

class WindowDatasetImpl : public Dataset {
 public:
  WindowDatasetImpl(Info info, DatasetPtr input, int64_t size, int64_t shift,
                    int64_t stride, bool drop_remainder)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        size_(size),
        shift_(shift),
        stride_(stride),
        drop_remainder_(drop_remainder) {}

  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n == kInfiniteCardinality || n == kUnknownCardinality) return n;
    if (drop_remainder_) {
      const int64_t rest = n - ((size_ - 1) * stride_ + 1);
      return rest < 0 ? 0 : rest / shift_ + 1;
    }
    return n / shift_ + (n % shift_ == 0 ? 0 : 1);
  }

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<IteratorPtr> input = input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<WindowDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  // TensorFlow's order: fill a buffer to (size - 1) * stride + 1 elements,
  // the window is every stride-th of them, then drop `shift` elements
  // (reading and dropping input ones where shift exceeds the buffer).
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const WindowDatasetImpl> d, IteratorPtr input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      const size_t target =
          static_cast<size_t>((d_->size_ - 1) * d_->stride_ + 1);
      *end = false;
      if (input_ == nullptr && buffer_.empty()) {
        *end = true;
        return absl::OkStatus();
      }
      while (input_ != nullptr && buffer_.size() < target) {
        Element element;
        bool input_end = false;
        if (absl::Status s = input_->GetNext(ctx, &element, &input_end);
            !s.ok()) {
          return s;
        }
        if (input_end) {
          input_.reset();
        } else {
          buffer_.push_back(std::move(element));
        }
      }
      if (buffer_.empty() || (d_->drop_remainder_ && buffer_.size() < target)) {
        *end = true;
        return absl::OkStatus();
      }
      const size_t count = 1 + (buffer_.size() - 1) / d_->stride_;
      std::vector<Element> window;
      window.reserve(count);
      for (size_t i = 0; i < count; ++i) {
        window.push_back(buffer_[d_->stride_ * i]);
      }
      const size_t shift = static_cast<size_t>(d_->shift_);
      if (shift >= buffer_.size()) {
        for (size_t i = buffer_.size(); input_ != nullptr && i < shift; ++i) {
          Element dropped;
          bool input_end = false;
          // TensorFlow ignores what dropped elements' computation says.
          (void)input_->GetNext(ctx, &dropped, &input_end);
          if (input_end) input_.reset();
        }
        buffer_.clear();
      } else {
        buffer_.erase(buffer_.begin(), buffer_.begin() + shift);
      }
      const std::vector<DataType>& types = d_->input_->types();
      const std::vector<TensorShape>& shapes = d_->input_->shapes();
      out->clear();
      for (size_t c = 0; c < types.size(); ++c) {
        std::vector<Element> component;
        component.reserve(window.size());
        for (const Element& e : window) component.push_back({e[c]});
        out->push_back(DatasetTensor(std::make_shared<ElementsDataset>(
            Info{d_->node(), d_->op(), {types[c]}, {shapes[c]}},
            std::move(component))));
      }
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const WindowDatasetImpl> d_;
    IteratorPtr input_;
    std::deque<Element> buffer_;
  };

  const DatasetPtr input_;
  const int64_t size_, shift_, stride_;
  const bool drop_remainder_;
};

class WindowDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    int64_t values[3];
    const char* names[3] = {"size", "shift", "stride"};
    const char* says[3] = {"Window size", "Window shift", "Window stride"};
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<int64_t> v = Int64Input(ctx, 1 + i, names[i]);
      if (!v.ok()) return v.status();
      if (*v <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            says[i], " must be greater than zero, but got ", *v, "."));
      }
      values[i] = *v;
    }
    absl::StatusOr<bool> drop = BoolInput(ctx, 4, "drop_remainder");
    if (!drop.ok()) return drop.status();
    if (types().size() != (*input)->types().size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output_types has ", types().size(), " components, the input ",
          (*input)->types().size()));
    }
    return std::make_shared<WindowDatasetImpl>(info(), *std::move(input),
                                               values[0], values[1], values[2],
                                               *drop);
  }
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
    if (types[0] != DT_INT32 && types[0] != DT_INT64 &&
        types[0] != DT_STRING) {
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
    return std::make_shared<IgnoreErrorsDatasetImpl>(info(),
                                                     *std::move(input));
  }
};

// ---- RandomDataset: TensorFlow's stream, the 32-bit words of
// PhiloxRandom(seed, seed2) one by one (a SingleSampleAdapter), each an
// int64 scalar.

class RandomDatasetImpl : public Dataset {
 public:
  RandomDatasetImpl(Info info, uint64_t seed, uint64_t seed2)
      : Dataset(std::move(info)), seed_(seed), seed2_(seed2) {}
  int64_t Cardinality() const override { return kInfiniteCardinality; }
  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(PhiloxRandom(seed_, seed2_));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(PhiloxRandom gen) : gen_(gen) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (used_ == PhiloxRandom::kResultElementCount) {
        block_ = gen_();
        used_ = 0;
      }
      absl::StatusOr<Tensor> t =
          Tensor::Allocate(ctx.allocator(), DT_INT64, TensorShape({}));
      if (!t.ok()) return t.status();
      *t->data<int64_t>() = static_cast<int64_t>(block_[used_++]);
      out->assign(1, *std::move(t));
      *end = false;
      return absl::OkStatus();
    }

   private:
    PhiloxRandom gen_;
    PhiloxRandom::Block block_{};
    int used_ = PhiloxRandom::kResultElementCount;
  };
  const uint64_t seed_, seed2_;
};

class RandomDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<int64_t> seed = Int64Input(ctx, 0, "seed");
    if (!seed.ok()) return seed.status();
    absl::StatusOr<int64_t> seed2 = Int64Input(ctx, 1, "seed2");
    if (!seed2.ok()) return seed2.status();
    uint64_t s = static_cast<uint64_t>(*seed);
    uint64_t s2 = static_cast<uint64_t>(*seed2);
    if ((s | s2) == 0) {  // TensorFlow's RandomSeeds: both zero, random
      s = NondeterministicSeed();
      s2 = NondeterministicSeed();
    }
    return std::make_shared<RandomDatasetImpl>(info(), s, s2);
  }
};

// ---- DirectedInterleaveDataset.

class DirectedInterleaveDatasetImpl : public Dataset {
 public:
  DirectedInterleaveDatasetImpl(Info info, DatasetPtr selector,
                                std::vector<DatasetPtr> inputs,
                                bool stop_on_empty)
      : Dataset(std::move(info)),
        selector_(std::move(selector)),
        inputs_(std::move(inputs)),
        stop_on_empty_(stop_on_empty) {}

  int64_t Cardinality() const override {
    for (const DatasetPtr& input : inputs_) {
      if (input->Cardinality() == kInfiniteCardinality) {
        return kInfiniteCardinality;
      }
    }
    return kUnknownCardinality;
  }

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<IteratorPtr> selector = selector_->MakeIterator(ctx);
    if (!selector.ok()) return selector.status();
    std::vector<IteratorPtr> inputs;
    for (const DatasetPtr& input : inputs_) {
      absl::StatusOr<IteratorPtr> it = input->MakeIterator(ctx);
      if (!it.ok()) return it.status();
      inputs.push_back(*std::move(it));
    }
    return std::make_unique<Iterator>(Self<DirectedInterleaveDatasetImpl>(),
                                      *std::move(selector), std::move(inputs));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const DirectedInterleaveDatasetImpl> d,
             IteratorPtr selector, std::vector<IteratorPtr> inputs)
        : d_(std::move(d)),
          selector_(std::move(selector)),
          inputs_(std::move(inputs)),
          active_(inputs_.size()) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      while (selector_ != nullptr) {
        Element chosen;
        if (absl::Status s = selector_->GetNext(ctx, &chosen, end); !s.ok()) {
          return s;
        }
        if (*end) {
          selector_.reset();
          break;
        }
        if (chosen.size() != 1 || chosen[0].dtype() != DT_INT64 ||
            chosen[0].NumElements() != 1) {
          return DatasetError(*d_, absl::InvalidArgumentError(
                                       "The selector must give int64 "
                                       "scalars."));
        }
        const int64_t index = *chosen[0].data<int64_t>();
        if (index < 0 || index >= static_cast<int64_t>(inputs_.size())) {
          return DatasetError(
              *d_, absl::InvalidArgumentError(
                       absl::StrCat("Selector index out of range: ", index,
                                    " >= ", inputs_.size())));
        }
        IteratorPtr& input = inputs_[index];
        if (input == nullptr) continue;  // an exhausted input: skipped
        bool input_end = false;
        if (absl::Status s = input->GetNext(ctx, out, &input_end); !s.ok()) {
          return s;
        }
        if (!input_end) {
          *end = false;
          return absl::OkStatus();
        }
        input.reset();
        if (--active_ == 0 || d_->stop_on_empty_) {
          selector_.reset();
          break;
        }
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const DirectedInterleaveDatasetImpl> d_;
    IteratorPtr selector_;
    std::vector<IteratorPtr> inputs_;
    size_t active_;
  };

  const DatasetPtr selector_;
  const std::vector<DatasetPtr> inputs_;
  const bool stop_on_empty_;
};

class DirectedInterleaveDatasetOp : public DatasetOpKernel {
 public:
  explicit DirectedInterleaveDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ctx->GetAttr("stop_on_empty_dataset", &stop_on_empty_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> selector =
        DatasetInput(ctx, 0, "selector_input_dataset");
    if (!selector.ok()) return selector.status();
    if ((*selector)->types().size() != 1 ||
        (*selector)->types()[0] != DT_INT64) {
      return absl::InvalidArgumentError(
          "The selector input must be a dataset of int64 scalars.");
    }
    std::vector<DatasetPtr> inputs;
    for (int i = 1; i < num_inputs(); ++i) {
      absl::StatusOr<DatasetPtr> input =
          DatasetInput(ctx, i, "data_input_datasets");
      if (!input.ok()) return input.status();
      if (absl::Status s = CheckSpec(**input, types(), shapes(), name());
          !s.ok()) {
        return s;
      }
      inputs.push_back(*std::move(input));
    }
    return std::make_shared<DirectedInterleaveDatasetImpl>(
        info(), *std::move(selector), std::move(inputs), stop_on_empty_);
  }
  bool stop_on_empty_ = false;
};

class RewriteDatasetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    OP_REQUIRES_OK(ctx, input.status());
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

// ---- GroupByWindowDataset.

class GroupByWindowDatasetImpl : public Dataset {
 public:
  struct Functions {
    std::shared_ptr<const DatasetFunction> key, reduce, window_size;
    std::vector<TensorValue> key_captured, reduce_captured,
        window_size_captured;
  };
  GroupByWindowDatasetImpl(Info info, DatasetPtr input, Functions f)
      : Dataset(std::move(info)), input_(std::move(input)), f_(std::move(f)) {}

  absl::StatusOr<IteratorPtr> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<IteratorPtr> input = input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<GroupByWindowDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const GroupByWindowDatasetImpl> d,
             IteratorPtr input)
        : d_(std::move(d)), input_(std::move(input)) {}

    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      do {
        if (current_ != nullptr) {
          bool group_end = false;
          if (absl::Status s = current_->GetNext(ctx, out, &group_end);
              !s.ok()) {
            return s;
          }
          if (!group_end) {
            *end = false;
            return absl::OkStatus();
          }
          current_.reset();
        }
        while (!end_of_input_) {
          Element element;
          if (absl::Status s = input_->GetNext(ctx, &element, &end_of_input_);
              !s.ok()) {
            return s;
          }
          if (end_of_input_) break;
          std::vector<Tensor> key_out;
          if (absl::Status s = CallOn(*d_, *d_->f_.key, ctx, element,
                                      d_->f_.key_captured, &key_out);
              !s.ok()) {
            return s;
          }
          if (key_out.size() != 1 || key_out[0].dtype() != DT_INT64 ||
              key_out[0].NumElements() != 1) {
            return DatasetError(*d_,
                                absl::InvalidArgumentError(
                                    "`key_func` must return a scalar int64."));
          }
          const int64_t key = *key_out[0].data<int64_t>();
          if (window_sizes_.find(key) == window_sizes_.end()) {
            std::vector<Tensor> size_out;
            if (absl::Status s =
                    CallOn(*d_, *d_->f_.window_size, ctx, {key_out[0]},
                           d_->f_.window_size_captured, &size_out);
                !s.ok()) {
              return s;
            }
            if (size_out.size() != 1 || size_out[0].dtype() != DT_INT64 ||
                size_out[0].NumElements() != 1) {
              return DatasetError(
                  *d_, absl::InvalidArgumentError(
                           "`window_size_func` must return a scalar int64."));
            }
            const int64_t size = *size_out[0].data<int64_t>();
            if (size <= 0) {
              return DatasetError(
                  *d_, absl::InvalidArgumentError(absl::StrCat(
                           "Window size must be greater than zero, but got ",
                           size, ".")));
            }
            window_sizes_[key] = size;
          }
          std::vector<Element>& group = groups_[key];
          group.push_back(std::move(element));
          if (static_cast<int64_t>(group.size()) == window_sizes_[key]) {
            if (absl::Status s = StartFlushing(ctx, key); !s.ok()) return s;
            break;
          }
        }
        if (end_of_input_ && current_ == nullptr && !groups_.empty()) {
          // The input is done: the remaining groups, smallest key first.
          if (absl::Status s = StartFlushing(ctx, groups_.begin()->first);
              !s.ok()) {
            return s;
          }
        }
      } while (current_ != nullptr || !end_of_input_);
      *end = true;
      return absl::OkStatus();
    }

   private:
    absl::Status StartFlushing(const DatasetContext& ctx, int64_t key) {
      std::vector<Element> group = std::move(groups_[key]);
      groups_.erase(key);
      const Dataset& input = *d_->input_;
      Element args = {Tensor::Scalar<int64_t>(key),
                      DatasetTensor(std::make_shared<ElementsDataset>(
                          Info{d_->node(), d_->op(), input.types(),
                               input.shapes()},
                          std::move(group)))};
      std::vector<Tensor> results;
      if (absl::Status s = CallOn(*d_, *d_->f_.reduce, ctx, args,
                                  d_->f_.reduce_captured, &results);
          !s.ok()) {
        return s;
      }
      if (results.size() != 1 || results[0].dtype() != DT_VARIANT ||
          results[0].shape().rank() != 0) {
        return DatasetError(*d_, absl::InvalidArgumentError(
                                     "`reduce_func` must return a single "
                                     "scalar of dtype DT_VARIANT."));
      }
      absl::StatusOr<DatasetPtr> inner = DatasetOfTensor(
          results[0],
          absl::StrCat("the result of function '", d_->f_.reduce->name(), "'"));
      if (!inner.ok()) return DatasetError(*d_, inner.status());
      if (absl::Status s =
              CheckSpec(**inner, d_->types(), d_->shapes(), d_->Label());
          !s.ok()) {
        return s;
      }
      absl::StatusOr<IteratorPtr> it = (*inner)->MakeIterator(ctx);
      if (!it.ok()) return it.status();
      current_ = *std::move(it);
      return absl::OkStatus();
    }

    const std::shared_ptr<const GroupByWindowDatasetImpl> d_;
    const IteratorPtr input_;
    bool end_of_input_ = false;
    std::map<int64_t, std::vector<Element>> groups_;
    std::map<int64_t, int64_t> window_sizes_;
    IteratorPtr current_;
  };

  const DatasetPtr input_;
  const Functions f_;
};

class GroupByWindowDatasetOp : public FunctionsDatasetOp {
 public:
  explicit GroupByWindowDatasetOp(OpKernelConstruction* ctx)
      : FunctionsDatasetOp(ctx) {
    if (!ctx->status().ok()) return;
    key_ = Function(ctx, "key_func");
    reduce_ = Function(ctx, "reduce_func");
    window_size_ = Function(ctx, "window_size_func");
    n_key_ = ListAttrSize(ctx, "Tkey_func_other_arguments");
    n_reduce_ = ListAttrSize(ctx, "Treduce_func_other_arguments");
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    GroupByWindowDatasetImpl::Functions f;
    f.key = key_;
    f.reduce = reduce_;
    f.window_size = window_size_;
    const int begin = 1, reduce_begin = begin + n_key_,
              size_begin = reduce_begin + n_reduce_;
    f.key_captured = CapturedInputs(ctx, begin, reduce_begin);
    f.reduce_captured = CapturedInputs(ctx, reduce_begin, size_begin);
    f.window_size_captured = CapturedInputs(ctx, size_begin, num_inputs());
    return std::make_shared<GroupByWindowDatasetImpl>(
        info(), *std::move(input), std::move(f));
  }
  std::shared_ptr<const DatasetFunction> key_, reduce_, window_size_;
  int n_key_ = 0, n_reduce_ = 0;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ShardDataset").Device(kDeviceCpu),
                      ShardDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TakeWhileDataset").Device(kDeviceCpu),
                      TakeWhileDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ScanDataset").Device(kDeviceCpu),
                      ScanDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("WindowDataset").Device(kDeviceCpu),
                      WindowDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UniqueDataset").Device(kDeviceCpu),
                      UniqueDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("IgnoreErrorsDataset").Device(kDeviceCpu),
    IgnoreErrorsDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomDataset").Device(kDeviceCpu),
                      RandomDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("DirectedInterleaveDataset").Device(kDeviceCpu),
    DirectedInterleaveDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RewriteDataset").Device(kDeviceCpu),
                      RewriteDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("GroupByWindowDataset").Device(kDeviceCpu),
    GroupByWindowDatasetOp);

}  // namespace
}  // namespace dflow
