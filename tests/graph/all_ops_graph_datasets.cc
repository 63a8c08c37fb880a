// The tf.data part of the graph with every op (all_ops_graph.h): every
// dataset and iterator op through its builder, and the small functions of
// the graph's library that the function-taking ones name (so TensorFlow
// loads the graph too).
#include <string>

#include "google/protobuf/text_format.h"
#include "graph/ops/dataset_ops_more.h"
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {
namespace {

// x -> x; x -> x > 0; x -> a dataset of x; (s, x) -> s + x; () -> range(3).
constexpr const char* kFunctions[] = {
    R"pb(signature {
           name: "all_ops_map"
           input_arg { name: "x" type: DT_INT64 }
           output_arg { name: "y" type: DT_INT64 }
         }
         node_def {
           name: "id"
           op: "Identity"
           input: "x"
           attr {
             key: "T"
             value { type: DT_INT64 }
           }
         }
         ret { key: "y" value: "id:output:0" })pb",
    R"pb(signature {
           name: "all_ops_predicate"
           input_arg { name: "x" type: DT_INT64 }
           output_arg { name: "keep" type: DT_BOOL }
         }
         node_def {
           name: "zero"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT64 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT64
                 tensor_shape {}
                 int64_val: 0
               }
             }
           }
         }
         node_def {
           name: "gt"
           op: "Greater"
           input: "x"
           input: "zero:output:0"
           attr {
             key: "T"
             value { type: DT_INT64 }
           }
         }
         ret { key: "keep" value: "gt:z:0" })pb",
    R"pb(signature {
           name: "all_ops_dataset_of"
           input_arg { name: "x" type: DT_INT64 }
           output_arg { name: "d" type: DT_VARIANT }
           is_stateful: true
         }
         node_def {
           name: "ds"
           op: "TensorDataset"
           input: "x"
           attr {
             key: "Toutput_types"
             value { list { type: DT_INT64 } }
           }
           attr {
             key: "output_shapes"
             value { list { shape {} } }
           }
         }
         ret { key: "d" value: "ds:handle:0" })pb",
    R"pb(signature {
           name: "all_ops_sum"
           input_arg { name: "s" type: DT_INT64 }
           input_arg { name: "x" type: DT_INT64 }
           output_arg { name: "t" type: DT_INT64 }
         }
         node_def {
           name: "add"
           op: "AddV2"
           input: "s"
           input: "x"
           attr {
             key: "T"
             value { type: DT_INT64 }
           }
         }
         ret { key: "t" value: "add:z:0" })pb",
    R"pb(signature {
           name: "all_ops_factory"
           output_arg { name: "d" type: DT_VARIANT }
           is_stateful: true
         }
         node_def {
           name: "start"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT64 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT64
                 tensor_shape {}
                 int64_val: 0
               }
             }
           }
         }
         node_def {
           name: "stop"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT64 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT64
                 tensor_shape {}
                 int64_val: 3
               }
             }
           }
         }
         node_def {
           name: "step"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT64 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT64
                 tensor_shape {}
                 int64_val: 1
               }
             }
           }
         }
         node_def {
           name: "range"
           op: "RangeDataset"
           input: "start:output:0"
           input: "stop:output:0"
           input: "step:output:0"
           attr {
             key: "output_types"
             value { list { type: DT_INT64 } }
           }
           attr {
             key: "output_shapes"
             value { list { shape {} } }
           }
         }
         ret { key: "d" value: "range:handle:0" })pb",
};

}  // namespace

void BuildDatasetOps(const Scope& root) {
  for (const char* text : kFunctions) {
    FunctionDef f;
    if (!google::protobuf::TextFormat::ParseFromString(text, &f)) {
      root.graph()->RecordBuildError(
          absl::InternalError("a FunctionDef of all_ops_graph_datasets.cc "
                              "does not parse"));
      return;
    }
    *root.graph()->mutable_library()->add_function() = f;
  }
  const Scope s = root.NewSubScope("data");
  const ops::ElementSpec scalars = {{DT_INT64}, {TensorShape({})}};
  const ops::ElementSpec vectors = {{DT_INT64}, {TensorShape({-1})}};
  const ops::ElementSpec strings = {{DT_STRING}, {TensorShape({})}};

  // Sources.
  Output values = ops::Const(s, {int64_t{1}, int64_t{2}, int64_t{3}});
  Output range = ops::RangeDataset(s, int64_t{0}, int64_t{6}, int64_t{1});
  Output slices = ops::TensorSliceDataset(s, {values}, {TensorShape({})});
  Output single = ops::TensorDataset(s, {values}, {TensorShape({3})});
  Output files = ops::Const(s, "/tmp/data.tfrecord");
  Output none = ops::Const(s, "");
  Output records = ops::TFRecordDataset(s, files, none, int64_t{0});
  ops::TFRecordDatasetV2(s, files, none, int64_t{0},
                         ops::Const(s, {int64_t{0}}));
  ops::TextLineDataset(s, files, none, int64_t{0});
  ops::FixedLengthRecordDataset(s, files, int64_t{0}, int64_t{4}, int64_t{0},
                                int64_t{0});
  ops::FixedLengthRecordDatasetV2(s, files, int64_t{0}, int64_t{4}, int64_t{0},
                                  int64_t{0}, none);

  // Transformations calling functions.
  Output mapped = ops::MapDataset(s, range, {}, "all_ops_map", scalars);
  ops::ParallelMapDataset(s, range, {}, 2, "all_ops_map", scalars);
  ops::ParallelMapDatasetV2(s, range, {}, int64_t{2}, "all_ops_map", scalars);
  ops::MapAndBatchDataset(s, range, {}, int64_t{2}, int64_t{2}, false,
                          "all_ops_map", vectors);
  Output filtered =
      ops::FilterDataset(s, mapped, {}, "all_ops_predicate", scalars);
  ops::FlatMapDataset(s, slices, {}, "all_ops_dataset_of", scalars);
  ops::InterleaveDataset(s, slices, {}, int64_t{2}, int64_t{1},
                         "all_ops_dataset_of", scalars);
  ops::ParallelInterleaveDatasetV4(s, slices, {}, int64_t{2}, int64_t{1},
                                   int64_t{1}, int64_t{1}, int64_t{2},
                                   "all_ops_dataset_of", scalars);
  ops::ReduceDataset(s, range, {ops::Const(s, int64_t{0})}, {}, "all_ops_sum",
                     scalars);

  // More transformations (graph/ops/dataset_ops_more.cc).
  ops::ShardDataset(s, range, int64_t{3}, int64_t{1}, scalars);
  ops::TakeWhileDataset(s, range, {}, "all_ops_predicate", scalars);
  ops::ScanDataset(s, range, {ops::Const(s, int64_t{0})}, {}, "all_ops_sum",
                   scalars);
  Output windows = ops::WindowDataset(s, range, int64_t{2}, int64_t{1},
                                      int64_t{1}, false, 1);
  (void)windows;
  ops::UniqueDataset(s, range, scalars);
  ops::IgnoreErrorsDataset(s, mapped, scalars);
  Output random = ops::RandomDataset(s, int64_t{1}, int64_t{2});
  ops::DirectedInterleaveDataset(s, random, {range, slices}, false, scalars);
  ops::RewriteDataset(s, range, ops::Const(s, "replicate_on_split"), scalars);
  ops::GroupByWindowDataset(s, range, {}, {}, {}, "all_ops_map",
                            "all_ops_dataset_of", "all_ops_map", scalars);

  // Batching and shuffling.
  Output batched = ops::BatchDatasetV2(s, filtered, int64_t{2}, true, vectors);
  ops::BatchDataset(s, range, int64_t{2}, vectors);
  ops::ParallelBatchDataset(s, range, int64_t{2}, int64_t{2}, false, vectors);
  ops::PaddedBatchDataset(s, single, int64_t{2}, {ops::Const(s, {int64_t{4}})},
                          {ops::Const(s, int64_t{0})}, {TensorShape({-1, 4})});
  ops::PaddedBatchDatasetV2(
      s, single, int64_t{2}, {ops::Const(s, {int64_t{-1}})},
      {ops::Const(s, int64_t{0})}, false, {TensorShape({-1, -1})});
  ops::UnbatchDataset(s, batched, scalars);
  Output shuffled = ops::ShuffleDataset(s, range, int64_t{4}, int64_t{1},
                                        int64_t{2}, true, scalars);
  ops::ResourceAndDeleter seeds =
      ops::AnonymousSeedGenerator(s, int64_t{1}, int64_t{2}, true);
  ops::ShuffleDatasetV2(s, range, int64_t{4}, seeds.handle, scalars);
  ops::ShuffleDatasetV3(s, range, int64_t{4}, int64_t{1}, int64_t{2},
                        ops::DummySeedGenerator(s), true, scalars);
  ops::ShuffleAndRepeatDataset(s, range, int64_t{4}, int64_t{1}, int64_t{2},
                               int64_t{2}, true, scalars);
  ops::ShuffleAndRepeatDatasetV2(s, range, int64_t{4}, int64_t{1}, int64_t{2},
                                 int64_t{2}, seeds.handle, true, scalars);
  ops::DeleteSeedGenerator(s, seeds.handle, seeds.deleter);

  // Order, caching and what TensorFlow inserts.
  Output repeated = ops::RepeatDataset(s, shuffled, int64_t{2}, scalars);
  Output taken = ops::TakeDataset(s, repeated, int64_t{5}, scalars);
  Output skipped = ops::SkipDataset(s, taken, int64_t{1}, scalars);
  Output prefetched = ops::PrefetchDataset(s, skipped, int64_t{2}, scalars);
  ops::ZipDataset(s, {range, slices},
                  {{DT_INT64, DT_INT64}, {TensorShape({}), TensorShape({})}});
  ops::ConcatenateDataset(s, range, slices, scalars);
  ops::CacheDataset(s, range, none, scalars);
  ops::ResourceAndDeleter cache = ops::AnonymousMemoryCache(s);
  ops::CacheDatasetV2(s, range, none, cache.handle, scalars);
  ops::CacheDatasetV2(s, range, none, ops::DummyMemoryCache(s), scalars);
  ops::DeleteMemoryCache(s, cache.handle, cache.deleter);
  Output optimized = ops::OptimizeDataset(
      s, prefetched, ops::Const(s, "noop_elimination"), scalars);
  Output names = ops::Const(s, "map_fusion");
  optimized =
      ops::OptimizeDatasetV2(s, optimized, names, names, names, scalars);
  Output tuned = ops::ModelDataset(s, optimized, scalars);
  tuned = ops::MaxIntraOpParallelismDataset(s, tuned, int64_t{1}, scalars);
  tuned = ops::PrivateThreadPoolDataset(s, tuned, int64_t{2}, scalars);
  tuned = ops::OptionsDataset(s, tuned, "", scalars);
  ops::DatasetCardinality(s, tuned);
  ops::DatasetToSingleElement(s, single, {{DT_INT64}, {TensorShape({3})}});

  // Iterators.
  Output one_shot = ops::OneShotIterator(s, "all_ops_factory", scalars);
  ops::IteratorGetNext(s, one_shot, scalars);
  Output it = ops::IteratorV2(s, scalars, "all_ops_iterator");
  ops::MakeIterator(s, tuned, it);
  ops::IteratorGetNextSync(s, it, scalars);
  ops::IteratorGetNextAsOptional(s, it, scalars);
  Output handle = ops::IteratorToStringHandle(s, it);
  ops::IteratorFromStringHandle(s, handle, scalars);
  ops::IteratorFromStringHandleV2(s, handle, scalars);
  Output legacy = ops::Iterator(s, strings, "all_ops_legacy_iterator");
  ops::MakeIterator(s, records, legacy);
  ops::AnonymousIterator(s, scalars);
  ops::AnonymousIteratorV3(s, scalars);
  ops::ResourceAndDeleter anonymous = ops::AnonymousIteratorV2(s, scalars);
  ops::DeleteIterator(s, anonymous.handle, anonymous.deleter);
}

}  // namespace dflow
