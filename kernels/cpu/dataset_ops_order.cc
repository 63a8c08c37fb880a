// Datasets that reorder, cut or join others without computing on elements:
// RepeatDataset, TakeDataset, SkipDataset, ZipDataset, ConcatenateDataset,
// CacheDataset(V2) in memory (with its memory cache resources),
// PrefetchDataset and the ops TensorFlow inserts on its own (options,
// optimizations, autotuning, thread pools), which pass their input
// through, and DatasetCardinality.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/dataset_ops.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

// count -1: forever.
class RepeatDatasetImpl : public Dataset {
 public:
  RepeatDatasetImpl(Info info, DatasetPtr input, int64_t count)
      : Dataset(std::move(info)), input_(std::move(input)), count_(count) {}

  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (count_ < 0) return n == 0 ? 0 : kInfiniteCardinality;
    if (count_ == 0) return 0;
    if (n == kInfiniteCardinality || n == kUnknownCardinality) return n;
    return n * count_;
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<RepeatDatasetImpl>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const RepeatDatasetImpl> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      while (true) {
        if (input_ == nullptr) {
          if (d_->count_ >= 0 && epoch_ >= d_->count_) {
            *end = true;
            return absl::OkStatus();
          }
          absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
              d_->input_->MakeIterator(ctx);
          if (!input.ok()) return input.status();
          input_ = *std::move(input);
          epoch_produced_ = false;
        }
        bool input_end = false;
        if (absl::Status s = input_->GetNext(ctx, out, &input_end); !s.ok()) {
          return s;
        }
        if (!input_end) {
          epoch_produced_ = true;
          *end = false;
          return absl::OkStatus();
        }
        input_.reset();
        ++epoch_;
        // Repeating an empty input forever would never produce an element.
        if (d_->count_ < 0 && !epoch_produced_) {
          *end = true;
          return absl::OkStatus();
        }
      }
    }

   private:
    const std::shared_ptr<const RepeatDatasetImpl> d_;
    std::unique_ptr<DatasetIterator> input_;
    int64_t epoch_ = 0;
    bool epoch_produced_ = false;
  };

  const DatasetPtr input_;
  const int64_t count_;
};

// TakeDataset (skip = false) and SkipDataset (skip = true).
class TakeSkipDatasetImpl : public Dataset {
 public:
  TakeSkipDatasetImpl(Info info, DatasetPtr input, int64_t count, bool skip)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        count_(count),
        skip_(skip) {}

  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n == kUnknownCardinality) return n;
    if (skip_) {
      if (n == kInfiniteCardinality) return n;
      return count_ < 0 ? 0 : std::max<int64_t>(0, n - count_);
    }
    if (count_ < 0) return n;
    if (n == kInfiniteCardinality) return count_;
    return std::min(n, count_);
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
        input_->MakeIterator(ctx);
    if (!input.ok()) return input.status();
    return std::make_unique<Iterator>(Self<TakeSkipDatasetImpl>(),
                                      *std::move(input));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const TakeSkipDatasetImpl> d,
             std::unique_ptr<DatasetIterator> input)
        : d_(std::move(d)), input_(std::move(input)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (input_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      const int64_t count = d_->count_;
      if (d_->skip_) {
        // count -1 skips everything.
        while (count < 0 || seen_ < count) {
          Element skipped;
          if (absl::Status s = input_->GetNext(ctx, &skipped, end);
              !s.ok() || *end) {
            if (*end) input_.reset();
            return s;
          }
          ++seen_;
        }
      } else if (count >= 0 && seen_ >= count) {
        input_.reset();
        *end = true;
        return absl::OkStatus();
      }
      if (absl::Status s = input_->GetNext(ctx, out, end); !s.ok() || *end) {
        if (*end) input_.reset();
        return s;
      }
      if (!d_->skip_) ++seen_;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const TakeSkipDatasetImpl> d_;
    std::unique_ptr<DatasetIterator> input_;
    int64_t seen_ = 0;
  };

  const DatasetPtr input_;
  const int64_t count_;
  const bool skip_;
};

class CountDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    absl::StatusOr<int64_t> count = Int64Input(ctx, 1, "count");
    if (!count.ok()) return count.status();
    if (type_string() == "RepeatDataset") {
      return std::make_shared<RepeatDatasetImpl>(info(), *std::move(input),
                                                 *count);
    }
    return std::make_shared<TakeSkipDatasetImpl>(
        info(), *std::move(input), *count, type_string() == "SkipDataset");
  }
};

// ---- ZipDataset and ConcatenateDataset.

class ZipDatasetImpl : public Dataset {
 public:
  ZipDatasetImpl(Info info, std::vector<DatasetPtr> inputs)
      : Dataset(std::move(info)), inputs_(std::move(inputs)) {}

  int64_t Cardinality() const override {
    int64_t result = kInfiniteCardinality;
    for (const DatasetPtr& input : inputs_) {
      const int64_t n = input->Cardinality();
      if (n == kUnknownCardinality) return n;
      if (n != kInfiniteCardinality) {
        result = result == kInfiniteCardinality ? n : std::min(result, n);
      }
    }
    return result;
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    std::vector<std::unique_ptr<DatasetIterator>> inputs;
    for (const DatasetPtr& input : inputs_) {
      absl::StatusOr<std::unique_ptr<DatasetIterator>> it =
          input->MakeIterator(ctx);
      if (!it.ok()) return it.status();
      inputs.push_back(*std::move(it));
    }
    return std::make_unique<Iterator>(std::move(inputs));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::vector<std::unique_ptr<DatasetIterator>> inputs)
        : inputs_(std::move(inputs)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (ended_) {
        *end = true;
        return absl::OkStatus();
      }
      Element zipped;
      for (auto& input : inputs_) {
        Element element;
        if (absl::Status s = input->GetNext(ctx, &element, end); !s.ok()) {
          return s;
        }
        if (*end) {
          // The shortest input ends the zip (the others are not read on).
          ended_ = true;
          inputs_.clear();
          return absl::OkStatus();
        }
        for (Tensor& t : element) zipped.push_back(std::move(t));
      }
      *out = std::move(zipped);
      *end = false;
      return absl::OkStatus();
    }

   private:
    std::vector<std::unique_ptr<DatasetIterator>> inputs_;
    bool ended_ = false;
  };

  const std::vector<DatasetPtr> inputs_;
};

class ZipDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::vector<DatasetPtr> inputs;
    std::vector<DataType> types;
    for (int i = 0; i < num_inputs(); ++i) {
      absl::StatusOr<DatasetPtr> input =
          DatasetInput(ctx, i, absl::StrCat("input_datasets[", i, "]"));
      if (!input.ok()) return input.status();
      types.insert(types.end(), (*input)->types().begin(),
                   (*input)->types().end());
      inputs.push_back(*std::move(input));
    }
    if (types != this->types()) {
      return absl::InvalidArgumentError(
          "the inputs' components do not match output_types");
    }
    return std::make_shared<ZipDatasetImpl>(info(), std::move(inputs));
  }
};

class ConcatenateDatasetImpl : public Dataset {
 public:
  ConcatenateDatasetImpl(Info info, DatasetPtr first, DatasetPtr second)
      : Dataset(std::move(info)),
        first_(std::move(first)),
        second_(std::move(second)) {}

  int64_t Cardinality() const override {
    const int64_t a = first_->Cardinality(), b = second_->Cardinality();
    if (a == kUnknownCardinality || b == kUnknownCardinality) {
      return kUnknownCardinality;
    }
    if (a == kInfiniteCardinality || b == kInfiniteCardinality) {
      return kInfiniteCardinality;
    }
    return a + b;
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const override {
    absl::StatusOr<std::unique_ptr<DatasetIterator>> first =
        first_->MakeIterator(ctx);
    if (!first.ok()) return first.status();
    return std::make_unique<Iterator>(Self<ConcatenateDatasetImpl>(),
                                      *std::move(first));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const ConcatenateDatasetImpl> d,
             std::unique_ptr<DatasetIterator> first)
        : d_(std::move(d)), input_(std::move(first)) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      while (input_ != nullptr) {
        if (absl::Status s = input_->GetNext(ctx, out, end); !s.ok()) return s;
        if (!*end) return absl::OkStatus();
        input_.reset();
        if (on_second_) break;
        on_second_ = true;
        absl::StatusOr<std::unique_ptr<DatasetIterator>> second =
            d_->second_->MakeIterator(ctx);
        if (!second.ok()) return second.status();
        input_ = *std::move(second);
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ConcatenateDatasetImpl> d_;
    std::unique_ptr<DatasetIterator> input_;
    bool on_second_ = false;
  };

  const DatasetPtr first_, second_;
};

class ConcatenateDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> first = DatasetInput(ctx, 0, "input_dataset");
    if (!first.ok()) return first.status();
    absl::StatusOr<DatasetPtr> second = DatasetInput(ctx, 1, "another_dataset");
    if (!second.ok()) return second.status();
    if ((*first)->types() != (*second)->types()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input dataset and dataset to be concatenated have different "
          "types: ",
          (*first)->Label(), " and ", (*second)->Label()));
    }
    return std::make_shared<ConcatenateDatasetImpl>(info(), *std::move(first),
                                                    *std::move(second));
  }
};

// ---- CacheDataset in memory.

// The elements of one complete pass, kept by the first iterator that
// finished one; later iterators replay them.
class MemoryCache : public ResourceBase {
 public:
  std::string DebugString() const override { return "MemoryCache"; }
  // The cached elements, or null while no pass has completed.
  std::shared_ptr<const std::vector<Element>> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return elements_;
  }
  void Complete(std::vector<Element> elements) {
    std::lock_guard<std::mutex> lock(mu_);
    if (elements_ == nullptr) {
      elements_ =
          std::make_shared<const std::vector<Element>>(std::move(elements));
    }
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    elements_.reset();
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<Element>> elements_;  // mu_
};

// The MemoryCache a CacheDatasetV2's resource holds.
class MemoryCacheResource : public ResourceBase {
 public:
  std::string DebugString() const override { return "MemoryCache"; }
  const std::shared_ptr<MemoryCache> cache = std::make_shared<MemoryCache>();
};

class CacheDatasetImpl : public Dataset {
 public:
  CacheDatasetImpl(Info info, DatasetPtr input,
                   std::shared_ptr<MemoryCache> cache)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        cache_(std::move(cache)) {}

  int64_t Cardinality() const override { return input_->Cardinality(); }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<CacheDatasetImpl>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const CacheDatasetImpl> d)
        : d_(std::move(d)), cached_(d_->cache_->Get()) {}
    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (cached_ != nullptr) {
        *end = next_ >= cached_->size();
        if (!*end) *out = (*cached_)[next_++];
        return absl::OkStatus();
      }
      if (done_) {
        *end = true;
        return absl::OkStatus();
      }
      if (input_ == nullptr) {
        absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
            d_->input_->MakeIterator(ctx);
        if (!input.ok()) return input.status();
        input_ = *std::move(input);
      }
      if (absl::Status s = input_->GetNext(ctx, out, end); !s.ok()) return s;
      if (*end) {
        done_ = true;
        input_.reset();
        d_->cache_->Complete(std::move(written_));
        return absl::OkStatus();
      }
      written_.push_back(*out);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const CacheDatasetImpl> d_;
    const std::shared_ptr<const std::vector<Element>> cached_;
    size_t next_ = 0;
    std::unique_ptr<DatasetIterator> input_;
    std::vector<Element> written_;
    bool done_ = false;
  };

  const DatasetPtr input_;
  const std::shared_ptr<MemoryCache> cache_;
};

class CacheDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    absl::StatusOr<std::string> filename = StringInput(ctx, 1, "filename");
    if (!filename.ok()) return filename.status();
    if (!filename->empty()) {
      return absl::UnimplementedError(
          absl::StrCat("caching to the file '", *filename,
                       "' is not supported: dflow caches in memory only "
                       "(Dataset.cache() without a filename)"));
    }
    std::shared_ptr<MemoryCache> cache;
    if (num_inputs() > 2) {  // CacheDatasetV2's cache resource
      if (auto* r = ResourceOfInput<MemoryCacheResource>(ctx, 2)) {
        cache = r->cache;
      }
    }
    if (cache == nullptr) cache = std::make_shared<MemoryCache>();
    return std::make_shared<CacheDatasetImpl>(info(), *std::move(input),
                                              std::move(cache));
  }
};

class AnonymousMemoryCacheOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<MemoryCacheResource>(
        ctx, AnonymousResourceKey(ctx), "MemoryCache",
        [] { return std::make_unique<MemoryCacheResource>(); });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
    if (num_outputs() > 1) {
      ctx->set_output(1, Tensor(DT_VARIANT, TensorShape({})));
    }
  }
  bool IsExpensive() const override { return false; }
};

// A handle naming no cache: the dataset keeps its own.
class NoCache : public ResourceBase {
 public:
  std::string DebugString() const override { return "dummy memory cache"; }
};

class DummyMemoryCacheOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<NoCache>(
        ctx, "_dflow_dummy_memory_cache", "dummy memory cache",
        [] { return std::make_unique<NoCache>(); });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }
};

class DeleteMemoryCacheOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    if (auto* r = ResourceOfInput<MemoryCacheResource>(ctx, 0)) {
      r->cache->Clear();
    }
  }
  bool IsExpensive() const override { return false; }
};

// ---- Pass-through ops: the input dataset is the output. PrefetchDataset
// is one: elements are computed when asked (dataset_ops.h).
class PassThroughDatasetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    OP_REQUIRES_OK(ctx, input.status());
    if (type_string() == "PrefetchDataset") {
      absl::StatusOr<int64_t> buffer = Int64Input(ctx, 1, "buffer_size");
      OP_REQUIRES_OK(ctx, buffer.status());
      OP_REQUIRES(ctx, *buffer >= -1,
                  absl::InvalidArgumentError(
                      "buffer_size must be >= 0 or set buffer_size to be "
                      "AUTOTUNE."));
    }
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

class DatasetCardinalityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    OP_REQUIRES_OK(ctx, input.status());
    ctx->set_output(0, Tensor::Scalar<int64_t>((*input)->Cardinality()));
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("RepeatDataset").Device(kDeviceCpu),
                      CountDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TakeDataset").Device(kDeviceCpu),
                      CountDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SkipDataset").Device(kDeviceCpu),
                      CountDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ZipDataset").Device(kDeviceCpu),
                      ZipDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ConcatenateDataset").Device(kDeviceCpu),
                      ConcatenateDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CacheDataset").Device(kDeviceCpu),
                      CacheDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CacheDatasetV2").Device(kDeviceCpu),
                      CacheDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("AnonymousMemoryCache").Device(kDeviceCpu),
    AnonymousMemoryCacheOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DummyMemoryCache").Device(kDeviceCpu),
                      DummyMemoryCacheOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DeleteMemoryCache").Device(kDeviceCpu),
                      DeleteMemoryCacheOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DatasetCardinality").Device(kDeviceCpu),
                      DatasetCardinalityOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PrefetchDataset").Device(kDeviceCpu),
                      PassThroughDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("OptimizeDataset").Device(kDeviceCpu),
                      PassThroughDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("OptimizeDatasetV2").Device(kDeviceCpu),
                      PassThroughDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ModelDataset").Device(kDeviceCpu),
                      PassThroughDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("MaxIntraOpParallelismDataset").Device(kDeviceCpu),
    PassThroughDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("PrivateThreadPoolDataset").Device(kDeviceCpu),
    PassThroughDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("OptionsDataset").Device(kDeviceCpu),
                      PassThroughDatasetOp);

}  // namespace
}  // namespace dflow
