// tf.data's datasets as dflow runs them (the ops of graph/ops/dataset_ops.h).
//
// A dataset op outputs a DT_VARIANT scalar holding a Dataset: an immutable
// description of a sequence of elements (tuples of tensors, one per
// component, of the dtypes and shapes the op's output_types and
// output_shapes attrs declare). Immutable, so one dataset tensor may feed
// any number of iterators and consumers, and a dataset made once (a
// one-shot iterator's) outlives the step and plan that made it. Reading is
// done by a DatasetIterator, which MakeIterator creates at the beginning of
// the sequence and which holds every piece of state (file positions,
// shuffle buffers, the seeds of an epoch); an iterator keeps its dataset
// (and so the inputs it holds) alive.
//
// Iterators compute on the thread that asks for the next element (the
// IteratorGetNext kernel's): map functions run one element after the other
// and prefetching computes nothing ahead, so elements come out in
// TensorFlow's deterministic order with the same values, whatever
// num_parallel_calls says.
#ifndef DFLOW_KERNELS_CPU_DATASET_OPS_H_
#define DFLOW_KERNELS_CPU_DATASET_OPS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "graph/variant.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {

// DatasetCardinality's answers besides a count.
inline constexpr int64_t kInfiniteCardinality = -1;
inline constexpr int64_t kUnknownCardinality = -2;

// What iterators need from the step that asks them for elements: the
// device whose memory and functions they use, and the session's variables
// (resources a map function captured).
struct DatasetContext {
  Device* device = nullptr;
  VariableStore* variables = nullptr;
  int64_t step_id = 0;

  static DatasetContext Of(OpKernelContext* ctx) {
    return {ctx->device(), ctx->variables(), ctx->step_id()};
  }
  // Where elements are allocated (the device's allocator, so a session's
  // memory figures count them).
  Allocator* allocator() const;
};

// One element: a tensor per component.
using Element = std::vector<Tensor>;

class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element into `*out` and *end = false, or *end = true after the
  // last (and on every later call). One caller at a time (the iterator
  // resource serializes its readers).
  virtual absl::Status GetNext(const DatasetContext& ctx, Element* out,
                               bool* end) = 0;
};

class Dataset : public VariantValue,
                public std::enable_shared_from_this<Dataset> {
 public:
  // Who made the dataset (for errors) and what its elements are.
  struct Info {
    std::string node;
    std::string op;
    std::vector<DataType> types;
    std::vector<TensorShape> shapes;
  };
  explicit Dataset(Info info) : info_(std::move(info)) {}

  const std::string& node() const { return info_.node; }
  const std::string& op() const { return info_.op; }
  const std::vector<DataType>& types() const { return info_.types; }
  const std::vector<TensorShape>& shapes() const { return info_.shapes; }
  // "MapDataset 'train/MapDataset'", the start of this dataset's errors.
  std::string Label() const;

  // An iterator at the beginning of the sequence.
  virtual absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator(
      const DatasetContext& ctx) const = 0;
  // The number of elements when known without reading them, else
  // kInfiniteCardinality or kUnknownCardinality (TensorFlow's rules).
  virtual int64_t Cardinality() const { return kUnknownCardinality; }

  std::string TypeName() const override { return "Dataset"; }
  std::string DebugString() const override { return Label(); }

 protected:
  // This dataset as its iterators hold it.
  template <typename D>
  std::shared_ptr<const D> Self() const {
    return std::static_pointer_cast<const D>(shared_from_this());
  }

 private:
  const Info info_;
};
using DatasetPtr = std::shared_ptr<const Dataset>;

// `error` (same code) prefixed with the dataset's label. Datasets add it
// where an error starts (a function they call, a file they read, an
// element they refuse), not as it passes through the datasets above, so
// the message names the dataset where it happened.
absl::Status DatasetError(const Dataset& dataset, const absl::Status& error);

// A kernel that makes a dataset: reads the element attrs (output_types or
// Toutput_types, and output_shapes, where the op has them) once, then
// each run MakeDataset's result becomes output 0.
class DatasetOpKernel : public OpKernel {
 public:
  explicit DatasetOpKernel(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) final;
  bool IsExpensive() const override { return false; }

 protected:
  virtual absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) = 0;
  // This node, its op and its element attrs.
  Dataset::Info info() const;
  // Element attrs given here (ops without them: sources of strings).
  void set_element(std::vector<DataType> types,
                   std::vector<TensorShape> shapes) {
    types_ = std::move(types);
    shapes_ = std::move(shapes);
  }
  const std::vector<DataType>& types() const { return types_; }
  const std::vector<TensorShape>& shapes() const { return shapes_; }

 private:
  std::vector<DataType> types_;
  std::vector<TensorShape> shapes_;
};

// Batches of `batch_size` elements of `input` (BatchDatasetV2's dataset,
// which MapAndBatchDataset builds on); drop_remainder drops a short last
// batch.
DatasetPtr NewBatchDataset(Dataset::Info info, DatasetPtr input,
                           int64_t batch_size, bool drop_remainder);

// The store key of a resource made afresh on every run (TensorFlow's
// anonymous resources: AnonymousIteratorV2, AnonymousSeedGenerator,
// AnonymousMemoryCache): unique in the process.
std::string AnonymousResourceKey(OpKernelContext* ctx);

// ---- Reading inputs. Errors name the input.

// Input i as a dataset (a variant scalar made by a dataset op).
absl::StatusOr<DatasetPtr> DatasetInput(OpKernelContext* ctx, int i,
                                        absl::string_view name);
absl::StatusOr<int64_t> Int64Input(OpKernelContext* ctx, int i,
                                   absl::string_view name);
absl::StatusOr<bool> BoolInput(OpKernelContext* ctx, int i,
                               absl::string_view name);
absl::StatusOr<std::string> StringInput(OpKernelContext* ctx, int i,
                                        absl::string_view name);
// A variant scalar holding `dataset`.
Tensor DatasetTensor(DatasetPtr dataset);
// The dataset a variant tensor holds (a function's return value), or an
// InvalidArgument error saying what it holds instead.
absl::StatusOr<DatasetPtr> DatasetOfTensor(const Tensor& t,
                                           absl::string_view what);

// ---- Elements.

// Whether `element` has `types` and shapes compatible with `shapes`; the
// error says which component differs and starts with `label`.
absl::Status CheckElement(const Element& element,
                          const std::vector<DataType>& types,
                          const std::vector<TensorShape>& shapes,
                          absl::string_view label);
// Whether the dataset's elements are what a consumer declared (same
// dtypes, compatible shapes).
absl::Status CheckSpec(const Dataset& dataset,
                       const std::vector<DataType>& types,
                       const std::vector<TensorShape>& shapes,
                       absl::string_view consumer);
// Row `row` of `t` (along its 0th dimension) as a tensor of its own.
absl::StatusOr<Tensor> CopyRow(const Tensor& t, int64_t row,
                               Allocator* allocator);
// Copies `src` (every element) into row `row` of `dst`, whose rows have
// src's element count and dtype.
void CopyIntoRow(const Tensor& src, int64_t row, Tensor* dst);
// Copies n elements of src from src_offset to dst at dst_offset (offsets
// in elements; same dtype).
void CopyTensorElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                        int64_t dst_offset, int64_t n);
// A tensor of `shape` filled with the scalar `value` (padding).
absl::StatusOr<Tensor> FilledTensor(const Tensor& value,
                                    const TensorShape& shape,
                                    Allocator* allocator);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATASET_OPS_H_
