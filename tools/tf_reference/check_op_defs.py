#!/usr/bin/env python3
"""TensorFlow's OpDefs for the ops TF-written graphs carry.

Usage (needs `pip install tensorflow-cpu`, 2.21 wrote the corpus):

    python3 tools/tf_reference/check_op_defs.py            # print as text
    python3 tools/tf_reference/check_op_defs.py --write    # refresh golden
    python3 tools/tf_reference/check_op_defs.py --spec Op  # dflow spec lines

Reads the op list of tests/testdata/tf_corpus/ops.txt plus EXTRA_OPS (ops
dflow declares that TF graphs carry but the corpus happens not to), and
prints TensorFlow's OpDef of each as protobuf text. With --write it stores
them as an OpList in tests/testdata/tf_op_defs.pbtxt, which
//tests/graph:tf_op_defs_test compares with dflow's registry (argument names
and types, attr names, types, defaults and allowed values), so a schema that
would refuse a TensorFlow node is found without TensorFlow installed.
--spec prints an OpDef as dflow OpDefBuilder calls (a starting point for a
new registration).
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import op_def_pb2, types_pb2  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OPS_TXT = os.path.join(ROOT, "tests/testdata/tf_corpus/ops.txt")
GOLDEN = os.path.join(ROOT, "tests/testdata/tf_op_defs.pbtxt")

# Same family as the corpus ops, written by common TF code paths.
EXTRA_OPS = [
    # Session 17: v[1:3].assign, tf.gather_nd(v), TF1 sparse optimizers,
    # tf.math.nextafter.
    "StridedSliceAssign", "ResourceStridedSliceAssign", "ResourceGatherNd",
    "SparseApplyCenteredRMSProp", "ResourceSparseApplyCenteredRMSProp",
    "SparseApplyAdagradV2", "ResourceSparseApplyAdagradV2", "NextAfter",
    "FloorDiv", "LogicalAnd", "LogicalOr", "Gather", "PreventGradient",
    "StatelessRandomNormalV2", "StatelessTruncatedNormalV2", "Less",
    "Softmax", "Sigmoid", "Tanh", "Exp", "Log", "Rsqrt", "Square",
    "Transpose", "Pad", "Unpack", "SplitV", "OnesLike", "Max", "Min",
    "Rank", "AvgPool", "AvgPoolGrad", "RandomStandardNormal", "Cumsum",
    "Cumprod", "IdentityN", "SigmoidGrad", "TanhGrad", "Add",
    # Keras's optimizers (tools/tf_probe/keras_probe.py).
    "ResourceApplyKerasMomentum", "ResourceSparseApplyKerasMomentum",
    "ApplyAdaMax", "ResourceApplyAdaMax", "ResourceApplyAdamWithAmsgrad",
    "Bucketize",
    # tf.image (issue 21) and the CIFAR-10 reader.
    "ReverseV2", "AdjustContrastv2", "ResizeBilinear", "ResizeBilinearGrad",
    "RandomUniformInt", "FixedLengthRecordReaderV2",
    # Loops' arrays and lists, bidirectional RNNs, tf.print, tf.einsum
    # (the control-flow probe, session 14).
    "TensorArrayConcatV3", "TensorArraySplitV3", "TensorListGather",
    "TensorListScatter", "TensorListScatterV2",
    "TensorListScatterIntoExistingList", "TensorListConcatV2",
    "TensorListSplit", "ReverseSequence", "StringLength", "StringFormat",
    "PrintV2", "Einsum",
    # Smaller ones from the op probe (session 14).
    "UniqueWithCounts", "Erfinv", "Ndtri", "EuclideanNorm", "Diag",
    "DiagPart", "LowerBound", "UpperBound", "Print",
    # graph/ops/math_ops_special.cc and nn_ops_activations.cc.
    "Abs", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
    "Cosh", "Asinh", "Acosh", "Atanh", "Log1p", "Expm1", "Reciprocal", "Inv",
    "Round", "Rint", "Ceil", "Erf", "Erfc", "Lgamma", "Digamma", "IsFinite",
    "IsNan", "IsInf", "RsqrtGrad", "SqrtGrad", "ReciprocalGrad", "Softplus",
    "Softsign", "Relu6", "Elu", "Selu", "LeakyRelu", "SoftplusGrad",
    "SoftsignGrad", "Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad",
    # TensorFlow 2's cond gradients (graph/ops/data_flow_ops_optional.cc).
    "OptionalFromValue", "OptionalNone", "OptionalHasValue",
    "OptionalGetValue", "VariableShape", "MatrixDiagV3", "MatrixDiagPartV3",
    # Batched products, clipping, ArgMin and the N-d index ops
    # (math_ops_batch_matmul.cc, index_ops_nd.cc,
    # shape_ops_broadcast_args.cc).
    "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "ClipByValue", "ArgMin",
    "GatherNd", "ScatterNd", "ListDiff", "BroadcastArgs",
    # Segment reductions, partition / stitch, tensor scatters and Roll
    # (index_ops_segment.cc, index_ops_partition.cc,
    # index_ops_tensor_scatter.cc, slicing_ops_roll.cc).
    "SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd",
    "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd",
    "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
    "SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
    "SparseSegmentSqrtNWithNumSegments", "SparseSegmentSumGrad",
    "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad", "DynamicPartition",
    "ParallelDynamicStitch", "TensorScatterUpdate", "TensorScatterAdd",
    "TensorScatterSub", "TensorScatterMax", "TensorScatterMin", "Roll",
    # Atrous convolution, depthwise convolution, mirror and constant pads,
    # nearest-neighbour resizing (slicing_ops_space_batch.cc, conv_ops.cc,
    # slicing_ops.cc, image_ops.cc).
    "SpaceToBatchND", "BatchToSpaceND", "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter", "MirrorPad", "MirrorPadGrad",
    "PadV2", "ResizeNearestNeighbor", "ResizeNearestNeighborGrad",
    # Binary math, tf.bitwise, matrix bands, checks and linear algebra
    # (math_ops_binary_special.cc, math_ops_bitwise.cc,
    # array_ops_matrix_band.cc, check_ops_numerics.cc, linalg_ops*.cc).
    "TruncateDiv", "TruncateMod", "Xdivy", "Xlogy", "Xlog1py", "Atan2",
    "ApproximateEqual", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert",
    "LeftShift", "RightShift", "MatrixBandPart", "MatrixSetDiagV3", "Cross",
    "CheckNumerics", "BiasAddV1", "Cholesky", "MatrixInverse",
    "MatrixDeterminant", "LogMatrixDeterminant", "MatrixSolve",
    "MatrixTriangularSolve",
    # Feature pipelines' strings and tf.lookup's hash tables
    # (string_ops_transform.cc, string_ops_convert.cc,
    # data_flow_ops_lookup.cc).
    "StringLower", "StringUpper", "StringStrip", "Substr", "ReduceJoin",
    "StaticRegexReplace", "RegexReplace", "StringSplit", "StringSplitV2",
    "StringToNumber", "AsString", "EncodeBase64", "DecodeBase64",
    "StringToHashBucketFast", "StringToHashBucketStrong",
    "StringToHashBucket", "Fingerprint", "HashTableV2",
    "InitializeTableV2", "InitializeTableFromTextFileV2",
    "LookupTableImportV2", "LookupTableFindV2",
    "LookupTableSizeV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
    "MutableDenseHashTableV2",
    "LookupTableInsertV2", "LookupTableRemoveV2", "LookupTableExportV2",
    # The regularized optimizers in their four forms
    # (graph/ops/training_ops.cc, kernels/cpu/training_ops_regularized.cc).
    "ApplyAdadelta", "ResourceApplyAdadelta", "SparseApplyAdadelta",
    "ResourceSparseApplyAdadelta", "ApplyFtrl", "ResourceApplyFtrl",
    "SparseApplyFtrl", "ResourceSparseApplyFtrl", "ApplyFtrlV2",
    "ResourceApplyFtrlV2", "SparseApplyFtrlV2", "ResourceSparseApplyFtrlV2",
    "ApplyProximalAdagrad", "ResourceApplyProximalAdagrad",
    "SparseApplyProximalAdagrad", "ResourceSparseApplyProximalAdagrad",
    "ApplyProximalGradientDescent", "ResourceApplyProximalGradientDescent",
    "SparseApplyProximalGradientDescent",
    "ResourceSparseApplyProximalGradientDescent", "ApplyAdagradDA",
    "ResourceApplyAdagradDA", "SparseApplyAdagradDA",
    "ResourceSparseApplyAdagradDA",
    # Variable scatters (graph/ops/state_ops.cc, state_ops_scatter_nd.cc).
    "ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin",
    "ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMax",
    "ResourceScatterMin", "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub",
    "ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
    # graph/ops/array_ops_snapshot.cc, math_ops_logic.cc and
    # index_ops_sparse_tensor.cc.
    "Snapshot", "EnsureShape", "Empty", "MulNoNan", "SparseToDense",
    "SparseFillEmptyRows", "SparseReshape",
    # Space/depth blocks and argmax pooling (slicing_ops_space_depth.cc,
    # conv_ops_pool_argmax.cc).
    "SpaceToDepth", "DepthToSpace", "MaxPoolWithArgmax",
    "MaxPoolGradWithArgmax",
    # 3-D pooling (conv_ops_pool3d.cc).
    "MaxPool3D", "AvgPool3D", "MaxPool3DGrad", "AvgPool3DGrad",
    # 3-D convolution (conv_ops_3d.cc).
    "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2",
    # Bicubic and area resizing, color spaces (image_ops_bicubic_area.cc,
    # image_ops_color.cc).
    "ResizeBicubic", "ResizeBicubicGrad", "ResizeArea", "RGBToHSV",
    "HSVToRGB", "AdjustHue", "AdjustSaturation",
    # Box crops and patches (image_ops_crop_and_resize.cc,
    # image_ops_patches.cc).
    "CropAndResize", "CropAndResizeGradImage", "ExtractImagePatches",
    # Text models and CTC (string_ops_text.cc, string_ops_unicode.cc,
    # ragged_ops.cc, index_ops_counts.cc, ctc_ops.cc).
    "RegexFullMatch", "StringNGrams", "UnsortedSegmentJoin", "UnicodeDecode",
    "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeTranscode",
    "UnicodeScript", "RaggedTensorToTensor", "RaggedTensorToSparse",
    "RaggedRange", "RaggedGather", "DenseBincount", "EditDistance",
    "CTCLoss", "CTCLossV2", "CTCGreedyDecoder", "CTCBeamSearchDecoder",
    # Detection post-processing, codecs and the remaining geometry
    # (image_ops_nms.cc, image_ops_codecs.cc, image_ops_geometry.cc).
    "NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3",
    "NonMaxSuppressionV4", "NonMaxSuppressionV5",
    "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression",
    "DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeGif", "DecodeBmp",
    "DecodeImage", "ExtractJpegShape", "EncodeJpeg",
    "EncodeJpegVariableQuality", "EncodePng", "ScaleAndTranslate",
    "ScaleAndTranslateGrad", "Dilation2D", "Dilation2DBackpropInput",
    "Dilation2DBackpropFilter", "ExtractVolumePatches", "DrawBoundingBoxes",
    "DrawBoundingBoxesV2", "SampleDistortedBoundingBox",
    "SampleDistortedBoundingBoxV2", "StatelessSampleDistortedBoundingBox",
    # Complex numbers, FFTs and audio (math_ops_complex.cc, spectral_ops.cc,
    # audio_ops.cc).
    "Complex", "Real", "Imag", "Angle", "ComplexAbs", "Conj", "FFT", "IFFT",
    "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "RFFT", "IRFFT", "RFFT2D",
    "IRFFT2D", "RFFT3D", "IRFFT3D", "DecodeWav", "EncodeWav",
    "AudioSpectrogram", "Mfcc",
    # Random sampling: distributions, stateless ops, shuffles and the
    # candidate samplers of sampled losses (random_ops_*.cc).
    "Multinomial", "StatelessMultinomial", "RandomGamma",
    "StatelessRandomGammaV2", "StatelessRandomGammaV3", "RandomPoissonV2",
    "StatelessRandomPoisson", "StatelessRandomBinomial",
    "ParameterizedTruncatedNormal", "StatelessParameterizedTruncatedNormal",
    "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2",
    "StatelessRandomGetKeyCounterAlg", "StatelessRandomGetAlg",
    "StatelessRandomUniform", "StatelessRandomNormal",
    "StatelessTruncatedNormal", "StatelessRandomUniformInt",
    "StatelessRandomUniformFullInt", "StatelessShuffle", "RandomIndexShuffle",
    "UniformCandidateSampler", "LogUniformCandidateSampler",
    "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler",
    "FixedUnigramCandidateSampler", "AllCandidateSampler",
    "ComputeAccidentalHits", "RngReadAndSkip", "StatefulRandomBinomial",
    # The matrix decompositions, banded solvers, special functions and the
    # counting and bit ops (linalg_ops_decomp.cc, linalg_ops_banded.cc,
    # math_ops_special_functions.cc, math_ops_histogram.cc,
    # array_ops_bitcast.cc).
    "Qr", "Svd", "SelfAdjointEigV2", "Lu", "MatrixSquareRoot",
    "MatrixLogarithm", "MatrixSolveLs", "TridiagonalSolve",
    "TridiagonalMatMul", "BandedTriangularSolve", "Igamma", "Igammac",
    "IgammaGradA", "RandomGammaGrad", "Betainc", "Zeta", "Polygamma",
    "BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1",
    "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1",
    "Dawsn", "Expint", "FresnelCos", "FresnelSin", "Spence",
    "CumulativeLogsumexp", "PopulationCount", "Bitcast", "Bincount",
    "HistogramFixedWidth",
    # tf.data in graph mode (graph/ops/dataset_ops*.cc).
    "TensorSliceDataset", "TensorDataset", "RangeDataset", "TFRecordDataset",
    "TFRecordDatasetV2", "TextLineDataset", "FixedLengthRecordDataset",
    "FixedLengthRecordDatasetV2", "MapDataset", "ParallelMapDataset",
    "ParallelMapDatasetV2", "MapAndBatchDataset", "FilterDataset",
    "FlatMapDataset", "InterleaveDataset", "ParallelInterleaveDatasetV4",
    "ReduceDataset", "OneShotIterator", "Iterator", "IteratorV2",
    "MakeIterator", "AnonymousIterator", "AnonymousIteratorV2",
    "AnonymousIteratorV3", "DeleteIterator", "IteratorGetNext",
    "IteratorGetNextSync", "IteratorGetNextAsOptional",
    "IteratorToStringHandle", "IteratorFromStringHandle",
    "IteratorFromStringHandleV2", "BatchDataset", "BatchDatasetV2",
    "ParallelBatchDataset", "PaddedBatchDataset", "PaddedBatchDatasetV2",
    "UnbatchDataset", "ShuffleDataset", "ShuffleDatasetV2", "ShuffleDatasetV3",
    "ShuffleAndRepeatDataset", "ShuffleAndRepeatDatasetV2",
    "AnonymousSeedGenerator", "DummySeedGenerator", "DeleteSeedGenerator",
    "RepeatDataset", "TakeDataset", "SkipDataset", "PrefetchDataset",
    "ZipDataset", "ConcatenateDataset", "CacheDataset", "CacheDatasetV2",
    "DummyMemoryCache", "AnonymousMemoryCache", "DeleteMemoryCache",
    "OptimizeDataset", "OptimizeDatasetV2", "ModelDataset",
    "MaxIntraOpParallelismDataset", "PrivateThreadPoolDataset",
    "OptionsDataset", "DatasetCardinality", "DatasetToSingleElement",
    # More tf.data transformations (graph/ops/dataset_ops_more.cc).
    "ShardDataset", "TakeWhileDataset", "ScanDataset", "WindowDataset",
    "UniqueDataset", "IgnoreErrorsDataset", "DirectedInterleaveDataset",
    "RandomDataset", "RewriteDataset", "GroupByWindowDataset",
    # tf.train.SequenceExample parsing.
    "ParseSequenceExampleV2", "ParseSequenceExample",
    "ParseSingleSequenceExample",
    # StagingArea (multi-GPU input pipelines: tf_cnn_benchmarks).
    "Stage", "Unstage", "StagePeek", "StageSize", "StageClear",
    # SyncReplicasOptimizer's conditional accumulators.
    "ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
    "ResourceAccumulatorTakeGradient", "ResourceAccumulatorNumAccumulated",
    "ResourceAccumulatorSetGlobalStep",
    # Everyday ops of the misc family (graph/ops/index_ops_more.cc, ...).
    "LinSpace", "UnravelIndex", "UniqueV2", "UniqueWithCountsV2",
    "NthElement", "TopK", "InTopK", "Mod", "ImageProjectiveTransformV2",
    "ImageProjectiveTransformV3", "ExtractGlimpse", "ExtractGlimpseV2",
    "MaxPoolV2", "MaxPoolGradV2", "MaxPoolGradGrad", "MaxPoolGradGradV2",
    "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatrixDiagV2",
    "MatrixDiagPartV2", "MatrixSetDiagV2", "ConjugateTranspose",
    "InplaceAdd", "InplaceSub", "InplaceUpdate", "ParallelConcat",
    "GuaranteeConst", "Timestamp", "CheckNumericsV2", "StatefulUniform",
    "StatefulUniformInt", "StatefulUniformFullInt", "StatefulStandardNormalV2",
    "StatefulTruncatedNormal", "RngSkip", "NonDeterministicInts",
    # summaries: TF1's image/audio/tensor summaries, TF2's writer ops
    "ImageSummary", "AudioSummary", "AudioSummaryV2", "TensorSummary",
    "TensorSummaryV2", "SummaryWriter", "CreateSummaryFileWriter",
    "WriteSummary", "WriteScalarSummary", "WriteHistogramSummary",
    "WriteImageSummary", "WriteAudioSummary", "WriteRawProtoSummary",
    "WriteGraphSummary", "FlushSummaryWriter", "CloseSummaryWriter",
    # Fake quantization and quantize-dequantize (graph/ops/quantization_ops.cc).
    "FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxArgsGradient",
    "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsGradient",
    "FakeQuantWithMinMaxVarsPerChannel",
    "FakeQuantWithMinMaxVarsPerChannelGradient", "QuantizeAndDequantizeV2",
    "QuantizeAndDequantizeV3", "QuantizeAndDequantizeV4",
    "QuantizeAndDequantizeV4Grad",
    # Parsing and file io (graph/ops/parsing_ops_more.cc, io_ops_files.cc,
    # io_ops_readers.cc).
    "DecodeCSV", "SerializeTensor", "ParseTensor", "DecodeCompressed",
    "DecodePaddedRaw", "DecodeJSONExample", "ReadFile", "WriteFile",
    "MatchingFiles", "TextLineReaderV2",
    # tf.sparse and tf.sets (sparse_ops*.cc).
    "SparseAdd", "SparseAddGrad", "SparseConcat", "SparseSlice",
    "SparseSliceGrad", "SparseSplit", "SparseReorder",
    "SparseTensorDenseMatMul", "SparseTensorDenseAdd", "SparseDenseCwiseAdd",
    "SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseReduceSum",
    "SparseReduceSumSparse", "SparseReduceMax", "SparseReduceMaxSparse",
    "SparseSoftmax", "SparseSparseMaximum", "SparseSparseMinimum",
    "SparseFillEmptyRowsGrad", "SparseSegmentSumGradV2",
    "SparseSegmentMeanGradV2", "SparseSegmentSqrtNGradV2", "SparseCross",
    "SparseCrossHashed", "SparseCrossV2", "SparseMatMul",
    "DenseToDenseSetOperation", "DenseToSparseSetOperation",
    "SparseToSparseSetOperation", "SetSize",
]


def corpus_ops():
    names = []
    with open(OPS_TXT) as f:
        for line in f:
            if line.startswith("#"):
                continue
            names.extend(line.split())
    return sorted(set(names) | set(EXTRA_OPS))


def type_name(t):
    return types_pb2.DataType.Name(t)[3:].lower()


def spec(op):
    def arg(a):
        if a.type_list_attr:
            t = a.type_list_attr
        else:
            t = a.type_attr or type_name(a.type)
            if a.number_attr:
                t = "%s * %s" % (a.number_attr, t)
        if a.is_ref:
            t = "Ref(%s)" % t
        return "%s: %s" % (a.name, t)

    lines = ['DFLOW_REGISTER_OP("%s")' % op.name]
    lines += ['    .Input("%s")' % arg(a) for a in op.input_arg]
    lines += ['    .Output("%s")' % arg(a) for a in op.output_arg]
    for a in op.attr:
        t = a.type
        if a.allowed_values.list.type:
            t = "{%s}" % ", ".join(
                type_name(x) for x in a.allowed_values.list.type)
        elif a.allowed_values.list.s:
            t = "{%s}" % ", ".join(
                "'%s'" % x.decode() for x in a.allowed_values.list.s)
        s = "%s: %s" % (a.name, t)
        if a.has_minimum:
            s += " >= %d" % a.minimum
        if a.HasField("default_value"):
            d = a.default_value
            which = d.WhichOneof("value")
            if which == "b":
                s += " = %s" % ("true" if d.b else "false")
            elif which == "i":
                s += " = %d" % d.i
            elif which == "f":
                s += " = %g" % d.f
            elif which == "s":
                s += " = '%s'" % d.s.decode()
            elif which == "type":
                s += " = %s" % type_name(d.type)
            elif which == "list":
                s += " = []"
            else:
                s += " = ?"
        lines.append('    .Attr("%s")' % s.replace('"', '\\"'))
    if op.is_stateful:
        lines.append("    .SetIsStateful()")
    if op.is_commutative:
        lines.append("    .SetIsCommutative()")
    if op.is_aggregate:
        lines.append("    .SetIsAggregate()")
    return "\n".join(lines)


def main(argv):
    if len(argv) > 2 and argv[1] == "--spec":
        for name in argv[2:]:
            print(spec(op_def_registry.get(name)))
        return 0
    op_list = op_def_pb2.OpList()
    for name in corpus_ops():
        op = op_def_registry.get(name)
        if op is None:
            print("# %s: not registered in this TensorFlow" % name,
                  file=sys.stderr)
            continue
        stripped = op_list.op.add()
        stripped.CopyFrom(op)
        # Docs and deprecation notes are not part of what a node validates
        # against.
        stripped.ClearField("summary")
        stripped.ClearField("description")
        for a in list(stripped.input_arg) + list(stripped.output_arg):
            a.ClearField("description")
        for a in stripped.attr:
            a.ClearField("description")
    text = text_format.MessageToString(op_list)
    if len(argv) > 1 and argv[1] == "--write":
        with open(GOLDEN, "w") as f:
            f.write("# TensorFlow 2.21's OpDefs of the ops TF graphs carry; "
                    "written by\n# tools/tf_reference/check_op_defs.py "
                    "--write.\n")
            f.write(text)
        print("wrote %d OpDefs to %s" % (len(op_list.op), GOLDEN))
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
