// The loop accumulators' part of the every-op graph (all_ops_graph.h): a
// gradient loop's stacks, dynamic_rnn's TensorArrays and their gradients,
// and TensorFlow 2's TensorLists.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void AddLoopAccumulatorsToEveryOpGraph(const Scope& root, Output h) {
  // Loop accumulators (graph/ops/data_flow_ops.h): a gradient loop's stack,
  // dynamic_rnn's TensorArrays and their gradient.
  Scope acc = root.NewSubScope("accumulators");
  Operation stack = OpBuilder(acc, "StackV2")
                        .Input(ops::Const(acc, -1))
                        .Attr("elem_type", DT_FLOAT)
                        .Finalize();
  OpBuilder(acc, "StackPushV2").Input(stack.output(0)).Input(h).Finalize();
  OpBuilder(acc, "StackPopV2")
      .Input(stack.output(0))
      .Attr("elem_type", DT_FLOAT)
      .Finalize();
  OpBuilder(acc, "StackCloseV2").Input(stack.output(0)).Finalize();
  Operation array = OpBuilder(acc, "TensorArrayV3")
                        .Input(ops::Const(acc, 3))
                        .Attr("dtype", DT_FLOAT)
                        .Finalize();
  Output ta_index = ops::Const(acc, 0);
  Output ta_indices = ops::Const(acc, {0, 1, 2});
  Output written = OpBuilder(acc, "TensorArrayWriteV3")
                       .Input(array.output(0))
                       .Input(ta_index)
                       .Input(h)
                       .Input(array.output(1))
                       .Finalize()
                       .output(0);
  OpBuilder(acc, "TensorArrayReadV3")
      .Input(array.output(0))
      .Input(ta_index)
      .Input(written)
      .Attr("dtype", DT_FLOAT)
      .Finalize();
  Output scattered = OpBuilder(acc, "TensorArrayScatterV3")
                         .Input(array.output(0))
                         .Input(ta_indices)
                         .Input(ops::Const(acc, {1.0f, 2.0f, 3.0f}))
                         .Input(array.output(1))
                         .Finalize()
                         .output(0);
  OpBuilder(acc, "TensorArrayGatherV3")
      .Input(array.output(0))
      .Input(ta_indices)
      .Input(scattered)
      .Attr("dtype", DT_FLOAT)
      .Finalize();
  OpBuilder(acc, "TensorArraySizeV3")
      .Input(array.output(0))
      .Input(array.output(1))
      .Finalize();
  OpBuilder(acc, "TensorArrayGradV3")
      .Input(array.output(0))
      .Input(array.output(1))
      .Attr("source", "gradients")
      .Finalize();
  Output concatenated = OpBuilder(acc, "TensorArrayConcatV3")
                            .Input(array.output(0))
                            .Input(scattered)
                            .Attr("dtype", DT_FLOAT)
                            .Finalize()
                            .output(0);
  OpBuilder(acc, "TensorArraySplitV3")
      .Input(array.output(0))
      .Input(concatenated)
      .Input(ops::Const(acc, {int64_t{1}, int64_t{1}, int64_t{1}}))
      .Input(array.output(1))
      .Finalize();
  OpBuilder(acc, "TensorArrayCloseV3").Input(array.output(0)).Finalize();
  // TensorFlow 2's TensorLists (DT_VARIANT values), with AddN and ZerosLike
  // of lists.
  Output element_shape = ops::Const(acc, {3});
  Output row = ops::Const(acc, {1.0f, 2.0f, 3.0f});
  Output empty_list = OpBuilder(acc, "EmptyTensorList")
                          .Input(element_shape)
                          .Input(ops::Const(acc, -1))
                          .Attr("element_dtype", DT_FLOAT)
                          .Finalize()
                          .output(0);
  Output pushed = OpBuilder(acc, "TensorListPushBack")
                      .Input(empty_list)
                      .Input(row)
                      .Finalize()
                      .output(0);
  OpBuilder(acc, "TensorListPopBack")
      .Input(pushed)
      .Input(element_shape)
      .Attr("element_dtype", DT_FLOAT)
      .Finalize();
  Output reserved = OpBuilder(acc, "TensorListReserve")
                        .Input(element_shape)
                        .Input(ops::Const(acc, 2))
                        .Attr("element_dtype", DT_FLOAT)
                        .Finalize()
                        .output(0);
  Output set = OpBuilder(acc, "TensorListSetItem")
                   .Input(reserved)
                   .Input(ops::Const(acc, 1))
                   .Input(row)
                   .Finalize()
                   .output(0);
  OpBuilder(acc, "TensorListGetItem")
      .Input(set)
      .Input(ops::Const(acc, 0))
      .Input(element_shape)
      .Attr("element_dtype", DT_FLOAT)
      .Finalize();
  OpBuilder(acc, "TensorListStack")
      .Input(set)
      .Input(element_shape)
      .Attr("element_dtype", DT_FLOAT)
      .Finalize();
  Output from_tensor =
      OpBuilder(acc, "TensorListFromTensor")
          .Input(ops::Const(acc, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f},
                            TensorShape({2, 3})))
          .Input(element_shape)
          .Finalize()
          .output(0);
  OpBuilder(acc, "TensorListLength").Input(from_tensor).Finalize();
  Output list_rows = ops::Const(acc, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f},
                                TensorShape({2, 3}));
  Output row_ids = ops::Const(acc, {1, 0});
  OpBuilder(acc, "TensorListGather")
      .Input(from_tensor)
      .Input(row_ids)
      .Input(element_shape)
      .Attr("element_dtype", DT_FLOAT)
      .Finalize();
  OpBuilder(acc, "TensorListScatter")
      .Input(list_rows)
      .Input(row_ids)
      .Input(element_shape)
      .Finalize();
  OpBuilder(acc, "TensorListScatterV2")
      .Input(list_rows)
      .Input(row_ids)
      .Input(element_shape)
      .Input(ops::Const(acc, 3))
      .Finalize();
  OpBuilder(acc, "TensorListScatterIntoExistingList")
      .Input(reserved)
      .Input(list_rows)
      .Input(row_ids)
      .Finalize();
  Output split_list = OpBuilder(acc, "TensorListSplit")
                          .Input(ops::Reshape(acc, list_rows, {-1}))
                          .Input(ops::Const(acc, -1))
                          .Input(ops::Const(acc, {int64_t{2}, int64_t{4}}))
                          .Finalize()
                          .output(0);
  OpBuilder(acc, "TensorListConcatV2")
      .Input(split_list)
      .Input(ops::Const(acc, -1))
      .Input(ops::Const(acc, Tensor::FromVector<int64_t>({}, TensorShape({0}))))
      .Attr("element_dtype", DT_FLOAT)
      .Finalize();
  OpBuilder(acc, "TensorListElementShape")
      .Input(from_tensor)
      .Attr("shape_type", DT_INT32)
      .Finalize();
  ops::AddN(acc, {set, from_tensor});
  ops::ZerosLike(acc, from_tensor);
  Output flags = ops::Const(
      acc, Tensor::FromVector<bool>({true, false}, TensorShape({2})));
  ops::All(acc, flags, 0);
  ops::Any(acc, flags, 0);
}

}  // namespace dflow
