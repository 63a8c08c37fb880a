// Sampling from several datasets, with TensorFlow's elements and order:
// DirectedInterleaveDataset with RandomDataset (sample_from_datasets /
// choose_from_datasets; RewriteDataset, which choose_from_datasets writes,
// passes its input through).
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
#include "kernels/cpu/dataset_ops_more.h"
#include "kernels/cpu/random_ops_philox.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using dataset_more::ElementsDataset;
using dataset_more::IteratorPtr;
using dataset_more::ListAttrSize;

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


DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomDataset").Device(kDeviceCpu),
                      RandomDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("DirectedInterleaveDataset").Device(kDeviceCpu),
    DirectedInterleaveDatasetOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RewriteDataset").Device(kDeviceCpu),
                      RewriteDatasetOp);

}  // namespace
}  // namespace dflow
