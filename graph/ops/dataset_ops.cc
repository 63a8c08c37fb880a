// Schemas and builders of tf.data's source datasets and of the
// transformations that call a function of the graph's library (map,
// filter, flat_map, interleave, reduce), with TensorFlow 2.21's OpDefs
// (core/ops/dataset_ops.cc and experimental_dataset_ops.cc). Every dataset
// op outputs a variant scalar; the other transformations are in
// dataset_ops_transform.cc, the iterators in dataset_ops_iterator.cc.
#include "graph/ops/dataset_ops.h"

#include <string>
#include <vector>

#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/dataset_util.h"
#include "graph/shape_inference.h"

namespace dflow {

// ---- Sources. TensorFlow marks them stateful (they may read files or
// hold large tensors that no pass should copy or merge).

DFLOW_REGISTER_OP("TensorSliceDataset")
    .Input("components: Toutput_types")
    .Output("handle: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("is_files: bool = false")
    .Attr("metadata: string = ''")
    .Attr("replicate_on_split: bool = false")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The slices of the components along their 0th dimension.");

DFLOW_REGISTER_OP("TensorDataset")
    .Input("components: Toutput_types")
    .Output("handle: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("One element: the components.");

DFLOW_REGISTER_OP("RangeDataset")
    .Input("start: int64")
    .Input("stop: int64")
    .Input("step: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .Attr("replicate_on_split: bool = false")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("start, start + step, ... up to (not including) stop.");

DFLOW_REGISTER_OP("TFRecordDataset")
    .Input("filenames: string")
    .Input("compression_type: string")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The records of TFRecord files, file after file.");

DFLOW_REGISTER_OP("TFRecordDatasetV2")
    .Input("filenames: string")
    .Input("compression_type: string")
    .Input("buffer_size: int64")
    .Input("byte_offsets: int64")
    .Output("handle: variant")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The records of TFRecord files, each read from its byte offset.");

DFLOW_REGISTER_OP("TextLineDataset")
    .Input("filenames: string")
    .Input("compression_type: string")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The lines of text files, without their line ends.");

DFLOW_REGISTER_OP("FixedLengthRecordDataset")
    .Input("filenames: string")
    .Input("header_bytes: int64")
    .Input("record_bytes: int64")
    .Input("footer_bytes: int64")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Records of record_bytes between a header and a footer.");

DFLOW_REGISTER_OP("FixedLengthRecordDatasetV2")
    .Input("filenames: string")
    .Input("header_bytes: int64")
    .Input("record_bytes: int64")
    .Input("footer_bytes: int64")
    .Input("buffer_size: int64")
    .Input("compression_type: string")
    .Output("handle: variant")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Records of record_bytes, in files compressed or not.");

// ---- Transformations that call a function.

DFLOW_REGISTER_OP("MapDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("preserve_cardinality: bool = false")
    .Attr("force_synchronous: bool = false")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("f of each element.");

DFLOW_REGISTER_OP("ParallelMapDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Input("num_parallel_calls: int32")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("sloppy: bool = false")
    .Attr("preserve_cardinality: bool = false")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("f of each element, in the input's order.");

DFLOW_REGISTER_OP("ParallelMapDatasetV2")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Input("num_parallel_calls: int64")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("deterministic: string = 'default'")
    .Attr("preserve_cardinality: bool = false")
    .Attr("use_unbounded_threadpool: bool = false")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("f of each element, in the input's order.");

DFLOW_REGISTER_OP("MapAndBatchDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Input("batch_size: int64")
    .Input("num_parallel_calls: int64")
    .Input("drop_remainder: bool")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("preserve_cardinality: bool = false")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Batches of f of each element.");

DFLOW_REGISTER_OP("FilterDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("predicate: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The elements for which predicate is true.");

DFLOW_REGISTER_OP("FlatMapDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The elements of the dataset f makes of each element, in turn.");

DFLOW_REGISTER_OP("InterleaveDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Input("cycle_length: int64")
    .Input("block_length: int64")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc(
        "block_length elements at a time from each of cycle_length datasets "
        "f makes, round robin.");

DFLOW_REGISTER_OP("ParallelInterleaveDatasetV4")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Input("cycle_length: int64")
    .Input("block_length: int64")
    .Input("buffer_output_elements: int64")
    .Input("prefetch_input_elements: int64")
    .Input("num_parallel_calls: int64")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("deterministic: string = 'default'")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("InterleaveDataset's elements, in its order.");

DFLOW_REGISTER_OP("ReduceDataset")
    .Input("input_dataset: variant")
    .Input("initial_state: Tstate")
    .Input("other_arguments: Targuments")
    .Output("components: output_types")
    .Attr("f: func")
    .Attr("Tstate: list(type) >= 1")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::ElementShapes)
    .Doc("The state after f folded in every element.");

namespace ops {

Output TensorSliceDataset(const Scope& scope, const InputList& components,
                          const std::vector<TensorShape>& shapes) {
  return dataset_builders::FirstOutput(
      OpBuilder(scope, "TensorSliceDataset")
          .InputList(components)
          .Attr("output_shapes", absl::MakeConstSpan(shapes))
          .Finalize());
}

Output TensorDataset(const Scope& scope, const InputList& components,
                     const std::vector<TensorShape>& shapes) {
  return dataset_builders::FirstOutput(
      OpBuilder(scope, "TensorDataset")
          .InputList(components)
          .Attr("output_shapes", absl::MakeConstSpan(shapes))
          .Finalize());
}

Output RangeDataset(const Scope& scope, Input start, Input stop, Input step) {
  OpBuilder b(scope, "RangeDataset");
  b.Input(start).Input(stop).Input(step);
  dataset_builders::SetSpec(&b, {{DT_INT64}, {TensorShape({})}});
  return dataset_builders::FirstOutput(b.Finalize());
}

Output TFRecordDataset(const Scope& scope, Input filenames,
                       Input compression_type, Input buffer_size) {
  return dataset_builders::FirstOutput(OpBuilder(scope, "TFRecordDataset")
                                           .Input(filenames)
                                           .Input(compression_type)
                                           .Input(buffer_size)
                                           .Finalize());
}

Output TFRecordDatasetV2(const Scope& scope, Input filenames,
                         Input compression_type, Input buffer_size,
                         Input byte_offsets) {
  return dataset_builders::FirstOutput(OpBuilder(scope, "TFRecordDatasetV2")
                                           .Input(filenames)
                                           .Input(compression_type)
                                           .Input(buffer_size)
                                           .Input(byte_offsets)
                                           .Finalize());
}

Output TextLineDataset(const Scope& scope, Input filenames,
                       Input compression_type, Input buffer_size) {
  return dataset_builders::FirstOutput(OpBuilder(scope, "TextLineDataset")
                                           .Input(filenames)
                                           .Input(compression_type)
                                           .Input(buffer_size)
                                           .Finalize());
}

Output FixedLengthRecordDataset(const Scope& scope, Input filenames,
                                Input header_bytes, Input record_bytes,
                                Input footer_bytes, Input buffer_size) {
  return dataset_builders::FirstOutput(
      OpBuilder(scope, "FixedLengthRecordDataset")
          .Input(filenames)
          .Input(header_bytes)
          .Input(record_bytes)
          .Input(footer_bytes)
          .Input(buffer_size)
          .Finalize());
}

Output FixedLengthRecordDatasetV2(const Scope& scope, Input filenames,
                                  Input header_bytes, Input record_bytes,
                                  Input footer_bytes, Input buffer_size,
                                  Input compression_type) {
  return dataset_builders::FirstOutput(
      OpBuilder(scope, "FixedLengthRecordDatasetV2")
          .Input(filenames)
          .Input(header_bytes)
          .Input(record_bytes)
          .Input(footer_bytes)
          .Input(buffer_size)
          .Input(compression_type)
          .Finalize());
}

Output MapDataset(const Scope& scope, Input dataset, const InputList& captured,
                  absl::string_view f, const ElementSpec& out) {
  OpBuilder b(scope, "MapDataset");
  b.Input(dataset).InputList(captured).Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

Output ParallelMapDataset(const Scope& scope, Input dataset,
                          const InputList& captured, Input num_parallel_calls,
                          absl::string_view f, const ElementSpec& out) {
  OpBuilder b(scope, "ParallelMapDataset");
  b.Input(dataset).InputList(captured).Input(num_parallel_calls);
  b.Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

Output ParallelMapDatasetV2(const Scope& scope, Input dataset,
                            const InputList& captured, Input num_parallel_calls,
                            absl::string_view f, const ElementSpec& out) {
  OpBuilder b(scope, "ParallelMapDatasetV2");
  b.Input(dataset).InputList(captured).Input(num_parallel_calls);
  b.Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

Output MapAndBatchDataset(const Scope& scope, Input dataset,
                          const InputList& captured, Input batch_size,
                          Input num_parallel_calls, Input drop_remainder,
                          absl::string_view f, const ElementSpec& out) {
  OpBuilder b(scope, "MapAndBatchDataset");
  b.Input(dataset).InputList(captured).Input(batch_size);
  b.Input(num_parallel_calls).Input(drop_remainder);
  b.Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

Output FilterDataset(const Scope& scope, Input dataset,
                     const InputList& captured, absl::string_view predicate,
                     const ElementSpec& out) {
  OpBuilder b(scope, "FilterDataset");
  b.Input(dataset).InputList(captured);
  b.Attr("predicate", dataset_builders::Func(predicate));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

Output FlatMapDataset(const Scope& scope, Input dataset,
                      const InputList& captured, absl::string_view f,
                      const ElementSpec& out) {
  OpBuilder b(scope, "FlatMapDataset");
  b.Input(dataset).InputList(captured).Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

Output InterleaveDataset(const Scope& scope, Input dataset,
                         const InputList& captured, Input cycle_length,
                         Input block_length, absl::string_view f,
                         const ElementSpec& out) {
  OpBuilder b(scope, "InterleaveDataset");
  b.Input(dataset).InputList(captured).Input(cycle_length).Input(block_length);
  b.Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

Output ParallelInterleaveDatasetV4(
    const Scope& scope, Input dataset, const InputList& captured,
    Input cycle_length, Input block_length, Input buffer_output_elements,
    Input prefetch_input_elements, Input num_parallel_calls,
    absl::string_view f, const ElementSpec& out) {
  OpBuilder b(scope, "ParallelInterleaveDatasetV4");
  b.Input(dataset).InputList(captured).Input(cycle_length).Input(block_length);
  b.Input(buffer_output_elements).Input(prefetch_input_elements);
  b.Input(num_parallel_calls).Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::FirstOutput(b.Finalize());
}

OutputList ReduceDataset(const Scope& scope, Input dataset,
                         const InputList& initial_state,
                         const InputList& captured, absl::string_view f,
                         const ElementSpec& out) {
  OpBuilder b(scope, "ReduceDataset");
  b.Input(dataset).InputList(initial_state).InputList(captured);
  b.Attr("f", dataset_builders::Func(f));
  dataset_builders::SetSpec(&b, out);
  return dataset_builders::AllOutputs(b.Finalize());
}

}  // namespace ops
}  // namespace dflow
