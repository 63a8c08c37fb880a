// tf.Example parsing (ParseExampleV2, ParseSingleExample) and DecodeRaw:
// schemas for graphs TensorFlow wrote; the CPU kernels are
// kernels/cpu/parsing_ops.cc.
#ifndef DFLOW_GRAPH_OPS_PARSING_OPS_H_
#define DFLOW_GRAPH_OPS_PARSING_OPS_H_

#endif  // DFLOW_GRAPH_OPS_PARSING_OPS_H_
