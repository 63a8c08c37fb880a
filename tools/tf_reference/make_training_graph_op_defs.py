#!/usr/bin/env python3
"""TensorFlow's OpDefs of the ops TF-written training graphs carry, for
tests/graph/ops/training_graph_op_defs_test (which checks dflow registers
each one identically), in two sets: `training` (nn, training, variable and
summary ops) and `input_pipeline` (queues, readers, tf.Example parsing).

Rerun from the repository root:

    python3 tools/tf_reference/make_training_graph_op_defs.py training \
        > tests/testdata/tf_op_defs/training_graph_ops.pbtxt
    python3 tools/tf_reference/make_training_graph_op_defs.py input_pipeline \
        > tests/testdata/tf_op_defs/input_pipeline_ops.pbtxt
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf
from tensorflow.core.framework import op_def_pb2
from tensorflow.python.framework import op_def_registry

OPS = """IsVariableInitialized VarIsInitializedOp ResourceGather
ResourceScatterAdd ResourceScatterSub ResourceScatterUpdate ScatterAdd
ScatterSub ScatterUpdate ApplyAdagrad ResourceApplyAdagrad ApplyAdagradV2
ResourceApplyAdagradV2 ApplyRMSProp ResourceApplyRMSProp ApplyCenteredRMSProp
ResourceApplyCenteredRMSProp SparseApplyAdagrad ResourceSparseApplyAdagrad
SparseApplyMomentum ResourceSparseApplyMomentum SparseApplyRMSProp
ResourceSparseApplyRMSProp FusedBatchNorm FusedBatchNormV2 FusedBatchNormV3
FusedBatchNormGrad FusedBatchNormGradV2 FusedBatchNormGradV3 ScalarSummary
HistogramSummary MergeSummary""".split()

INPUT_PIPELINE_OPS = """FIFOQueueV2 RandomShuffleQueueV2 PaddingFIFOQueueV2
QueueEnqueueV2 QueueEnqueueManyV2 QueueDequeueV2 QueueDequeueManyV2
QueueDequeueUpToV2 QueueCloseV2 QueueSizeV2 QueueIsClosedV2 TFRecordReaderV2
ReaderReadV2 ReaderReadUpToV2 ParseExampleV2 ParseSingleExample DecodeRaw
RandomShuffle""".split()

SETS = {"training": OPS, "input_pipeline": INPUT_PIPELINE_OPS}


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "training"
    ops = op_def_pb2.OpList()
    for name in SETS[which]:
        op = ops.op.add()
        op.CopyFrom(op_def_registry.get(name))
    print("# TensorFlow %s's OpDefs (make_training_graph_op_defs.py)."
          % tf.__version__)
    print(ops)


if __name__ == "__main__":
    main()
