// Every op wrapper of the C++ builder API: include this one header to build
// graphs (`ops::MatMul`, `ops::Placeholder`, operators on Output, ...).
#ifndef DFLOW_GRAPH_OPS_OPS_H_
#define DFLOW_GRAPH_OPS_OPS_H_

#include "graph/ops/array_ops.h"
#include "graph/ops/audio_ops.h"
#include "graph/ops/check_ops.h"
#include "graph/ops/collective_ops.h"
#include "graph/ops/conv_ops.h"
#include "graph/ops/ctc_ops.h"
#include "graph/ops/data_flow_ops.h"
#include "graph/ops/dataset_ops.h"
#include "graph/ops/image_ops.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/io_ops.h"
#include "graph/ops/linalg_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/nn_ops.h"
#include "graph/ops/parsing_ops.h"
#include "graph/ops/quantization_ops.h"
#include "graph/ops/ragged_ops.h"
#include "graph/ops/random_ops.h"
#include "graph/ops/shape_ops.h"
#include "graph/ops/slicing_ops.h"
#include "graph/ops/sparse_ops.h"
#include "graph/ops/spectral_ops.h"
#include "graph/ops/state_ops.h"
#include "graph/ops/string_ops.h"
#include "graph/ops/summary_ops.h"
#include "graph/ops/training_ops.h"
#include "graph/scope.h"

#endif  // DFLOW_GRAPH_OPS_OPS_H_
