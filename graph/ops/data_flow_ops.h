// Queue ops (FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2 and
// their enqueue, dequeue, close and size ops): schemas only, for graphs
// TensorFlow wrote; the CPU kernels are kernels/cpu/data_flow_ops.cc.
#ifndef DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_
#define DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_

#endif  // DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_
