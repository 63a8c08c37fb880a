// Schemas and builders of more of tf.data's transformations, with
// TensorFlow 2.21's OpDefs: shard, take_while, scan, window, unique,
// ignore_errors, sample_from_datasets / choose_from_datasets
// (DirectedInterleaveDataset, RandomDataset, RewriteDataset) and
// group_by_window (GroupByWindowDataset, which bucket_by_sequence_length
// writes too).
#include <string>
#include <vector>

#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/dataset_ops.h"
#include "graph/ops/dataset_util.h"
#include "graph/shape_inference.h"

namespace dflow {

DFLOW_REGISTER_OP("ShardDataset")
    .Input("input_dataset: variant")
    .Input("num_shards: int64")
    .Input("index: int64")
    .Output("handle: variant")
    .Attr("require_non_empty: bool = false")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Every num_shards-th element, from the index-th.");

DFLOW_REGISTER_OP("TakeWhileDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("predicate: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The elements before the first for which predicate is false.");

DFLOW_REGISTER_OP("ScanDataset")
    .Input("input_dataset: variant")
    .Input("initial_state: Tstate")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Tstate: list(type) >= 1")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("preserve_cardinality: bool = false")
    .Attr("use_default_device: bool = true")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("f(state, element) -> (new state, output), element by element.");

DFLOW_REGISTER_OP("WindowDataset")
    .Input("input_dataset: variant")
    .Input("size: int64")
    .Input("shift: int64")
    .Input("stride: int64")
    .Input("drop_remainder: bool")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Windows of the input: per component, a dataset of size elements.");

DFLOW_REGISTER_OP("UniqueDataset")
    .Input("input_dataset: variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Each distinct element once, where it first appears.");

DFLOW_REGISTER_OP("IgnoreErrorsDataset")
    .Input("input_dataset: variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("log_warning: bool = false")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input's elements, skipping those whose computation failed.");

DFLOW_REGISTER_OP("DirectedInterleaveDataset")
    .Input("selector_input_dataset: variant")
    .Input("data_input_datasets: N * variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("N: int >= 1")
    .Attr("stop_on_empty_dataset: bool = false")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The next element of the input the selector names, in turn.");

DFLOW_REGISTER_OP("RandomDataset")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Pseudorandom int64 scalars (Philox words of seed, seed2), forever.");

DFLOW_REGISTER_OP("RewriteDataset")
    .Input("input_dataset: variant")
    .Input("rewrite_name: string")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input (a graph rewrite dflow does not need).");

DFLOW_REGISTER_OP("GroupByWindowDataset")
    .Input("input_dataset: variant")
    .Input("key_func_other_arguments: Tkey_func_other_arguments")
    .Input("reduce_func_other_arguments: Treduce_func_other_arguments")
    .Input(
        "window_size_func_other_arguments: Twindow_size_func_other_arguments")
    .Output("handle: variant")
    .Attr("key_func: func")
    .Attr("reduce_func: func")
    .Attr("window_size_func: func")
    .Attr("Tkey_func_other_arguments: list(type) >= 0")
    .Attr("Treduce_func_other_arguments: list(type) >= 0")
    .Attr("Twindow_size_func_other_arguments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Groups by key_func, each full window through reduce_func.");

namespace ops {

using dataset_builders::FirstOutput;
using dataset_builders::Func;
using dataset_builders::SetSpec;

Output ShardDataset(const Scope& scope, Input dataset, Input num_shards,
                    Input index, const ElementSpec& out) {
  OpBuilder b(scope, "ShardDataset");
  b.Input(dataset).Input(num_shards).Input(index);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output TakeWhileDataset(const Scope& scope, Input dataset,
                        const InputList& captured, absl::string_view predicate,
                        const ElementSpec& out) {
  OpBuilder b(scope, "TakeWhileDataset");
  b.Input(dataset).InputList(captured).Attr("predicate", Func(predicate));
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ScanDataset(const Scope& scope, Input dataset,
                   const InputList& initial_state, const InputList& captured,
                   absl::string_view f, const ElementSpec& out) {
  OpBuilder b(scope, "ScanDataset");
  b.Input(dataset).InputList(initial_state).InputList(captured);
  b.Attr("f", Func(f));
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output WindowDataset(const Scope& scope, Input dataset, Input size,
                     Input shift, Input stride, Input drop_remainder,
                     int num_components) {
  OpBuilder b(scope, "WindowDataset");
  b.Input(dataset).Input(size).Input(shift).Input(stride).Input(
      drop_remainder);
  SetSpec(&b, {std::vector<DataType>(num_components, DT_VARIANT),
               std::vector<TensorShape>(num_components, TensorShape({}))});
  return FirstOutput(b.Finalize());
}

Output UniqueDataset(const Scope& scope, Input dataset,
                     const ElementSpec& out) {
  OpBuilder b(scope, "UniqueDataset");
  b.Input(dataset);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output IgnoreErrorsDataset(const Scope& scope, Input dataset,
                           const ElementSpec& out) {
  OpBuilder b(scope, "IgnoreErrorsDataset");
  b.Input(dataset);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output DirectedInterleaveDataset(const Scope& scope, Input selector,
                                 const InputList& datasets,
                                 bool stop_on_empty_dataset,
                                 const ElementSpec& out) {
  OpBuilder b(scope, "DirectedInterleaveDataset");
  b.Input(selector).InputList(datasets);
  b.Attr("stop_on_empty_dataset", stop_on_empty_dataset);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output RandomDataset(const Scope& scope, Input seed, Input seed2) {
  OpBuilder b(scope, "RandomDataset");
  b.Input(seed).Input(seed2);
  SetSpec(&b, {{DT_INT64}, {TensorShape({})}});
  return FirstOutput(b.Finalize());
}

Output RewriteDataset(const Scope& scope, Input dataset, Input rewrite_name,
                      const ElementSpec& out) {
  OpBuilder b(scope, "RewriteDataset");
  b.Input(dataset).Input(rewrite_name);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output GroupByWindowDataset(const Scope& scope, Input dataset,
                            const InputList& key_captured,
                            const InputList& reduce_captured,
                            const InputList& window_size_captured,
                            absl::string_view key_func,
                            absl::string_view reduce_func,
                            absl::string_view window_size_func,
                            const ElementSpec& out) {
  OpBuilder b(scope, "GroupByWindowDataset");
  b.Input(dataset).InputList(key_captured).InputList(reduce_captured);
  b.InputList(window_size_captured);
  b.Attr("key_func", Func(key_func));
  b.Attr("reduce_func", Func(reduce_func));
  b.Attr("window_size_func", Func(window_size_func));
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

}  // namespace ops
}  // namespace dflow
