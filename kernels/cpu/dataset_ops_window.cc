// tf.data's windows and groups, with TensorFlow's elements and order:
// WindowDataset (each window a dataset of its own, one per component) and
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
#include "kernels/cpu/dataset_ops_more.h"
#include "kernels/cpu/random_ops_philox.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using dataset_more::ElementsDataset;
using dataset_more::IteratorPtr;
using dataset_more::ListAttrSize;

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
      return absl::InvalidArgumentError(
          absl::StrCat("output_types has ", types().size(),
                       " components, the input ", (*input)->types().size()));
    }
    return std::make_shared<WindowDatasetImpl>(
        info(), *std::move(input), values[0], values[1], values[2], *drop);
  }
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
          if (absl::Status s =
                  CallDatasetFunction(*d_, *d_->f_.key, ctx, element,
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
            if (absl::Status s = CallDatasetFunction(
                    *d_, *d_->f_.window_size, ctx, {key_out[0]},
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
      Element args = {
          Tensor::Scalar<int64_t>(key),
          DatasetTensor(std::make_shared<ElementsDataset>(
              Info{d_->node(), d_->op(), input.types(), input.shapes()},
              std::move(group)))};
      std::vector<Tensor> results;
      if (absl::Status s = CallDatasetFunction(
              *d_, *d_->f_.reduce, ctx, args, d_->f_.reduce_captured, &results);
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

class GroupByWindowDatasetOp : public DatasetOpKernel {
 public:
  explicit GroupByWindowDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    key_ = DatasetFunctionAttr(ctx, "key_func");
    reduce_ = DatasetFunctionAttr(ctx, "reduce_func");
    window_size_ = DatasetFunctionAttr(ctx, "window_size_func");
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
    return std::make_shared<GroupByWindowDatasetImpl>(info(), *std::move(input),
                                                      std::move(f));
  }
  std::shared_ptr<const DatasetFunction> key_, reduce_, window_size_;
  int n_key_ = 0, n_reduce_ = 0;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("WindowDataset").Device(kDeviceCpu),
                      WindowDatasetOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("GroupByWindowDataset").Device(kDeviceCpu),
    GroupByWindowDatasetOp);

}  // namespace
}  // namespace dflow
