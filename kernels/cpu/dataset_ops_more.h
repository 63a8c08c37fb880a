// What the kernels of tf.data's further transformations share
// (dataset_ops_more.cc, dataset_ops_window.cc, dataset_ops_sampling.cc):
// the size of a list(type) attr, the dataset of given elements that window()
// and group_by_window() hand on.
#ifndef DFLOW_KERNELS_CPU_DATASET_OPS_MORE_H_
#define DFLOW_KERNELS_CPU_DATASET_OPS_MORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/dataset_ops.h"
#include "kernels/cpu/dataset_ops_function.h"

namespace dflow {
namespace dataset_more {

using IteratorPtr = std::unique_ptr<DatasetIterator>;

// The number of entries of a list(type) attr (the inputs it types).
inline int ListAttrSize(OpKernelConstruction* ctx, const char* attr) {
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

}  // namespace dataset_more
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATASET_OPS_MORE_H_
