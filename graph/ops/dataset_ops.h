// tf.data in graph mode: the dataset ops TensorFlow 2.21 writes into
// tf.compat.v1 graphs (sources, transformations, the ops it inserts on its
// own) and the iterator ops that read them (OneShotIterator, IteratorV2 +
// MakeIterator, IteratorGetNext, string handles). A dataset is a variant
// scalar holding an immutable dataset; an iterator is a resource. Schemas
// with TensorFlow's OpDefs are in dataset_ops.cc (datasets) and
// dataset_ops_iterator.cc (iterators); the CPU kernels are
// kernels/cpu/dataset_ops*.cc.
//
// Every dataset op carries `output_types` and `output_shapes` (one dtype
// and one possibly partial shape per component of an element): the
// builders take them as an ElementSpec. Ops that call a function (map,
// filter, flat_map, interleave, the one-shot iterator's factory) name a
// FunctionDef of the graph's library; the builders take its name.
#ifndef DFLOW_GRAPH_OPS_DATASET_OPS_H_
#define DFLOW_GRAPH_OPS_DATASET_OPS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// The components of a dataset's elements.
struct ElementSpec {
  std::vector<DataType> types;
  std::vector<TensorShape> shapes;
};

// ---- Sources.
// Slices of `components` along their 0th dimension (from_tensor_slices);
// `shapes` are the slices' shapes.
Output TensorSliceDataset(const Scope& scope, const InputList& components,
                          const std::vector<TensorShape>& shapes);
// One element: `components` (from_tensors).
Output TensorDataset(const Scope& scope, const InputList& components,
                     const std::vector<TensorShape>& shapes);
// int64 scalars start, start + step, ... before stop.
Output RangeDataset(const Scope& scope, Input start, Input stop, Input step);
// The records of the files `filenames` (a string scalar or vector), each a
// string scalar; compression_type "", "GZIP" or "ZLIB".
Output TFRecordDataset(const Scope& scope, Input filenames,
                       Input compression_type, Input buffer_size);
// The same; byte_offsets (one per file, or empty) is where reading starts.
Output TFRecordDatasetV2(const Scope& scope, Input filenames,
                         Input compression_type, Input buffer_size,
                         Input byte_offsets);
// The lines of text files, without their "\n" (or "\r\n").
Output TextLineDataset(const Scope& scope, Input filenames,
                       Input compression_type, Input buffer_size);
// Records of record_bytes after header_bytes, before footer_bytes.
Output FixedLengthRecordDataset(const Scope& scope, Input filenames,
                                Input header_bytes, Input record_bytes,
                                Input footer_bytes, Input buffer_size);
Output FixedLengthRecordDatasetV2(const Scope& scope, Input filenames,
                                  Input header_bytes, Input record_bytes,
                                  Input footer_bytes, Input buffer_size,
                                  Input compression_type);

// ---- Transformations calling a function of the library (`captured` are
// its arguments after the element's components).
Output MapDataset(const Scope& scope, Input dataset, const InputList& captured,
                  absl::string_view f, const ElementSpec& out);
Output ParallelMapDataset(const Scope& scope, Input dataset,
                          const InputList& captured, Input num_parallel_calls,
                          absl::string_view f, const ElementSpec& out);
Output ParallelMapDatasetV2(const Scope& scope, Input dataset,
                            const InputList& captured, Input num_parallel_calls,
                            absl::string_view f, const ElementSpec& out);
Output MapAndBatchDataset(const Scope& scope, Input dataset,
                          const InputList& captured, Input batch_size,
                          Input num_parallel_calls, Input drop_remainder,
                          absl::string_view f, const ElementSpec& out);
Output FilterDataset(const Scope& scope, Input dataset,
                     const InputList& captured, absl::string_view predicate,
                     const ElementSpec& out);
// `f` returns a dataset per element; their elements in turn.
Output FlatMapDataset(const Scope& scope, Input dataset,
                      const InputList& captured, absl::string_view f,
                      const ElementSpec& out);
Output InterleaveDataset(const Scope& scope, Input dataset,
                         const InputList& captured, Input cycle_length,
                         Input block_length, absl::string_view f,
                         const ElementSpec& out);
Output ParallelInterleaveDatasetV4(const Scope& scope, Input dataset,
                                   const InputList& captured,
                                   Input cycle_length, Input block_length,
                                   Input buffer_output_elements,
                                   Input prefetch_input_elements,
                                   Input num_parallel_calls,
                                   absl::string_view f, const ElementSpec& out);
// Folds the dataset with `f`(state..., element...) -> state, from
// `initial_state`; the final state.
OutputList ReduceDataset(const Scope& scope, Input dataset,
                         const InputList& initial_state,
                         const InputList& captured, absl::string_view f,
                         const ElementSpec& out);

// ---- Batching.
Output BatchDataset(const Scope& scope, Input dataset, Input batch_size,
                    const ElementSpec& out);
Output BatchDatasetV2(const Scope& scope, Input dataset, Input batch_size,
                      Input drop_remainder, const ElementSpec& out);
Output ParallelBatchDataset(const Scope& scope, Input dataset, Input batch_size,
                            Input num_parallel_calls, Input drop_remainder,
                            const ElementSpec& out);
// `padded_shapes`: one int64 vector per component (-1: the batch's
// largest); `padding_values`: one scalar per component.
Output PaddedBatchDataset(const Scope& scope, Input dataset, Input batch_size,
                          const InputList& padded_shapes,
                          const InputList& padding_values,
                          const std::vector<TensorShape>& shapes);
Output PaddedBatchDatasetV2(const Scope& scope, Input dataset, Input batch_size,
                            const InputList& padded_shapes,
                            const InputList& padding_values,
                            Input drop_remainder,
                            const std::vector<TensorShape>& shapes);
Output UnbatchDataset(const Scope& scope, Input dataset,
                      const ElementSpec& out);

// ---- Shuffling and its seed generators.
Output ShuffleDataset(const Scope& scope, Input dataset, Input buffer_size,
                      Input seed, Input seed2, bool reshuffle_each_iteration,
                      const ElementSpec& out);
Output ShuffleDatasetV2(const Scope& scope, Input dataset, Input buffer_size,
                        Input seed_generator, const ElementSpec& out);
Output ShuffleDatasetV3(const Scope& scope, Input dataset, Input buffer_size,
                        Input seed, Input seed2, Input seed_generator,
                        bool reshuffle_each_iteration, const ElementSpec& out);
Output ShuffleAndRepeatDataset(const Scope& scope, Input dataset,
                               Input buffer_size, Input seed, Input seed2,
                               Input count, bool reshuffle_each_iteration,
                               const ElementSpec& out);
Output ShuffleAndRepeatDatasetV2(const Scope& scope, Input dataset,
                                 Input buffer_size, Input seed, Input seed2,
                                 Input count, Input seed_generator,
                                 bool reshuffle_each_iteration,
                                 const ElementSpec& out);
struct ResourceAndDeleter {
  Output handle;
  Output deleter;
};
ResourceAndDeleter AnonymousSeedGenerator(const Scope& scope, Input seed,
                                          Input seed2, Input reshuffle);
Output DummySeedGenerator(const Scope& scope);
Operation DeleteSeedGenerator(const Scope& scope, Input handle, Input deleter);

// ---- Element-order transformations.
Output RepeatDataset(const Scope& scope, Input dataset, Input count,
                     const ElementSpec& out);
Output TakeDataset(const Scope& scope, Input dataset, Input count,
                   const ElementSpec& out);
Output SkipDataset(const Scope& scope, Input dataset, Input count,
                   const ElementSpec& out);
Output PrefetchDataset(const Scope& scope, Input dataset, Input buffer_size,
                       const ElementSpec& out);
Output ZipDataset(const Scope& scope, const InputList& datasets,
                  const ElementSpec& out);
Output ConcatenateDataset(const Scope& scope, Input dataset, Input another,
                          const ElementSpec& out);
// In memory when filename is "" (a file cache is refused by the kernel).
Output CacheDataset(const Scope& scope, Input dataset, Input filename,
                    const ElementSpec& out);
Output CacheDatasetV2(const Scope& scope, Input dataset, Input filename,
                      Input cache, const ElementSpec& out);
Output DummyMemoryCache(const Scope& scope);
ResourceAndDeleter AnonymousMemoryCache(const Scope& scope);
Operation DeleteMemoryCache(const Scope& scope, Input handle, Input deleter);

// ---- What TensorFlow inserts on its own (options, tuning): the elements
// pass through unchanged.
Output OptimizeDataset(const Scope& scope, Input dataset, Input optimizations,
                       const ElementSpec& out);
Output OptimizeDatasetV2(const Scope& scope, Input dataset, Input enabled,
                         Input disabled, Input defaults,
                         const ElementSpec& out);
Output ModelDataset(const Scope& scope, Input dataset, const ElementSpec& out);
Output MaxIntraOpParallelismDataset(const Scope& scope, Input dataset,
                                    Input max_intra_op_parallelism,
                                    const ElementSpec& out);
Output PrivateThreadPoolDataset(const Scope& scope, Input dataset,
                                Input num_threads, const ElementSpec& out);
Output OptionsDataset(const Scope& scope, Input dataset,
                      absl::string_view serialized_options,
                      const ElementSpec& out);
// The number of elements: -1 infinite, -2 unknown.
Output DatasetCardinality(const Scope& scope, Input dataset);
// The dataset's only element.
OutputList DatasetToSingleElement(const Scope& scope, Input dataset,
                                  const ElementSpec& out);

// ---- Iterators (dataset_ops_iterator.cc).
// An iterator over the dataset `dataset_factory` (a function without
// arguments) returns, made on first use.
Output OneShotIterator(const Scope& scope, absl::string_view dataset_factory,
                       const ElementSpec& out);
// An iterator MakeIterator points at a dataset (re-running it restarts).
Output IteratorV2(const Scope& scope, const ElementSpec& out,
                  absl::string_view shared_name = "",
                  absl::string_view container = "");
Output Iterator(const Scope& scope, const ElementSpec& out,
                absl::string_view shared_name = "",
                absl::string_view container = "");
Operation MakeIterator(const Scope& scope, Input dataset, Input iterator);
Output AnonymousIterator(const Scope& scope, const ElementSpec& out);
ResourceAndDeleter AnonymousIteratorV2(const Scope& scope,
                                       const ElementSpec& out);
Output AnonymousIteratorV3(const Scope& scope, const ElementSpec& out);
Operation DeleteIterator(const Scope& scope, Input handle, Input deleter);
// The next element; OutOfRange "End of sequence" after the last.
OutputList IteratorGetNext(const Scope& scope, Input iterator,
                           const ElementSpec& out);
OutputList IteratorGetNextSync(const Scope& scope, Input iterator,
                               const ElementSpec& out);
// The next element as an Optional (none after the last).
Output IteratorGetNextAsOptional(const Scope& scope, Input iterator,
                                 const ElementSpec& out);
// A string naming the iterator, for IteratorFromStringHandle (feedable
// iterators).
Output IteratorToStringHandle(const Scope& scope, Input iterator);
Output IteratorFromStringHandle(const Scope& scope, Input string_handle,
                                const ElementSpec& out);
Output IteratorFromStringHandleV2(const Scope& scope, Input string_handle,
                                  const ElementSpec& out);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_DATASET_OPS_H_
