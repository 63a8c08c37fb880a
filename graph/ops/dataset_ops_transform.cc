// Schemas and builders of tf.data's transformations that call no function:
// batching, shuffling (with the seed generators of its V2/V3 ops), repeat,
// take, skip, prefetch, zip, concatenate, cache, the ops TensorFlow inserts
// on its own (options, optimizations, autotuning) and DatasetCardinality,
// with TensorFlow 2.21's OpDefs.
#include <string>
#include <vector>

#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/dataset_ops.h"
#include "graph/ops/dataset_util.h"
#include "graph/shape_inference.h"

namespace dflow {

// ---- Batching.

DFLOW_REGISTER_OP("BatchDataset")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Batches of batch_size elements (the last may be smaller).");

DFLOW_REGISTER_OP("BatchDatasetV2")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Input("drop_remainder: bool")
    .Output("handle: variant")
    .Attr("parallel_copy: bool = false")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Batches of batch_size elements; drop_remainder drops a short one.");

DFLOW_REGISTER_OP("ParallelBatchDataset")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Input("num_parallel_calls: int64")
    .Input("drop_remainder: bool")
    .Output("handle: variant")
    .Attr("parallel_copy: bool = false")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("deterministic: string = 'default'")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("BatchDatasetV2's batches.");

DFLOW_REGISTER_OP("PaddedBatchDataset")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Input("padded_shapes: N * int64")
    .Input("padding_values: Toutput_types")
    .Output("handle: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("N: int >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Batches with each component padded to padded_shapes.");

DFLOW_REGISTER_OP("PaddedBatchDatasetV2")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Input("padded_shapes: N * int64")
    .Input("padding_values: Toutput_types")
    .Input("drop_remainder: bool")
    .Output("handle: variant")
    .Attr("parallel_copy: bool = false")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("N: int >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Padded batches; drop_remainder drops a short one.");

DFLOW_REGISTER_OP("UnbatchDataset")
    .Input("input_dataset: variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The rows of each element, one element each.");

// ---- Shuffling.

DFLOW_REGISTER_OP("ShuffleDataset")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Output("handle: variant")
    .Attr("reshuffle_each_iteration: bool = true")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The elements in the order of a shuffle buffer of buffer_size.");

DFLOW_REGISTER_OP("ShuffleDatasetV2")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Input("seed_generator: resource")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Shuffled with the seeds of a seed generator resource.");

DFLOW_REGISTER_OP("ShuffleDatasetV3")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Input("seed_generator: resource")
    .Output("handle: variant")
    .Attr("reshuffle_each_iteration: bool = true")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Shuffled; the seed generator resource, or seed/seed2.");

DFLOW_REGISTER_OP("ShuffleAndRepeatDataset")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Input("count: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("reshuffle_each_iteration: bool = true")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("count shuffled epochs (-1: forever).");

DFLOW_REGISTER_OP("ShuffleAndRepeatDatasetV2")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Input("count: int64")
    .Input("seed_generator: resource")
    .Output("handle: variant")
    .Attr("reshuffle_each_iteration: bool = true")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("count shuffled epochs, seeds from a seed generator resource.");

DFLOW_REGISTER_OP("AnonymousSeedGenerator")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Input("reshuffle: bool")
    .Output("handle: resource")
    .Output("deleter: variant")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A new seed generator: each epoch's shuffle seeds.");

DFLOW_REGISTER_OP("DummySeedGenerator")
    .Output("handle: resource")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A handle naming no seed generator (use the op's own seeds).");

DFLOW_REGISTER_OP("DeleteSeedGenerator")
    .Input("handle: resource")
    .Input("deleter: variant")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::NoOutputs)
    .Doc("Releases a seed generator.");

// ---- Element order.

DFLOW_REGISTER_OP("RepeatDataset")
    .Input("input_dataset: variant")
    .Input("count: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input count times (-1: forever).");

DFLOW_REGISTER_OP("TakeDataset")
    .Input("input_dataset: variant")
    .Input("count: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The first count elements (-1: all).");

DFLOW_REGISTER_OP("SkipDataset")
    .Input("input_dataset: variant")
    .Input("count: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("All but the first count elements (-1: none).");

DFLOW_REGISTER_OP("PrefetchDataset")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("slack_period: int = 0")
    .Attr("legacy_autotune: bool = true")
    .Attr("buffer_size_min: int = 0")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input's elements (dflow computes them when asked).");

DFLOW_REGISTER_OP("ZipDataset")
    .Input("input_datasets: N * variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("N: int >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("Tuples of the inputs' elements, until the shortest ends.");

DFLOW_REGISTER_OP("ConcatenateDataset")
    .Input("input_dataset: variant")
    .Input("another_dataset: variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The elements of one dataset, then of the other.");

DFLOW_REGISTER_OP("CacheDataset")
    .Input("input_dataset: variant")
    .Input("filename: string")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input, computed once and then replayed.");

DFLOW_REGISTER_OP("CacheDatasetV2")
    .Input("input_dataset: variant")
    .Input("filename: string")
    .Input("cache: resource")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input, computed once into a memory cache resource.");

DFLOW_REGISTER_OP("DummyMemoryCache")
    .Output("handle: resource")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A handle naming no memory cache (the dataset keeps its own).");

DFLOW_REGISTER_OP("AnonymousMemoryCache")
    .Output("handle: resource")
    .Output("deleter: variant")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A new memory cache.");

DFLOW_REGISTER_OP("DeleteMemoryCache")
    .Input("handle: resource")
    .Input("deleter: variant")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::NoOutputs)
    .Doc("Releases a memory cache.");

// ---- What TensorFlow inserts: options, static optimizations, autotuning
// and thread pools. The elements pass through.

DFLOW_REGISTER_OP("OptimizeDataset")
    .Input("input_dataset: variant")
    .Input("optimizations: string")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("optimization_configs: list(string) = []")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input (TensorFlow rewrites it; dflow runs it as written).");

DFLOW_REGISTER_OP("OptimizeDatasetV2")
    .Input("input_dataset: variant")
    .Input("optimizations_enabled: string")
    .Input("optimizations_disabled: string")
    .Input("optimizations_default: string")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("optimization_configs: list(string) = []")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input (TensorFlow rewrites it; dflow runs it as written).");

DFLOW_REGISTER_OP("ModelDataset")
    .Input("input_dataset: variant")
    .Output("handle: variant")
    .Attr("algorithm: int = 0")
    .Attr("cpu_budget: int = 0")
    .Attr("ram_budget: int = 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input (TensorFlow autotunes it).");

DFLOW_REGISTER_OP("MaxIntraOpParallelismDataset")
    .Input("input_dataset: variant")
    .Input("max_intra_op_parallelism: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input.");

DFLOW_REGISTER_OP("PrivateThreadPoolDataset")
    .Input("input_dataset: variant")
    .Input("num_threads: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input.");

DFLOW_REGISTER_OP("OptionsDataset")
    .Input("input_dataset: variant")
    .Output("handle: variant")
    .Attr("serialized_options: string")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The input, with tf.data.Options attached.");

DFLOW_REGISTER_OP("DatasetCardinality")
    .Input("input_dataset: variant")
    .Output("cardinality: int64")
    .Attr("cardinality_options: string = ''")
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The number of elements: -1 infinite, -2 unknown.");

DFLOW_REGISTER_OP("DatasetToSingleElement")
    .Input("dataset: variant")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::ElementShapes)
    .Doc("The dataset's only element.");

namespace ops {
namespace {

using dataset_builders::FirstOutput;
using dataset_builders::SetSpec;

// An op of an input dataset and one more scalar input.
Output UnaryWithArg(const Scope& scope, absl::string_view op, Input dataset,
                    Input arg, const ElementSpec& out) {
  OpBuilder b(scope, op);
  b.Input(dataset).Input(arg);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output PaddedBatch(const Scope& scope, absl::string_view op, Input dataset,
                   Input batch_size, const InputList& padded_shapes,
                   const InputList& padding_values, const Input* drop,
                   const std::vector<TensorShape>& shapes) {
  OpBuilder b(scope, op);
  b.Input(dataset).Input(batch_size).InputList(padded_shapes);
  b.InputList(padding_values);
  if (drop != nullptr) b.Input(*drop);
  b.Attr("output_shapes", absl::MakeConstSpan(shapes));
  return FirstOutput(b.Finalize());
}

}  // namespace

Output BatchDataset(const Scope& scope, Input dataset, Input batch_size,
                    const ElementSpec& out) {
  return UnaryWithArg(scope, "BatchDataset", dataset, batch_size, out);
}

Output BatchDatasetV2(const Scope& scope, Input dataset, Input batch_size,
                      Input drop_remainder, const ElementSpec& out) {
  OpBuilder b(scope, "BatchDatasetV2");
  b.Input(dataset).Input(batch_size).Input(drop_remainder);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ParallelBatchDataset(const Scope& scope, Input dataset, Input batch_size,
                            Input num_parallel_calls, Input drop_remainder,
                            const ElementSpec& out) {
  OpBuilder b(scope, "ParallelBatchDataset");
  b.Input(dataset).Input(batch_size).Input(num_parallel_calls);
  b.Input(drop_remainder);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output PaddedBatchDataset(const Scope& scope, Input dataset, Input batch_size,
                          const InputList& padded_shapes,
                          const InputList& padding_values,
                          const std::vector<TensorShape>& shapes) {
  return PaddedBatch(scope, "PaddedBatchDataset", dataset, batch_size,
                     padded_shapes, padding_values, nullptr, shapes);
}

Output PaddedBatchDatasetV2(const Scope& scope, Input dataset, Input batch_size,
                            const InputList& padded_shapes,
                            const InputList& padding_values,
                            Input drop_remainder,
                            const std::vector<TensorShape>& shapes) {
  return PaddedBatch(scope, "PaddedBatchDatasetV2", dataset, batch_size,
                     padded_shapes, padding_values, &drop_remainder, shapes);
}

Output UnbatchDataset(const Scope& scope, Input dataset,
                      const ElementSpec& out) {
  OpBuilder b(scope, "UnbatchDataset");
  b.Input(dataset);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ShuffleDataset(const Scope& scope, Input dataset, Input buffer_size,
                      Input seed, Input seed2, bool reshuffle_each_iteration,
                      const ElementSpec& out) {
  OpBuilder b(scope, "ShuffleDataset");
  b.Input(dataset).Input(buffer_size).Input(seed).Input(seed2);
  b.Attr("reshuffle_each_iteration", reshuffle_each_iteration);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ShuffleDatasetV2(const Scope& scope, Input dataset, Input buffer_size,
                        Input seed_generator, const ElementSpec& out) {
  OpBuilder b(scope, "ShuffleDatasetV2");
  b.Input(dataset).Input(buffer_size).Input(seed_generator);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ShuffleDatasetV3(const Scope& scope, Input dataset, Input buffer_size,
                        Input seed, Input seed2, Input seed_generator,
                        bool reshuffle_each_iteration, const ElementSpec& out) {
  OpBuilder b(scope, "ShuffleDatasetV3");
  b.Input(dataset).Input(buffer_size).Input(seed).Input(seed2);
  b.Input(seed_generator);
  b.Attr("reshuffle_each_iteration", reshuffle_each_iteration);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ShuffleAndRepeatDataset(const Scope& scope, Input dataset,
                               Input buffer_size, Input seed, Input seed2,
                               Input count, bool reshuffle_each_iteration,
                               const ElementSpec& out) {
  OpBuilder b(scope, "ShuffleAndRepeatDataset");
  b.Input(dataset).Input(buffer_size).Input(seed).Input(seed2).Input(count);
  b.Attr("reshuffle_each_iteration", reshuffle_each_iteration);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ShuffleAndRepeatDatasetV2(const Scope& scope, Input dataset,
                                 Input buffer_size, Input seed, Input seed2,
                                 Input count, Input seed_generator,
                                 bool reshuffle_each_iteration,
                                 const ElementSpec& out) {
  OpBuilder b(scope, "ShuffleAndRepeatDatasetV2");
  b.Input(dataset).Input(buffer_size).Input(seed).Input(seed2).Input(count);
  b.Input(seed_generator);
  b.Attr("reshuffle_each_iteration", reshuffle_each_iteration);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

ResourceAndDeleter AnonymousSeedGenerator(const Scope& scope, Input seed,
                                          Input seed2, Input reshuffle) {
  return dataset_builders::TwoOutputs(OpBuilder(scope, "AnonymousSeedGenerator")
                                          .Input(seed)
                                          .Input(seed2)
                                          .Input(reshuffle)
                                          .Finalize());
}

Output DummySeedGenerator(const Scope& scope) {
  return FirstOutput(OpBuilder(scope, "DummySeedGenerator").Finalize());
}

Operation DeleteSeedGenerator(const Scope& scope, Input handle, Input deleter) {
  return OpBuilder(scope, "DeleteSeedGenerator")
      .Input(handle)
      .Input(deleter)
      .Finalize();
}

Output RepeatDataset(const Scope& scope, Input dataset, Input count,
                     const ElementSpec& out) {
  return UnaryWithArg(scope, "RepeatDataset", dataset, count, out);
}

Output TakeDataset(const Scope& scope, Input dataset, Input count,
                   const ElementSpec& out) {
  return UnaryWithArg(scope, "TakeDataset", dataset, count, out);
}

Output SkipDataset(const Scope& scope, Input dataset, Input count,
                   const ElementSpec& out) {
  return UnaryWithArg(scope, "SkipDataset", dataset, count, out);
}

Output PrefetchDataset(const Scope& scope, Input dataset, Input buffer_size,
                       const ElementSpec& out) {
  return UnaryWithArg(scope, "PrefetchDataset", dataset, buffer_size, out);
}

Output ZipDataset(const Scope& scope, const InputList& datasets,
                  const ElementSpec& out) {
  OpBuilder b(scope, "ZipDataset");
  b.InputList(datasets);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ConcatenateDataset(const Scope& scope, Input dataset, Input another,
                          const ElementSpec& out) {
  return UnaryWithArg(scope, "ConcatenateDataset", dataset, another, out);
}

Output CacheDataset(const Scope& scope, Input dataset, Input filename,
                    const ElementSpec& out) {
  return UnaryWithArg(scope, "CacheDataset", dataset, filename, out);
}

Output CacheDatasetV2(const Scope& scope, Input dataset, Input filename,
                      Input cache, const ElementSpec& out) {
  OpBuilder b(scope, "CacheDatasetV2");
  b.Input(dataset).Input(filename).Input(cache);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output DummyMemoryCache(const Scope& scope) {
  return FirstOutput(OpBuilder(scope, "DummyMemoryCache").Finalize());
}

ResourceAndDeleter AnonymousMemoryCache(const Scope& scope) {
  return dataset_builders::TwoOutputs(
      OpBuilder(scope, "AnonymousMemoryCache").Finalize());
}

Operation DeleteMemoryCache(const Scope& scope, Input handle, Input deleter) {
  return OpBuilder(scope, "DeleteMemoryCache")
      .Input(handle)
      .Input(deleter)
      .Finalize();
}

Output OptimizeDataset(const Scope& scope, Input dataset, Input optimizations,
                       const ElementSpec& out) {
  return UnaryWithArg(scope, "OptimizeDataset", dataset, optimizations, out);
}

Output OptimizeDatasetV2(const Scope& scope, Input dataset, Input enabled,
                         Input disabled, Input defaults,
                         const ElementSpec& out) {
  OpBuilder b(scope, "OptimizeDatasetV2");
  b.Input(dataset).Input(enabled).Input(disabled).Input(defaults);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output ModelDataset(const Scope& scope, Input dataset, const ElementSpec& out) {
  OpBuilder b(scope, "ModelDataset");
  b.Input(dataset);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output MaxIntraOpParallelismDataset(const Scope& scope, Input dataset,
                                    Input max_intra_op_parallelism,
                                    const ElementSpec& out) {
  return UnaryWithArg(scope, "MaxIntraOpParallelismDataset", dataset,
                      max_intra_op_parallelism, out);
}

Output PrivateThreadPoolDataset(const Scope& scope, Input dataset,
                                Input num_threads, const ElementSpec& out) {
  return UnaryWithArg(scope, "PrivateThreadPoolDataset", dataset, num_threads,
                      out);
}

Output OptionsDataset(const Scope& scope, Input dataset,
                      absl::string_view serialized_options,
                      const ElementSpec& out) {
  OpBuilder b(scope, "OptionsDataset");
  b.Input(dataset).Attr("serialized_options", std::string(serialized_options));
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output DatasetCardinality(const Scope& scope, Input dataset) {
  return FirstOutput(
      OpBuilder(scope, "DatasetCardinality").Input(dataset).Finalize());
}

OutputList DatasetToSingleElement(const Scope& scope, Input dataset,
                                  const ElementSpec& out) {
  OpBuilder b(scope, "DatasetToSingleElement");
  b.Input(dataset);
  SetSpec(&b, out);
  return dataset_builders::AllOutputs(b.Finalize());
}

}  // namespace ops
}  // namespace dflow
