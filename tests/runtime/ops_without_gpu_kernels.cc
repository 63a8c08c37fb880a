// The op lists of kernel_registry_test's GPU-definition check, kept apart
// from the test because they grow with every op family.
#include "tests/runtime/ops_without_gpu_kernels.h"

#include <string>

#include "absl/container/flat_hash_set.h"

namespace dflow {
namespace testing_kernels {

// CPU-only in TensorFlow 2.21 as here: the checkpoint and file-name
// string ops (graph/ops/io_ops.h), StaticRegexFullMatch, the summaries,
// and the sparse Momentum and RMSProp updates (of the sparse optimizers
// only Adagrad has GPU kernels).
const absl::flat_hash_set<std::string>& CpuOnlyOps() {
  static const auto* const ops = new absl::flat_hash_set<std::string>{
      "SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename",
      "ShardedFilespec", "StringJoin", "StaticRegexFullMatch", "ScalarSummary",
      "HistogramSummary", "MergeSummary",
      // summaries: TF registers these on the CPU only
      "ImageSummary", "AudioSummary", "AudioSummaryV2", "TensorSummary",
      "TensorSummaryV2", "SummaryWriter", "CreateSummaryFileWriter",
      "WriteSummary", "WriteScalarSummary", "WriteHistogramSummary",
      "WriteImageSummary", "WriteAudioSummary", "WriteRawProtoSummary",
      "WriteGraphSummary", "FlushSummaryWriter", "CloseSummaryWriter",
      "SparseApplyMomentum", "SparseApplyRMSProp",
      "ResourceSparseApplyMomentum", "ResourceSparseApplyRMSProp",
      // Input pipelines: queues,
      // readers, parsing run on the
      // host in TensorFlow too.
      "FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2",
      "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2",
      "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2",
      "QueueIsClosedV2", "TFRecordReaderV2", "ReaderReadV2", "ReaderReadUpToV2",
      "FixedLengthRecordReaderV2", "ParseExampleV2", "ParseSingleExample",
      "ParseSequenceExampleV2", "ParseSequenceExample",
      "ParseSingleSequenceExample",
      "DecodeRaw", "RandomShuffle",
      // Parsing and file io (parsing_ops_*.cc, io_ops_files.cc).
      "TextLineReaderV2", "DecodeCSV", "SerializeTensor", "ParseTensor",
      "DecodeCompressed", "DecodePaddedRaw", "DecodeJSONExample", "ReadFile",
      "WriteFile", "MatchingFiles",
      // Counting epochs (string_input_producer's num_epochs).
      "CountUpTo", "ResourceCountUpTo",
      // Audio (kernels/cpu/audio_ops_*.cc): CPU-only in TF too.
      "DecodeWav", "EncodeWav", "AudioSpectrogram", "Mfcc"};
  return *ops;
}

// No GPU definition yet, though TensorFlow has one: conditionals
// (Switch and Merge run on the CPU under soft placement until their GPU
// kernels come; If/StatelessIf never reach placement, the
// lower_functional_if pass replaces them, and _ToBool is its helper)
// and Unique.
// The loop primitives too: loops run on CPU devices only so far (While
// and StatelessWhile are lowered to them before placement); and the
// stacks, TensorArrays and TensorLists of loop gradients and
// dynamic_rnn. And the ops added from the probes (below).
const absl::flat_hash_set<std::string>& OpsWithoutGpuKernelYet() {
  static const auto* const ops = new absl::flat_hash_set<std::string>{
      // Session 17: variable slices and gathers, sparse optimizers.
      "StridedSliceAssign", "ResourceStridedSliceAssign", "ResourceGatherNd",
      "SparseApplyCenteredRMSProp", "ResourceSparseApplyCenteredRMSProp",
      "SparseApplyAdagradV2", "ResourceSparseApplyAdagradV2", "NextAfter",
      "Switch", "ResourceApplyKerasMomentum",
      "ResourceSparseApplyKerasMomentum", "ApplyAdaMax", "ResourceApplyAdaMax",
      "ResourceApplyAdamWithAmsgrad", "Bucketize", "RefSwitch", "Merge",
      "RefMerge", "If", "StatelessIf", "_ToBool", "Unique", "StringLower",
      "StringUpper", "StringStrip", "Substr", "ReduceJoin",
      "StaticRegexReplace", "RegexReplace", "StringSplit", "StringSplitV2",
      "StringToNumber", "AsString", "EncodeBase64", "DecodeBase64",
      "StringToHashBucketFast", "StringToHashBucketStrong",
      "StringToHashBucket", "Fingerprint", "HashTableV2", "InitializeTableV2",
      "InitializeTableFromTextFileV2", "LookupTableImportV2",
      "LookupTableFindV2", "LookupTableSizeV2", "MutableHashTableV2",
      "MutableHashTableOfTensorsV2", "MutableDenseHashTableV2",
      "LookupTableInsertV2", "LookupTableRemoveV2", "LookupTableExportV2",
      "Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
      "RefNextIteration", "LoopCond", "ControlTrigger", "StackV2",
      "StackPushV2", "StackPopV2", "StackCloseV2", "TensorArrayV3",
      "TensorArrayGradV3", "TensorArrayWriteV3", "TensorArrayReadV3",
      "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArraySizeV3",
      "TensorArrayCloseV3", "While", "StatelessWhile", "EmptyTensorList",
      "TensorListReserve", "TensorListFromTensor", "TensorListPushBack",
      "TensorListPopBack", "TensorListSetItem", "TensorListGetItem",
      "TensorListStack", "TensorListLength", "TensorListElementShape",
      "TensorArrayConcatV3", "TensorArraySplitV3", "TensorListGather",
      "TensorListScatter", "TensorListScatterV2",
      "TensorListScatterIntoExistingList", "TensorListConcatV2",
      "TensorListSplit", "ReverseSequence", "StringLength", "StringFormat",
      "PrintV2", "Einsum", "UniqueWithCounts", "Erfinv", "Ndtri",
      "EuclideanNorm", "Diag", "DiagPart", "LowerBound", "UpperBound", "Print",
      "All", "Any", "PartitionedCall", "StatefulPartitionedCall", "Case",
      "StatelessCase", "_SwitchN",
      // The ops added from the probes
      // (tools/tf_probe/, session 13):
      // CPU kernels only so far.
      "Abs", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
      "Cosh", "Asinh", "Acosh", "Atanh", "Log1p", "Expm1", "Reciprocal", "Inv",
      "Round", "Rint", "Ceil", "Erf", "Erfc", "Lgamma", "Digamma", "IsFinite",
      "IsNan", "IsInf", "RsqrtGrad", "SqrtGrad", "ReciprocalGrad", "Softplus",
      "Softsign", "Relu6", "Elu", "Selu", "LeakyRelu", "SoftplusGrad",
      "SoftsignGrad", "Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad",
      "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "ClipByValue", "ArgMin",
      "GatherNd", "ScatterNd", "ListDiff", "BroadcastArgs", "VariableShape",
      "MatrixDiagV3", "MatrixDiagPartV3", "OptionalFromValue", "OptionalNone",
      "OptionalHasValue", "OptionalGetValue",
      // Segment reductions, partition,
      // tensor scatters, Roll.
      "SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd",
      "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd",
      "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
      "SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
      "SparseSegmentSqrtNWithNumSegments", "SparseSegmentSumGrad",
      "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad", "DynamicPartition",
      "ParallelDynamicStitch", "TensorScatterUpdate", "TensorScatterAdd",
      "TensorScatterSub", "TensorScatterMax", "TensorScatterMin", "Roll",
      "SpaceToBatchND", "BatchToSpaceND", "DepthwiseConv2dNative",
      // and its two gradients.
      "DepthwiseConv2dNative"
      "BackpropInput",
      "DepthwiseConv2dNative"
      "BackpropFilter",
      "MirrorPad", "MirrorPadGrad", "PadV2", "ResizeNearestNeighbor",
      "ResizeNearestNeighborGrad",
      // Session 14's probe ops.
      "TruncateDiv", "TruncateMod", "Xdivy", "Xlogy", "Xlog1py", "Atan2",
      "ApproximateEqual", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert",
      "LeftShift", "RightShift", "MatrixBandPart", "MatrixSetDiagV3", "Cross",
      "CheckNumerics", "BiasAddV1", "Cholesky", "MatrixInverse",
      "MatrixDeterminant", "LogMatrixDeterminant", "MatrixSolve",
      "MatrixTriangularSolve",
      // Regularized optimizers
      // (training_ops_regularized.cc).
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
      // Variable scatters
      // (state_ops_scatter.cc,
      // index_ops_scatter_nd_variable.cc).
      "ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin",
      "ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMax",
      "ResourceScatterMin", "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub",
      "ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
      // Snapshot, EnsureShape, Empty,
      // MulNoNan and the SparseTensor
      // ops.
      "Snapshot", "EnsureShape", "Empty", "MulNoNan", "SparseToDense",
      "SparseFillEmptyRows", "SparseReshape",
      // ops_e: space/depth, argmax
      // pooling.
      "SpaceToDepth", "DepthToSpace", "MaxPoolWithArgmax",
      "MaxPoolGradWithArgmax", "MaxPool3D", "AvgPool3D", "MaxPool3DGrad",
      "AvgPool3DGrad", "Conv3D", "Conv3DBackpropInputV2",
      "Conv3DBackpropFilterV2", "ResizeBicubic", "ResizeBicubicGrad",
      "ResizeArea", "RGBToHSV", "HSVToRGB", "AdjustHue", "AdjustSaturation",
      "CropAndResize", "CropAndResizeGradImage", "ExtractImagePatches",
      // Text models and CTC.
      "RegexFullMatch", "StringNGrams", "UnsortedSegmentJoin", "UnicodeDecode",
      "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeTranscode",
      "UnicodeScript", "RaggedTensorToTensor", "RaggedTensorToSparse",
      "RaggedRange", "RaggedGather", "DenseBincount", "EditDistance", "CTCLoss",
      "CTCLossV2", "CTCGreedyDecoder", "CTCBeamSearchDecoder",
      // images: NMS, codecs,
      // geometry.
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
      // Complex numbers and FFTs
      // (cwise_ops_complex.cc,
      // spectral_ops.cc).
      "Complex", "Real", "Imag", "Angle", "ComplexAbs", "Conj", "FFT", "IFFT",
      "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "RFFT", "IRFFT", "RFFT2D",
      "IRFFT2D", "RFFT3D", "IRFFT3D",
      // random: sampled
      // distributions, stateless
      // ops, shuffles, candidate
      // samplers.
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
      // linalg: decompositions,
      // banded solvers, special
      // functions, counting, bits.
      "Qr", "Svd", "SelfAdjointEigV2", "Lu", "MatrixSquareRoot",
      "MatrixLogarithm", "MatrixSolveLs", "TridiagonalSolve",
      "TridiagonalMatMul", "BandedTriangularSolve", "Igamma", "Igammac",
      "IgammaGradA", "RandomGammaGrad", "Betainc", "Zeta", "Polygamma",
      "BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1",
      "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1",
      "Dawsn", "Expint", "FresnelCos", "FresnelSin", "Spence",
      "CumulativeLogsumexp", "PopulationCount", "Bitcast", "Bincount",
      "HistogramFixedWidth",
      // tf.data: datasets and
      // iterators (host-side).
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
      "UnbatchDataset", "ShuffleDataset", "ShuffleDatasetV2",
      "ShuffleDatasetV3", "ShuffleAndRepeatDataset",
      "ShuffleAndRepeatDatasetV2", "AnonymousSeedGenerator",
      "DummySeedGenerator", "DeleteSeedGenerator", "RepeatDataset",
      "TakeDataset", "SkipDataset", "PrefetchDataset", "ZipDataset",
      "ConcatenateDataset", "CacheDataset", "CacheDatasetV2",
      "DummyMemoryCache", "AnonymousMemoryCache", "DeleteMemoryCache",
      "OptimizeDataset", "OptimizeDatasetV2", "ModelDataset",
      "MaxIntraOpParallelismDataset", "PrivateThreadPoolDataset",
      "OptionsDataset", "DatasetCardinality", "DatasetToSingleElement",
      "ShardDataset", "TakeWhileDataset", "ScanDataset", "WindowDataset",
      "UniqueDataset", "IgnoreErrorsDataset", "DirectedInterleaveDataset",
      "RandomDataset", "RewriteDataset", "GroupByWindowDataset",
      // StagingArea.
      "Stage", "Unstage", "StagePeek", "StageSize", "StageClear",
      // SyncReplicasOptimizer's conditional accumulators.
      "ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
      "ResourceAccumulatorTakeGradient", "ResourceAccumulatorNumAccumulated",
      "ResourceAccumulatorSetGlobalStep",
      // The misc family.
      "LinSpace", "UnravelIndex", "UniqueV2", "UniqueWithCountsV2",
      "NthElement", "TopK", "InTopK", "Mod", "ImageProjectiveTransformV2",
      "ImageProjectiveTransformV3", "ExtractGlimpse", "ExtractGlimpseV2",
      "MaxPoolV2", "MaxPoolGradV2", "MaxPoolGradGrad", "MaxPoolGradGradV2",
      "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatrixDiagV2",
      "MatrixDiagPartV2", "MatrixSetDiagV2", "ConjugateTranspose", "InplaceAdd",
      "InplaceSub", "InplaceUpdate", "ParallelConcat", "GuaranteeConst",
      "Timestamp", "CheckNumericsV2", "StatefulUniform", "StatefulUniformInt",
      "StatefulUniformFullInt", "StatefulStandardNormalV2",
      "StatefulTruncatedNormal", "RngSkip", "NonDeterministicInts",
      // Quantization-aware training.
      "FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxArgsGradient",
      "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsGradient",
      "FakeQuantWithMinMaxVarsPerChannel",
      "FakeQuantWithMinMaxVarsPerChannel"
      "Gradient",
      "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3",
      "QuantizeAndDequantizeV4", "QuantizeAndDequantizeV4Grad",
      // tf.sparse and tf.sets (CPU kernels).
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
      "SparseToSparseSetOperation", "SetSize"};
  return *ops;
}

}  // namespace testing_kernels
}  // namespace dflow
