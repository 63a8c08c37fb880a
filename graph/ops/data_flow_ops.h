// Queue ops (FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2 and
// their enqueue, dequeue, close and size ops), stacks (StackV2 and its
// push, pop and close: data_flow_ops_stack.cc) and TensorArrays
// (TensorArrayV3 and its read, write, gather, scatter, grad, size and close:
// data_flow_ops_tensor_array.cc): schemas only, for graphs TensorFlow
// wrote; the CPU kernels are kernels/cpu/data_flow_ops*.cc.
#ifndef DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_
#define DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_

#endif  // DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_
