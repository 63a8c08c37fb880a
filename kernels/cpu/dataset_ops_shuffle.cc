// Shuffling datasets, with TensorFlow's algorithm and random streams, so a
// seeded shuffle gives TensorFlow's order: ShuffleDataset (what
// `.shuffle(buffer, seed=...)` writes into a tf.compat.v1 graph),
// ShuffleDatasetV2/V3 (seeds from a seed generator resource),
// ShuffleAndRepeatDataset(V2), and the seed generator ops.
//
// TensorFlow's algorithm (tensorflow/core/kernels/data/shuffle_dataset_op.cc,
// random_seed_ops.cc), as learned from its source:
// - A dataset owns a seed generator made from its (seed, seed2); both 0
//   means fresh nondeterministic seeds. With reshuffle_each_iteration it
//   is a RandomSeedGenerator, a Philox stream on (seed, seed2) read one
//   32-bit word at a time: each call hands out the next two words as an
//   epoch's (seed, seed2). Without, a FixedSeedGenerator hands out (seed,
//   seed2) every time. Every iterator the dataset makes asks it once when
//   it starts, so `.shuffle().repeat()` reshuffles each epoch (each repeat
//   is a new iterator) while re-running the graph's ShuffleDataset node (an
//   initializable iterator's initializer) starts again from the same seeds.
// - An iterator keeps a buffer of up to buffer_size elements, filled from
//   the input before each draw. A draw takes position start + (r % n) of
//   the oldest epoch's n buffered elements, r the next 32-bit word of
//   Philox(seed, seed2) of the epoch, and moves the element at `start` into
//   the hole. Epochs (ShuffleAndRepeat's count) are kept apart in slices of
//   the buffer; an epoch's first draw takes new seeds from the generator.
//   The buffer spans at most 3 epochs.
// Kept here as a deque from the oldest buffered position: TensorFlow's ring
// of buffer_size slots moves elements the same way, and memory stays
// proportional to what is buffered however large buffer_size is.
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/dataset_ops.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "kernels/cpu/random_ops_philox.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

// TensorFlow's SingleSampleAdapter<PhiloxRandom>: the stream's words one
// at a time.
class PhiloxWords {
 public:
  PhiloxWords() = default;
  PhiloxWords(int64_t seed, int64_t seed2)
      : rng_(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2)) {}
  uint32_t Next() {
    if (used_ == PhiloxRandom::kResultElementCount) {
      block_ = rng_();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  PhiloxRandom rng_;
  PhiloxRandom::Block block_{};
  int used_ = PhiloxRandom::kResultElementCount;
};

class SeedGenerator {
 public:
  SeedGenerator(int64_t seed, int64_t seed2, bool reshuffle)
      : reshuffle_(reshuffle) {
    if (seed == 0 && seed2 == 0) {
      seed = static_cast<int64_t>(NondeterministicSeed());
      seed2 = static_cast<int64_t>(NondeterministicSeed());
    }
    seed_ = seed;
    seed2_ = seed2;
    words_ = PhiloxWords(seed, seed2);
  }

  // The seeds of the next epoch.
  void GenerateSeeds(int64_t* seed, int64_t* seed2) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reshuffle_) {
      *seed = seed_;
      *seed2 = seed2_;
      return;
    }
    *seed = words_.Next();
    *seed2 = words_.Next();
  }

 private:
  const bool reshuffle_;
  int64_t seed_ = 0, seed2_ = 0;
  std::mutex mu_;
  PhiloxWords words_;  // mu_
};

// AnonymousSeedGenerator's resource (shared by the datasets that use it).
class SeedGeneratorResource : public ResourceBase {
 public:
  explicit SeedGeneratorResource(std::shared_ptr<SeedGenerator> generator)
      : generator_(std::move(generator)) {}
  std::string DebugString() const override { return "SeedGenerator"; }
  std::shared_ptr<SeedGenerator> generator() const {
    std::lock_guard<std::mutex> lock(mu_);
    return generator_;
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    generator_.reset();
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<SeedGenerator> generator_;  // mu_
};

class ShuffleDatasetImpl : public Dataset {
 public:
  ShuffleDatasetImpl(Info info, DatasetPtr input, int64_t buffer_size,
                     int64_t count, std::shared_ptr<SeedGenerator> generator)
      : Dataset(std::move(info)),
        input_(std::move(input)),
        buffer_size_(buffer_size),
        count_(count),
        generator_(std::move(generator)) {}

  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (count_ == -1 || n == kInfiniteCardinality) return kInfiniteCardinality;
    if (n == kUnknownCardinality) return kUnknownCardinality;
    return n * count_;
  }

  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext&) const override {
    return std::make_unique<Iterator>(Self<ShuffleDatasetImpl>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const ShuffleDatasetImpl> d)
        : d_(std::move(d)) {
      NewEpochSeeds();
    }

    absl::Status GetNext(const DatasetContext& ctx, Element* out,
                         bool* end) override {
      if (absl::Status s = FillBuffer(ctx); !s.ok()) return s;
      if (buffer_.empty()) {
        *end = true;
        return absl::OkStatus();
      }
      // The oldest epoch whose elements are still buffered.
      while (slices_.front().start == slices_.front().end) {
        slices_.pop_front();
        NewEpochSeeds();
      }
      Slice& front = slices_.front();
      const int64_t offset = words_.Next() % (front.end - front.start);
      // Positions are absolute; buffer_[0] holds position front.start.
      std::swap(buffer_[offset], buffer_[0]);
      *out = std::move(buffer_.front());
      buffer_.pop_front();
      ++front.start;
      *end = false;
      return absl::OkStatus();
    }

   private:
    struct Slice {
      int64_t start = 0, end = 0;  // absolute positions [start, end)
    };
    static constexpr size_t kMaxEpochsInBuffer = 3;

    void NewEpochSeeds() {
      int64_t seed = 0, seed2 = 0;
      d_->generator_->GenerateSeeds(&seed, &seed2);
      words_ = PhiloxWords(seed, seed2);
    }

    bool ShouldFill() const {
      if (input_ == nullptr && d_->count_ != -1 && epoch_ >= d_->count_) {
        return false;
      }
      if (slices_.size() > kMaxEpochsInBuffer && !buffer_.empty()) {
        return false;
      }
      return static_cast<int64_t>(buffer_.size()) < d_->buffer_size_;
    }

    absl::Status FillBuffer(const DatasetContext& ctx) {
      while (ShouldFill()) {
        if (input_ == nullptr) {
          const int64_t n = slices_.empty() ? 0 : slices_.back().end;
          slices_.push_back({n, n});
          absl::StatusOr<std::unique_ptr<DatasetIterator>> input =
              d_->input_->MakeIterator(ctx);
          if (!input.ok()) return input.status();
          input_ = *std::move(input);
          ++epoch_;
        }
        Element element;
        bool end = false;
        if (absl::Status s = input_->GetNext(ctx, &element, &end); !s.ok()) {
          return s;
        }
        if (!end) {
          buffer_.push_back(std::move(element));
          ++slices_.back().end;
          data_produced_ = true;
          continue;
        }
        input_.reset();
        // An input without elements repeated forever would never produce
        // one: end instead of looping.
        if (!data_produced_ && d_->count_ == -1) return absl::OkStatus();
      }
      return absl::OkStatus();
    }

    const std::shared_ptr<const ShuffleDatasetImpl> d_;
    std::unique_ptr<DatasetIterator> input_;
    std::deque<Element> buffer_;
    std::deque<Slice> slices_;
    int64_t epoch_ = 0;
    bool data_produced_ = false;
    PhiloxWords words_;
  };

  const DatasetPtr input_;
  const int64_t buffer_size_;
  const int64_t count_;
  const std::shared_ptr<SeedGenerator> generator_;
};

// ShuffleDataset (seed, seed2), ShuffleDatasetV2 (seed_generator),
// ShuffleDatasetV3 (seed, seed2, seed_generator), ShuffleAndRepeatDataset
// (seed, seed2, count) and ShuffleAndRepeatDatasetV2 (..., seed_generator).
class ShuffleDatasetOp : public DatasetOpKernel {
 public:
  explicit ShuffleDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx), op_(ctx->node().op()) {
    if (ctx->node().FindAttr("reshuffle_each_iteration") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("reshuffle_each_iteration", &reshuffle_));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> input = DatasetInput(ctx, 0, "input_dataset");
    if (!input.ok()) return input.status();
    absl::StatusOr<int64_t> buffer_size = Int64Input(ctx, 1, "buffer_size");
    if (!buffer_size.ok()) return buffer_size.status();
    if (*buffer_size <= 0) {
      return absl::InvalidArgumentError(
          "buffer_size must be greater than zero.");
    }
    const bool v2 = op_ == "ShuffleDatasetV2";
    int64_t seed = 0, seed2 = 0, count = 1;
    if (!v2) {
      absl::StatusOr<int64_t> s = Int64Input(ctx, 2, "seed");
      if (!s.ok()) return s.status();
      absl::StatusOr<int64_t> s2 = Int64Input(ctx, 3, "seed2");
      if (!s2.ok()) return s2.status();
      seed = *s;
      seed2 = *s2;
    }
    if (op_ == "ShuffleAndRepeatDataset" ||
        op_ == "ShuffleAndRepeatDatasetV2") {
      absl::StatusOr<int64_t> c = Int64Input(ctx, 4, "count");
      if (!c.ok()) return c.status();
      count = *c;
      if (count <= 0 && count != -1) {
        return absl::InvalidArgumentError(
            "count must be greater than zero or equal to -1.");
      }
    }
    // A seed generator resource (the last input of the V2/V3 forms) gives
    // the seeds; a dummy one means the dataset makes its own.
    std::shared_ptr<SeedGenerator> generator;
    const int last = num_inputs() - 1;
    if (input_type(last) == DT_RESOURCE) {
      if (auto* r = ResourceOfInput<SeedGeneratorResource>(ctx, last)) {
        generator = r->generator();
      }
    }
    if (generator == nullptr) {
      // ShuffleDatasetV2 without a generator: TensorFlow falls back to a
      // nondeterministically seeded one that reshuffles.
      generator =
          std::make_shared<SeedGenerator>(seed, seed2, v2 ? true : reshuffle_);
    }
    return std::make_shared<ShuffleDatasetImpl>(
        info(), *std::move(input), *buffer_size, count, std::move(generator));
  }

  const std::string op_;
  bool reshuffle_ = true;
};

class AnonymousSeedGeneratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<int64_t> seed = Int64Input(ctx, 0, "seed");
    OP_REQUIRES_OK(ctx, seed.status());
    absl::StatusOr<int64_t> seed2 = Int64Input(ctx, 1, "seed2");
    OP_REQUIRES_OK(ctx, seed2.status());
    absl::StatusOr<bool> reshuffle = BoolInput(ctx, 2, "reshuffle");
    OP_REQUIRES_OK(ctx, reshuffle.status());
    absl::StatusOr<Var*> var = LookupOrCreateResource<SeedGeneratorResource>(
        ctx, AnonymousResourceKey(ctx), "SeedGenerator", [&] {
          return std::make_unique<SeedGeneratorResource>(
              std::make_shared<SeedGenerator>(*seed, *seed2, *reshuffle));
        });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
    ctx->set_output(1, Tensor(DT_VARIANT, TensorShape({})));
  }
  bool IsExpensive() const override { return false; }
};

// A handle naming no seed generator: the shuffle makes its own.
class NoResource : public ResourceBase {
 public:
  std::string DebugString() const override { return "dummy resource"; }
};

class DummySeedGeneratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<NoResource>(
        ctx, "_dflow_dummy_seed_generator", "dummy resource",
        [] { return std::make_unique<NoResource>(); });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }
};

class DeleteSeedGeneratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    // The store keeps the name; what the generator held goes (datasets
    // that use it keep their share).
    if (auto* r = ResourceOfInput<SeedGeneratorResource>(ctx, 0)) r->Release();
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ShuffleDataset").Device(kDeviceCpu),
                      ShuffleDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ShuffleDatasetV2").Device(kDeviceCpu),
                      ShuffleDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ShuffleDatasetV3").Device(kDeviceCpu),
                      ShuffleDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ShuffleAndRepeatDataset").Device(kDeviceCpu),
    ShuffleDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ShuffleAndRepeatDatasetV2").Device(kDeviceCpu),
    ShuffleDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("AnonymousSeedGenerator").Device(kDeviceCpu),
    AnonymousSeedGeneratorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DummySeedGenerator").Device(kDeviceCpu),
                      DummySeedGeneratorOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("DeleteSeedGenerator").Device(kDeviceCpu),
    DeleteSeedGeneratorOp);

}  // namespace
}  // namespace dflow
