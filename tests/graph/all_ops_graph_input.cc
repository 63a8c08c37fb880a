// The input-pipeline part of the every-op graph (all_ops_graph.h): queues,
// the record readers, tf.Example parsing (graph/ops/data_flow_ops.h,
// parsing_ops.h, the readers of io_ops), a StagingArea and a conditional
// accumulator.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void AddInputPipelineOpsToEveryOpGraph(const Scope& root, Output h) {
  Scope in = root.NewSubScope("input");
  const std::vector<DataType> string_type = {DT_STRING};
  Operation files = OpBuilder(in, "FIFOQueueV2")
                        .Attr("component_types", string_type)
                        .Attr("capacity", 32)
                        .Finalize();
  Output file_names = ops::Const(
      in, Tensor::FromVector<std::string>({"a.tfrecords"}, TensorShape({1})));
  OpBuilder(in, "QueueEnqueueManyV2")
      .Input(files.output(0))
      .InputList({file_names})
      .Finalize();
  OpBuilder(in, "QueueEnqueueV2")
      .Input(files.output(0))
      .InputList({ops::Const(in, "b.tfrecords")})
      .Finalize();
  OpBuilder(in, "QueueDequeueV2")
      .Input(files.output(0))
      .Attr("component_types", string_type)
      .Finalize();
  OpBuilder(in, "QueueDequeueUpToV2")
      .Input(files.output(0))
      .Input(2)
      .Attr("component_types", string_type)
      .Finalize();
  OpBuilder(in, "QueueSizeV2").Input(files.output(0)).Finalize();
  OpBuilder(in, "QueueIsClosedV2").Input(files.output(0)).Finalize();
  OpBuilder(in, "QueueCloseV2").Input(files.output(0)).Finalize();
  Operation reader = OpBuilder(in, "TFRecordReaderV2").Finalize();
  OpBuilder(in, "FixedLengthRecordReaderV2")
      .Attr("record_bytes", int64_t{3073})
      .Finalize();
  Output serialized_record = OpBuilder(in, "ReaderReadV2")
                                 .Input(reader.output(0))
                                 .Input(files.output(0))
                                 .Finalize()
                                 .output(1);
  OpBuilder(in, "ReaderReadUpToV2")
      .Input(reader.output(0))
      .Input(files.output(0))
      .Input(ops::Const(in, int64_t{4}))
      .Finalize();
  const std::vector<std::string> no_keys;
  Output empty_keys =
      ops::Const(in, Tensor::FromVector<std::string>({}, TensorShape({0})));
  Operation parsed =
      OpBuilder(in, "ParseExampleV2")
          .Input(serialized_record)
          .Input(empty_keys)
          .Input(empty_keys)
          .Input(ops::Const(
              in, Tensor::FromVector<std::string>({"label"}, TensorShape({1}))))
          .Input(empty_keys)
          .InputList({ops::Const(
              in, Tensor::FromVector<int64_t>({}, TensorShape({0})))})
          .Attr("num_sparse", 0)
          .Attr("sparse_types", std::vector<DataType>{})
          .Attr("ragged_value_types", std::vector<DataType>{})
          .Attr("ragged_split_types", std::vector<DataType>{})
          .Attr("dense_shapes", std::vector<TensorShape>{TensorShape({})})
          .Finalize();
  OpBuilder(in, "ParseSingleExample")
      .Input(serialized_record)
      .InputList({ops::Const(
          in, Tensor::FromVector<std::string>({}, TensorShape({0})))})
      .Attr("num_sparse", 0)
      .Attr("sparse_keys", no_keys)
      .Attr("dense_keys", std::vector<std::string>{"image_raw"})
      .Attr("sparse_types", std::vector<DataType>{})
      .Attr("dense_shapes", std::vector<TensorShape>{TensorShape({})})
      .Finalize();
  // tf.train.SequenceExample parsing: a context dense feature (int64
  // "length") and a dense feature list (float "frames", rows of 2).
  auto keys = [&](std::vector<std::string> k) {
    const int64_t n = static_cast<int64_t>(k.size());
    return ops::Const(in, Tensor::FromVector<std::string>(k, TensorShape({n})));
  };
  Output length_default = ops::Const(in, int64_t{0});
  OpBuilder(in, "ParseSequenceExampleV2")
      .Input(serialized_record)
      .Input(ops::Const(in, std::string("")))
      .Input(empty_keys)
      .Input(keys({"length"}))
      .Input(empty_keys)
      .Input(empty_keys)
      .Input(keys({"frames"}))
      .Input(empty_keys)
      .Input(ops::Const(in, Tensor::FromVector<bool>({true}, TensorShape({1}))))
      .InputList({length_default})
      .Attr("Tcontext_dense", std::vector<DataType>{DT_INT64})
      .Attr("context_dense_shapes", std::vector<TensorShape>{TensorShape({})})
      .Attr("Nfeature_list_dense", 1)
      .Attr("feature_list_dense_types", std::vector<DataType>{DT_FLOAT})
      .Attr("feature_list_dense_shapes",
            std::vector<TensorShape>{TensorShape({2})})
      .Finalize();
  OpBuilder(in, "ParseSequenceExample")
      .Input(ops::Reshape(in, serialized_record, {1}))
      .Input(keys({""}))
      .InputList({length_default})
      .Attr("feature_list_dense_missing_assumed_empty", no_keys)
      .Attr("context_sparse_keys", no_keys)
      .Attr("context_dense_keys", std::vector<std::string>{"length"})
      .Attr("feature_list_sparse_keys", no_keys)
      .Attr("feature_list_dense_keys", std::vector<std::string>{"frames"})
      .Attr("Ncontext_dense", 1)
      .Attr("Nfeature_list_dense", 1)
      .Attr("Tcontext_dense", std::vector<DataType>{DT_INT64})
      .Attr("feature_list_dense_types", std::vector<DataType>{DT_FLOAT})
      .Attr("context_dense_shapes", std::vector<TensorShape>{TensorShape({})})
      .Attr("feature_list_dense_shapes",
            std::vector<TensorShape>{TensorShape({2})})
      .Finalize();
  OpBuilder(in, "ParseSingleSequenceExample")
      .Input(serialized_record)
      .Input(empty_keys)
      .InputList({})
      .InputList({ops::Const(in, std::string("length"))})
      .InputList({})
      .InputList({ops::Const(in, std::string("frames"))})
      .InputList({length_default})
      .Input(ops::Const(in, std::string("")))
      .Attr("Ncontext_dense", 1)
      .Attr("Nfeature_list_dense", 1)
      .Attr("Tcontext_dense", std::vector<DataType>{DT_INT64})
      .Attr("feature_list_dense_types", std::vector<DataType>{DT_FLOAT})
      .Attr("context_dense_shapes", std::vector<TensorShape>{TensorShape({})})
      .Attr("feature_list_dense_shapes",
            std::vector<TensorShape>{TensorShape({2})})
      .Finalize();
  Output pixels = OpBuilder(in, "DecodeRaw")
                      .Input(serialized_record)
                      .Attr("out_type", DT_UINT8)
                      .Finalize()
                      .output(0);
  OpBuilder(in, "RandomShuffle").Input(pixels).Finalize();
  const std::vector<DataType> example_types = {DT_UINT8, DT_INT64};
  Operation shuffled = OpBuilder(in, "RandomShuffleQueueV2")
                           .Attr("component_types", example_types)
                           .Attr("capacity", 100)
                           .Attr("min_after_dequeue", 10)
                           .Finalize();
  OpBuilder(in, "QueueDequeueManyV2")
      .Input(shuffled.output(0))
      .Input(4)
      .Attr("component_types", example_types)
      .Finalize();
  OpBuilder(in, "PaddingFIFOQueueV2")
      .Attr("component_types", example_types)
      .Attr("shapes",
            std::vector<TensorShape>{TensorShape({-1}), TensorShape({})})
      .Finalize();
  (void)parsed;
  // A StagingArea (graph/ops/data_flow_ops_staging.cc): its ops name it by
  // shared_name.
  const std::vector<DataType> staged_types = {DT_FLOAT, DT_STRING};
  auto staging = [&](const char* op) {
    return OpBuilder(in, op)
        .Attr("shared_name", "all_ops_staging")
        .Attr("capacity", 2);
  };
  staging("Stage").InputList({h, ops::Const(in, "x")}).Finalize();
  staging("Unstage").Attr("dtypes", staged_types).Finalize();
  staging("StagePeek")
      .Input(ops::Const(in, 0))
      .Attr("dtypes", staged_types)
      .Finalize();
  staging("StageSize").Attr("dtypes", staged_types).Finalize();
  staging("StageClear").Attr("dtypes", staged_types).Finalize();
  // A conditional accumulator (graph/ops/data_flow_ops_accumulator.cc), as
  // SyncReplicasOptimizer writes one per variable.
  Output accumulator =
      OpBuilder(in, "ResourceConditionalAccumulator")
          .Attr("dtype", DT_FLOAT)
          .Attr("shape", TensorShape::Unknown())
          .Attr("shared_name", "all_ops_accumulator")
          .Finalize()
          .output(0);
  Output local_step = ops::Const(in, int64_t{0});
  OpBuilder(in, "ResourceAccumulatorApplyGradient")
      .Input(accumulator)
      .Input(local_step)
      .Input(h)
      .Finalize();
  OpBuilder(in, "ResourceAccumulatorTakeGradient")
      .Input(accumulator)
      .Input(ops::Const(in, 1))
      .Attr("dtype", DT_FLOAT)
      .Finalize();
  OpBuilder(in, "ResourceAccumulatorNumAccumulated").Input(accumulator).Finalize();
  OpBuilder(in, "ResourceAccumulatorSetGlobalStep")
      .Input(accumulator)
      .Input(local_step)
      .Finalize();
}

}  // namespace dflow
