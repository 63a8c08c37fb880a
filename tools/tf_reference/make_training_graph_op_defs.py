#!/usr/bin/env python3
"""TensorFlow's OpDefs of the nn, training, variable and summary ops that
TF-written training graphs carry, for tests/graph/ops/training_graph_op_defs_test
(which checks dflow registers each one identically).

Rerun from the repository root:

    python3 tools/tf_reference/make_training_graph_op_defs.py \
        > tests/testdata/tf_op_defs/training_graph_ops.pbtxt
"""

import os

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


def main():
    ops = op_def_pb2.OpList()
    for name in OPS:
        op = ops.op.add()
        op.CopyFrom(op_def_registry.get(name))
    print("# TensorFlow %s's OpDefs (make_training_graph_op_defs.py)."
          % tf.__version__)
    print(ops)


if __name__ == "__main__":
    main()
