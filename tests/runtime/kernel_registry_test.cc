// Kernel availability as metadata: the GPU kernel definitions linked into a
// CPU-only build, host-memory arguments, definitions without
// implementations, and fake GPUs running CPU kernels.
#include "runtime/kernel_registry.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/op_registry.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/call_frame.h"
#include "runtime/device.h"
#include "runtime/executor.h"

namespace dflow {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

KernelRegistry* Registry() { return KernelRegistry::Global(); }

// A GPU whose kernels are its own (as in a CUDA build), to see what a
// CPU-only binary does with a node placed on a real GPU.
Device* RealGpu() {
  static Device* gpu =
      new Device(DeviceSpec::LocalDevice("GPU", 0), ProcessAllocator("GPU:0"),
                 ThreadPool::Shared());
  return gpu;
}

Device* FakeGpu() {
  static Device* gpu = NewFakeGpuDevice(0).release();
  return gpu;
}

Device* Cpu() {
  static Device* cpu = NewCpuDevice(0).release();
  return cpu;
}

TEST(KernelRegistryTest, EveryDefinitionIsConsistentWithItsOp) {
  absl::Status s = Registry()->Validate();
  EXPECT_TRUE(s.ok()) << s.message();
}

// Every op dflow declares that has a GPU kernel in TensorFlow (for some
// dtypes) has a GPU definition here; test ops are exempt, and so are the
// CPU fusions' ops, which their passes create only on CPU partitions
// (compiler/fuse_bias_activation.h, compiler/fuse_elementwise.h,
// compiler/fuse_matmul_update.h), and the ops TensorFlow registers on the
// CPU only (listed).
TEST(KernelRegistryTest, EveryDeclaredOpHasAGpuDefinition) {
  int checked = 0;
  for (const OpRegistration* reg : OpRegistry::Global()->AllOps()) {
    const std::string& op = reg->op_def.name();
    if (op.rfind("Test", 0) == 0) continue;
    if (op == "_FusedMatMul" || op == "_FusedConv2D" ||
        op == "_FusedElementwise" ||
        op == "_FusedMatMulApplyGradientDescent") {
      continue;
    }
    // CPU-only in TensorFlow 2.21 as here: the checkpoint and file-name
    // string ops (graph/ops/io_ops.h), StaticRegexFullMatch, the summaries,
    // and the sparse Momentum and RMSProp updates (of the sparse optimizers
    // only Adagrad has GPU kernels).
    static const auto* const kCpuOnly = new absl::flat_hash_set<std::string>{
        "SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename",
        "ShardedFilespec", "StringJoin", "StaticRegexFullMatch",
        "ScalarSummary", "HistogramSummary", "MergeSummary",
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
        "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2",
        "QueueSizeV2", "QueueIsClosedV2", "TFRecordReaderV2", "ReaderReadV2",
        "ReaderReadUpToV2", "FixedLengthRecordReaderV2",
        "ParseExampleV2", "ParseSingleExample", "DecodeRaw",
        "RandomShuffle",
        // Parsing and file io (parsing_ops_*.cc, io_ops_files.cc).
        "TextLineReaderV2", "DecodeCSV", "SerializeTensor", "ParseTensor",
        "DecodeCompressed", "DecodePaddedRaw", "DecodeJSONExample",
        "ReadFile", "WriteFile", "MatchingFiles",
        // Counting epochs (string_input_producer's num_epochs).
        "CountUpTo", "ResourceCountUpTo",
        // Audio (kernels/cpu/audio_ops_*.cc): CPU-only in TF too.
        "DecodeWav", "EncodeWav", "AudioSpectrogram", "Mfcc"};
    // No GPU definition yet, though TensorFlow has one: conditionals
    // (Switch and Merge run on the CPU under soft placement until their GPU
    // kernels come; If/StatelessIf never reach placement, the
    // lower_functional_if pass replaces them, and _ToBool is its helper)
    // and Unique.
    // The loop primitives too: loops run on CPU devices only so far (While
    // and StatelessWhile are lowered to them before placement); and the
    // stacks, TensorArrays and TensorLists of loop gradients and
    // dynamic_rnn. And the ops added from the probes (below).
    static const auto* const kNoGpuYet =
        new absl::flat_hash_set<std::string>{"Switch",
                                              "ResourceApplyKerasMomentum",
                                              "ResourceSparseApplyKerasMomentum",
                                              "ApplyAdaMax",
                                              "ResourceApplyAdaMax",
                                              "ResourceApplyAdamWithAmsgrad",
                                              "Bucketize",
                                             "RefSwitch",
                                             "Merge",
                                             "RefMerge",
                                             "If",
                                             "StatelessIf",
                                             "_ToBool",
                                             "Unique",
                                             "StringLower",
                                             "StringUpper",
                                             "StringStrip",
                                             "Substr",
                                             "ReduceJoin",
                                             "StaticRegexReplace",
                                             "RegexReplace",
                                             "StringSplit",
                                             "StringSplitV2",
                                             "StringToNumber",
                                             "AsString",
                                             "EncodeBase64",
                                             "DecodeBase64",
                                             "StringToHashBucketFast",
                                             "StringToHashBucketStrong",
                                             "StringToHashBucket",
                                             "Fingerprint",
                                             "HashTableV2",
                                             "InitializeTableV2",
                                             "InitializeTableFromTextFileV2",
                                             "LookupTableImportV2",
                                             "LookupTableFindV2",
                                             "LookupTableSizeV2",
                                             "MutableHashTableV2",
                                             "MutableHashTableOfTensorsV2",
                                             "MutableDenseHashTableV2",
                                             "LookupTableInsertV2",
                                             "LookupTableRemoveV2",
                                             "LookupTableExportV2",
                                             "Enter",
                                             "RefEnter",
                                             "Exit",
                                             "RefExit",
                                             "NextIteration",
                                             "RefNextIteration",
                                             "LoopCond",
                                             "ControlTrigger",
                                             "StackV2",
                                             "StackPushV2",
                                             "StackPopV2",
                                             "StackCloseV2",
                                             "TensorArrayV3",
                                             "TensorArrayGradV3",
                                             "TensorArrayWriteV3",
                                             "TensorArrayReadV3",
                                             "TensorArrayGatherV3",
                                             "TensorArrayScatterV3",
                                             "TensorArraySizeV3",
                                             "TensorArrayCloseV3",
                                             "While",
                                             "StatelessWhile",
                                             "EmptyTensorList",
                                             "TensorListReserve",
                                             "TensorListFromTensor",
                                             "TensorListPushBack",
                                             "TensorListPopBack",
                                             "TensorListSetItem",
                                             "TensorListGetItem",
                                             "TensorListStack",
                                             "TensorListLength",
                                             "TensorListElementShape",
                                             "TensorArrayConcatV3",
                                             "TensorArraySplitV3",
                                             "TensorListGather",
                                             "TensorListScatter",
                                             "TensorListScatterV2",
                                             "TensorListScatterIntoExistingList",
                                             "TensorListConcatV2",
                                             "TensorListSplit",
                                             "ReverseSequence",
                                             "StringLength",
                                             "StringFormat",
                                             "PrintV2",
                                             "Einsum",
                                             "UniqueWithCounts",
                                             "Erfinv", "Ndtri",
                                             "EuclideanNorm", "Diag",
                                             "DiagPart", "LowerBound",
                                             "UpperBound", "Print",
                                             "All",
                                             "Any",
                                             "PartitionedCall",
                                             "StatefulPartitionedCall",
                                             "Case",
                                             "StatelessCase",
                                             "_SwitchN",
                                             // The ops added from the probes
                                             // (tools/tf_probe/, session 13):
                                             // CPU kernels only so far.
                                             "Abs", "Sign", "Sin", "Cos",
                                             "Tan", "Asin", "Acos", "Atan",
                                             "Sinh", "Cosh", "Asinh", "Acosh",
                                             "Atanh", "Log1p", "Expm1",
                                             "Reciprocal", "Inv", "Round",
                                             "Rint", "Ceil", "Erf", "Erfc",
                                             "Lgamma", "Digamma", "IsFinite",
                                             "IsNan", "IsInf", "RsqrtGrad",
                                             "SqrtGrad", "ReciprocalGrad",
                                             "Softplus", "Softsign", "Relu6",
                                             "Elu", "Selu", "LeakyRelu",
                                             "SoftplusGrad", "SoftsignGrad",
                                             "Relu6Grad", "EluGrad",
                                             "SeluGrad", "LeakyReluGrad",
                                             "BatchMatMul", "BatchMatMulV2",
                                             "BatchMatMulV3", "ClipByValue",
                                             "ArgMin", "GatherNd", "ScatterNd",
                                             "ListDiff", "BroadcastArgs",
                                             "VariableShape",
                                             "MatrixDiagV3",
                                             "MatrixDiagPartV3",
                                             "OptionalFromValue",
                                             "OptionalNone",
                                             "OptionalHasValue",
                                             "OptionalGetValue",
                                             // Segment reductions, partition,
                                             // tensor scatters, Roll.
                                             "SegmentSum", "SegmentMean",
                                             "SegmentMax", "SegmentMin",
                                             "SegmentProd",
                                             "UnsortedSegmentMax",
                                             "UnsortedSegmentMin",
                                             "UnsortedSegmentProd",
                                             "SparseSegmentSum",
                                             "SparseSegmentMean",
                                             "SparseSegmentSqrtN",
                                             "SparseSegmentSumWithNumSegments",
                                             "SparseSegmentMeanWithNumSegments",
                                             "SparseSegmentSqrtNWithNumSegments",
                                             "SparseSegmentSumGrad",
                                             "SparseSegmentMeanGrad",
                                             "SparseSegmentSqrtNGrad",
                                             "DynamicPartition",
                                             "ParallelDynamicStitch",
                                             "TensorScatterUpdate",
                                             "TensorScatterAdd",
                                             "TensorScatterSub",
                                             "TensorScatterMax",
                                             "TensorScatterMin", "Roll",
                                             "SpaceToBatchND",
                                             "BatchToSpaceND",
                                             "DepthwiseConv2dNative",
                                             // and its two gradients.
                                             "DepthwiseConv2dNative"
                                             "BackpropInput",
                                             "DepthwiseConv2dNative"
                                             "BackpropFilter",
                                             "MirrorPad", "MirrorPadGrad",
                                             "PadV2", "ResizeNearestNeighbor",
                                             "ResizeNearestNeighborGrad",
                                             // Session 14's probe ops.
                                             "TruncateDiv", "TruncateMod",
                                             "Xdivy", "Xlogy", "Xlog1py",
                                             "Atan2", "ApproximateEqual",
                                             "BitwiseAnd", "BitwiseOr",
                                             "BitwiseXor", "Invert",
                                             "LeftShift", "RightShift",
                                             "MatrixBandPart",
                                             "MatrixSetDiagV3", "Cross",
                                             "CheckNumerics", "BiasAddV1",
                                             "Cholesky", "MatrixInverse",
                                             "MatrixDeterminant",
                                             "LogMatrixDeterminant",
                                             "MatrixSolve",
                                             "MatrixTriangularSolve",
                                             // Regularized optimizers
                                             // (training_ops_regularized.cc).
                                             "ApplyAdadelta",
                                             "ResourceApplyAdadelta",
                                             "SparseApplyAdadelta",
                                             "ResourceSparseApplyAdadelta",
                                             "ApplyFtrl",
                                             "ResourceApplyFtrl",
                                             "SparseApplyFtrl",
                                             "ResourceSparseApplyFtrl",
                                             "ApplyFtrlV2",
                                             "ResourceApplyFtrlV2",
                                             "SparseApplyFtrlV2",
                                             "ResourceSparseApplyFtrlV2",
                                             "ApplyProximalAdagrad",
                                             "ResourceApplyProximalAdagrad",
                                             "SparseApplyProximalAdagrad",
                                             "ResourceSparseApplyProximalAdagrad",
                                             "ApplyProximalGradientDescent",
                                             "ResourceApplyProximalGradientDescent",
                                             "SparseApplyProximalGradientDescent",
                                             "ResourceSparseApplyProximalGradientDescent",
                                             "ApplyAdagradDA",
                                             "ResourceApplyAdagradDA",
                                             "SparseApplyAdagradDA",
                                             "ResourceSparseApplyAdagradDA",
                                             // Variable scatters
                                             // (state_ops_scatter.cc,
                                             // index_ops_scatter_nd_variable.cc).
                                             "ScatterMul",
                                             "ScatterDiv",
                                             "ScatterMax",
                                             "ScatterMin",
                                             "ResourceScatterMul",
                                             "ResourceScatterDiv",
                                             "ResourceScatterMax",
                                             "ResourceScatterMin",
                                             "ScatterNdUpdate",
                                             "ScatterNdAdd",
                                             "ScatterNdSub",
                                             "ResourceScatterNdUpdate",
                                             "ResourceScatterNdAdd",
                                             "ResourceScatterNdSub",
                                             // Snapshot, EnsureShape, Empty,
                                             // MulNoNan and the SparseTensor
                                             // ops.
                                             "Snapshot",
                                             "EnsureShape",
                                             "Empty",
                                             "MulNoNan",
                                             "SparseToDense",
                                             "SparseFillEmptyRows",
                                             "SparseReshape",
                                              // ops_e: space/depth, argmax
                                              // pooling.
                                              "SpaceToDepth", "DepthToSpace",
                                              "MaxPoolWithArgmax",
                                              "MaxPoolGradWithArgmax",
                                              "MaxPool3D", "AvgPool3D",
                                              "MaxPool3DGrad",
                                              "AvgPool3DGrad", "Conv3D",
                                              "Conv3DBackpropInputV2",
                                              "Conv3DBackpropFilterV2",
                                              "ResizeBicubic",
                                              "ResizeBicubicGrad",
                                              "ResizeArea", "RGBToHSV",
                                              "HSVToRGB", "AdjustHue",
                                              "AdjustSaturation",
                                              "CropAndResize",
                                              "CropAndResizeGradImage",
                                              "ExtractImagePatches",
                                              // Text models and CTC.
                                              "RegexFullMatch",
                                              "StringNGrams",
                                              "UnsortedSegmentJoin",
                                              "UnicodeDecode",
                                              "UnicodeDecodeWithOffsets",
                                              "UnicodeEncode",
                                              "UnicodeTranscode",
                                              "UnicodeScript",
                                              "RaggedTensorToTensor",
                                              "RaggedTensorToSparse",
                                              "RaggedRange",
                                              "RaggedGather",
                                              "DenseBincount",
                                              "EditDistance",
                                              "CTCLoss",
                                              "CTCLossV2",
                                              "CTCGreedyDecoder",
                                              "CTCBeamSearchDecoder",
                                              // images: NMS, codecs,
                                              // geometry.
                                              "NonMaxSuppression",
                                              "NonMaxSuppressionV2",
                                              "NonMaxSuppressionV3",
                                              "NonMaxSuppressionV4",
                                              "NonMaxSuppressionV5",
                                              "NonMaxSuppressionWithOverlaps",
                                              "CombinedNonMaxSuppression",
                                              "DecodeJpeg",
                                              "DecodeAndCropJpeg",
                                              "DecodePng", "DecodeGif",
                                              "DecodeBmp", "DecodeImage",
                                              "ExtractJpegShape", "EncodeJpeg",
                                              "EncodeJpegVariableQuality",
                                              "EncodePng", "ScaleAndTranslate",
                                              "ScaleAndTranslateGrad",
                                              "Dilation2D",
                                              "Dilation2DBackpropInput",
                                              "Dilation2DBackpropFilter",
                                              "ExtractVolumePatches",
                                              "DrawBoundingBoxes",
                                              "DrawBoundingBoxesV2",
                                              "SampleDistortedBoundingBox",
                                              "SampleDistortedBoundingBoxV2",
                                              "StatelessSampleDistortedBoundingBox",
                                              // Complex numbers and FFTs
                                              // (cwise_ops_complex.cc,
                                              // spectral_ops.cc).
                                              "Complex", "Real", "Imag",
                                              "Angle", "ComplexAbs", "Conj",
                                              "FFT", "IFFT", "FFT2D",
                                              "IFFT2D", "FFT3D", "IFFT3D",
                                              "RFFT", "IRFFT", "RFFT2D",
                                              "IRFFT2D", "RFFT3D",
                                              "IRFFT3D",
                                              // random: sampled
                                              // distributions, stateless
                                              // ops, shuffles, candidate
                                              // samplers.
                                              "Multinomial",
                                              "StatelessMultinomial",
                                              "RandomGamma",
                                              "StatelessRandomGammaV2",
                                              "StatelessRandomGammaV3",
                                              "RandomPoissonV2",
                                              "StatelessRandomPoisson",
                                              "StatelessRandomBinomial",
                                              "ParameterizedTruncatedNormal",
                                              "StatelessParameterizedTruncatedNormal",
                                              "StatelessRandomUniformIntV2",
                                              "StatelessRandomUniformFullIntV2",
                                              "StatelessRandomGetKeyCounterAlg",
                                              "StatelessRandomGetAlg",
                                              "StatelessRandomUniform",
                                              "StatelessRandomNormal",
                                              "StatelessTruncatedNormal",
                                              "StatelessRandomUniformInt",
                                              "StatelessRandomUniformFullInt",
                                              "StatelessShuffle",
                                              "RandomIndexShuffle",
                                              "UniformCandidateSampler",
                                              "LogUniformCandidateSampler",
                                              "LearnedUnigramCandidateSampler",
                                              "ThreadUnsafeUnigramCandidateSampler",
                                              "FixedUnigramCandidateSampler",
                                              "AllCandidateSampler",
                                              "ComputeAccidentalHits",
                                              "RngReadAndSkip",
                                              "StatefulRandomBinomial",
                                              // linalg: decompositions,
                                              // banded solvers, special
                                              // functions, counting, bits.
                                              "Qr", "Svd", "SelfAdjointEigV2",
                                              "Lu", "MatrixSquareRoot",
                                              "MatrixLogarithm",
                                              "MatrixSolveLs",
                                              "TridiagonalSolve",
                                              "TridiagonalMatMul",
                                              "BandedTriangularSolve",
                                              "Igamma", "Igammac",
                                              "IgammaGradA",
                                              "RandomGammaGrad", "Betainc",
                                              "Zeta", "Polygamma", "BesselI0",
                                              "BesselI0e", "BesselI1",
                                              "BesselI1e", "BesselJ0",
                                              "BesselJ1", "BesselK0",
                                              "BesselK0e", "BesselK1",
                                              "BesselK1e", "BesselY0",
                                              "BesselY1", "Dawsn", "Expint",
                                              "FresnelCos", "FresnelSin",
                                              "Spence", "CumulativeLogsumexp",
                                              "PopulationCount", "Bitcast",
                                              "Bincount",
                                              "HistogramFixedWidth",
                                              // tf.data: datasets and
                                              // iterators (host-side).
                                              "TensorSliceDataset",
                                              "TensorDataset", "RangeDataset",
                                              "TFRecordDataset",
                                              "TFRecordDatasetV2",
                                              "TextLineDataset",
                                              "FixedLengthRecordDataset",
                                              "FixedLengthRecordDatasetV2",
                                              "MapDataset",
                                              "ParallelMapDataset",
                                              "ParallelMapDatasetV2",
                                              "MapAndBatchDataset",
                                              "FilterDataset", "FlatMapDataset",
                                              "InterleaveDataset",
                                              "ParallelInterleaveDatasetV4",
                                              "ReduceDataset",
                                              "OneShotIterator", "Iterator",
                                              "IteratorV2", "MakeIterator",
                                              "AnonymousIterator",
                                              "AnonymousIteratorV2",
                                              "AnonymousIteratorV3",
                                              "DeleteIterator",
                                              "IteratorGetNext",
                                              "IteratorGetNextSync",
                                              "IteratorGetNextAsOptional",
                                              "IteratorToStringHandle",
                                              "IteratorFromStringHandle",
                                              "IteratorFromStringHandleV2",
                                              "BatchDataset", "BatchDatasetV2",
                                              "ParallelBatchDataset",
                                              "PaddedBatchDataset",
                                              "PaddedBatchDatasetV2",
                                              "UnbatchDataset",
                                              "ShuffleDataset",
                                              "ShuffleDatasetV2",
                                              "ShuffleDatasetV3",
                                              "ShuffleAndRepeatDataset",
                                              "ShuffleAndRepeatDatasetV2",
                                              "AnonymousSeedGenerator",
                                              "DummySeedGenerator",
                                              "DeleteSeedGenerator",
                                              "RepeatDataset", "TakeDataset",
                                              "SkipDataset", "PrefetchDataset",
                                              "ZipDataset",
                                              "ConcatenateDataset",
                                              "CacheDataset", "CacheDatasetV2",
                                              "DummyMemoryCache",
                                              "AnonymousMemoryCache",
                                              "DeleteMemoryCache",
                                              "OptimizeDataset",
                                              "OptimizeDatasetV2",
                                              "ModelDataset",
                                              "MaxIntraOpParallelismDataset",
                                              "PrivateThreadPoolDataset",
                                              "OptionsDataset",
                                              "DatasetCardinality",
                                              "DatasetToSingleElement",
                                              // The misc family.
                                              "LinSpace", "UnravelIndex",
                                              "UniqueV2", "UniqueWithCountsV2",
                                              "NthElement", "TopK", "InTopK",
                                              "Mod",
                                              "ImageProjectiveTransformV2",
                                              "ImageProjectiveTransformV3",
                                              "ExtractGlimpse",
                                              "ExtractGlimpseV2",
                                              "MaxPoolV2", "MaxPoolGradV2",
                                              "MaxPoolGradGrad",
                                              "MaxPoolGradGradV2",
                                              "MatrixDiag", "MatrixDiagPart",
                                              "MatrixSetDiag", "MatrixDiagV2",
                                              "MatrixDiagPartV2",
                                              "MatrixSetDiagV2",
                                              "ConjugateTranspose",
                                              "InplaceAdd", "InplaceSub",
                                              "InplaceUpdate",
                                              "ParallelConcat",
                                              "GuaranteeConst", "Timestamp",
                                              "CheckNumericsV2",
                                              "StatefulUniform",
                                              "StatefulUniformInt",
                                              "StatefulUniformFullInt",
                                              "StatefulStandardNormalV2",
                                              "StatefulTruncatedNormal",
                                              "RngSkip",
                                              "NonDeterministicInts",
                                              // Quantization-aware training.
                                              "FakeQuantWithMinMaxArgs",
                                              "FakeQuantWithMinMaxArgsGradient",
                                              "FakeQuantWithMinMaxVars",
                                              "FakeQuantWithMinMaxVarsGradient",
                                              "FakeQuantWithMinMaxVarsPerChannel",
                                              "FakeQuantWithMinMaxVarsPerChannel"
                                              "Gradient",
                                              "QuantizeAndDequantizeV2",
                                              "QuantizeAndDequantizeV3",
                                              "QuantizeAndDequantizeV4",
                                              "QuantizeAndDequantizeV4Grad",
                                             // tf.sparse and tf.sets (CPU kernels).
                                             "SparseAdd",
                                             "SparseAddGrad",
                                             "SparseConcat",
                                             "SparseSlice",
                                             "SparseSliceGrad",
                                             "SparseSplit",
                                             "SparseReorder",
                                             "SparseTensorDenseMatMul",
                                             "SparseTensorDenseAdd",
                                             "SparseDenseCwiseAdd",
                                             "SparseDenseCwiseMul",
                                             "SparseDenseCwiseDiv",
                                             "SparseReduceSum",
                                             "SparseReduceSumSparse",
                                             "SparseReduceMax",
                                             "SparseReduceMaxSparse",
                                             "SparseSoftmax",
                                             "SparseSparseMaximum",
                                             "SparseSparseMinimum",
                                             "SparseFillEmptyRowsGrad",
                                             "SparseSegmentSumGradV2",
                                             "SparseSegmentMeanGradV2",
                                             "SparseSegmentSqrtNGradV2",
                                             "SparseCross",
                                             "SparseCrossHashed",
                                             "SparseCrossV2",
                                             "SparseMatMul",
                                             "DenseToDenseSetOperation",
                                             "DenseToSparseSetOperation",
                                             "SparseToSparseSetOperation",
                                             "SetSize"};
    if (kNoGpuYet->count(op) > 0) continue;
    if (kCpuOnly->count(op) > 0) {
      for (const KernelDef& def : Registry()->DefinitionsForOp(op)) {
        EXPECT_NE(def.device_type, kDeviceGpu) << op << " is CPU-only in TF";
      }
      continue;
    }
    bool gpu = false;
    for (const KernelDef& def : Registry()->DefinitionsForOp(op)) {
      gpu |= def.device_type == kDeviceGpu;
    }
    EXPECT_TRUE(gpu) << op << " has no GPU kernel definition";
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

TEST(KernelRegistryTest, GpuDefinitionsFollowTensorFlowsDtypes) {
  Scope root = Scope::NewRootScope();
  Output f = ops::Const(root, {1.0f, 2.0f}, {1, 2});
  Output i = ops::Const(root, {1, 2}, {1, 2});
  Node* matmul =
      ops::MatMul(root, f, f, ops::MatMulAttrs().TransposeB(true)).node();
  Node* matmul_int =
      ops::MatMul(root, i, i, ops::MatMulAttrs().TransposeB(true)).node();
  Node* relu = ops::Relu(root, f).node();
  Node* softmax = ops::Softmax(root, f).node();
  ASSERT_TRUE(root.status().ok()) << root.status();

  EXPECT_THAT(Registry()->SupportedDeviceTypes(*matmul),
              UnorderedElementsAre("CPU", "GPU"));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*relu), Contains("GPU"));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*softmax), Contains("GPU"));
  // cuBLAS has no integer GEMM kernel in TensorFlow: CPU only.
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*matmul_int),
              ElementsAre("CPU"));
  // A definition, not an implementation: this binary has no CUDA code.
  EXPECT_FALSE(Registry()->IsKernelBuilt(*matmul, "GPU"));
  EXPECT_TRUE(Registry()->IsKernelBuilt(*matmul, "CPU"));
}

TEST(KernelRegistryTest, OpsWithoutGpuKernelsHaveNoGpuDefinition) {
  Scope root = Scope::NewRootScope();
  Output s = ops::Const(root, "a");
  Node* add_strings = ops::Add(root, s, s).node();
  Output h = ops::Cast(root, ops::Const(root, {1.0f}, {1, 1, 1, 1}), DT_HALF);
  Node* lrn = ops::LRN(root, h).node();  // cuDNN LRN is float-only
  Node* real_div_int =
      ops::RealDiv(root, ops::Const(root, {4}), ops::Const(root, {2})).node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*add_strings),
              ElementsAre("CPU"));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*lrn), Not(Contains("GPU")));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*real_div_int),
              Not(Contains("GPU")));
}

TEST(KernelRegistryTest, ShapeArgumentsAreInHostMemoryOnGpu) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, {1.0f, 2.0f, 3.0f, 4.0f});
  Output shape = ops::Const(root, {2, 2});
  Node* reshape = ops::Reshape(root, x, shape).node();
  Node* shape_of = ops::Shape(root, x).node();
  Node* fill = ops::Fill(root, shape, ops::Const(root, 1.0f)).node();
  Node* sum = ops::Sum(root, x, ops::Const(root, 0)).node();
  ASSERT_TRUE(root.status().ok()) << root.status();

  EXPECT_TRUE(Registry()->IsHostMemoryArg(*reshape, "GPU", "shape"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*reshape, "GPU", "tensor"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*reshape, "GPU", "output"));
  EXPECT_TRUE(Registry()->IsHostMemoryInput(*reshape, "GPU", 1));
  EXPECT_FALSE(Registry()->IsHostMemoryInput(*reshape, "GPU", 0));
  EXPECT_FALSE(Registry()->IsHostMemoryInput(*reshape, "GPU", 7));
  EXPECT_THAT(Registry()->HostMemoryArgs(*reshape, "GPU"),
              ElementsAre("shape"));
  // CPU kernels keep everything in the device's (host) memory: no
  // distinction to declare.
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*reshape, "CPU", "shape"));
  EXPECT_TRUE(Registry()->HostMemoryArgs(*reshape, "CPU").empty());

  EXPECT_TRUE(Registry()->IsHostMemoryArg(*shape_of, "GPU", "output"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*shape_of, "GPU", "input"));
  EXPECT_TRUE(Registry()->IsHostMemoryOutput(*shape_of, "GPU", 0));
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*fill, "GPU", "dims"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*fill, "GPU", "value"));
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*sum, "GPU", "reduction_indices"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*sum, "GPU", "input"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*sum, "GPU", "no_such_arg"));
}

TEST(KernelRegistryTest, Int32KernelsOnGpuAreHostKernels) {
  Scope root = Scope::NewRootScope();
  Output i = ops::Const(root, {1, 2});
  Output f = ops::Const(root, {1.0f, 2.0f});
  Node* add_int = ops::Add(root, i, i).node();
  Node* add_float = ops::Add(root, f, f).node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  // Const of int32 on a GPU lives in host memory; float does not.
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*i.node(), "GPU", "output"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*f.node(), "GPU", "output"));
  EXPECT_THAT(Registry()->HostMemoryArgs(*add_int, "GPU"),
              UnorderedElementsAre("x", "y", "z"));
  EXPECT_TRUE(Registry()->HostMemoryArgs(*add_float, "GPU").empty());
  std::vector<MemoryType> in, out;
  ASSERT_TRUE(Registry()->MemoryTypesForNode(*add_int, "GPU", &in, &out).ok());
  EXPECT_THAT(in, ElementsAre(MemoryType::kHost, MemoryType::kHost));
  EXPECT_THAT(out, ElementsAre(MemoryType::kHost));
  ASSERT_TRUE(
      Registry()->MemoryTypesForNode(*add_float, "GPU", &in, &out).ok());
  EXPECT_THAT(in, ElementsAre(MemoryType::kDevice, MemoryType::kDevice));
}

TEST(KernelRegistryTest, ResourceHandlesAreAlwaysInHostMemory) {
  Scope root = Scope::NewRootScope();
  Output handle = ops::VarHandleOp(root, DT_FLOAT, TensorShape({2}));
  Node* read = ops::ReadVariableOp(root, handle, DT_FLOAT).node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*read, "GPU", "resource"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*read, "GPU", "value"));
  // Even where nothing is declared (CPU), a resource is a host value.
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*read, "CPU", "resource"));
  EXPECT_TRUE(Registry()->IsHostMemoryOutput(*handle.node(), "GPU", 0));
}

TEST(KernelRegistryTest, DefinedButNotBuiltIsAClearError) {
  Scope root = Scope::NewRootScope();
  Scope tower = root.NewSubScope("tower_0");
  Output f = ops::Const(tower, {1.0f, 2.0f}, {1, 2});
  Node* matmul = ops::MatMul(tower.WithOpName("MatMul"), f, f,
                             ops::MatMulAttrs().TransposeB(true))
                     .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      Registry()->CreateKernel(*matmul, RealGpu());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(k.status().message(),
            "node 'tower_0/MatMul' (MatMul): a GPU kernel is defined but not "
            "built into this binary (CPU-only build); place it on a CPU or "
            "build with CUDA");
  // Never a silent run on the CPU: the CPU kernel exists and is not used.
  EXPECT_TRUE(Registry()->CreateKernel(*matmul, Cpu()).ok());
}

TEST(KernelRegistryTest, FakeGpuRunsCpuKernelsForNodesWithGpuDefinitions) {
  Scope root = Scope::NewRootScope();
  Output f = ops::Const(root, {1.0f, 2.0f}, {1, 2});
  Output i = ops::Const(root, {1, 2}, {1, 2});
  Node* matmul =
      ops::MatMul(root, f, f, ops::MatMulAttrs().TransposeB(true)).node();
  Node* matmul_int = ops::MatMul(root.WithOpName("int_mm"), i, i,
                                 ops::MatMulAttrs().TransposeB(true))
                         .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      Registry()->CreateKernel(*matmul, FakeGpu());
  EXPECT_TRUE(k.ok()) << k.status();
  // int32 MatMul has a CPU kernel but no GPU one: a fake GPU refuses it as
  // a real GPU would.
  k = Registry()->CreateKernel(*matmul_int, FakeGpu());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(k.status().message(),
              HasSubstr("node 'int_mm' (MatMul): no GPU kernel for MatMul"));
}

// A GPU definition whose op has only a CPU implementation and no
// implementation of its own: a fake GPU explains what is missing.
DFLOW_REGISTER_OP("TestGpuDefinedCpuMissing")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_fns::UnchangedShape);
DFLOW_REGISTER_KERNEL_DEF(
    KernelDefBuilder("TestGpuDefinedCpuMissing").Device(kDeviceGpu));

TEST(KernelRegistryTest, FakeGpuNeedsACpuImplementation) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, {1.0f});
  Node* n = OpBuilder(root.WithOpName("n"), "TestGpuDefinedCpuMissing")
                .Input(x)
                .Finalize()
                .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*n), ElementsAre("GPU"));
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      Registry()->CreateKernel(*n, FakeGpu());
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("no CPU kernel"));
  EXPECT_THAT(k.status().message(),
              HasSubstr("stand-in for a GPU that computes with the CPU "
                        "kernels"));
}

// Definitions and implementations registered separately merge.
DFLOW_REGISTER_OP("TestMergedKernel")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

class PassThrough : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

TEST(KernelRegistryTest, ImplementationJoinsItsDefinition) {
  KernelRegistry registry;
  KernelDefBuilder def("TestMergedKernel");
  def.Device(kDeviceGpu)
      .TypeConstraint("T", {DT_FLOAT, DT_HALF})
      .HostMemory("x");
  registry.Register(def.def(), nullptr);
  Scope root = Scope::NewRootScope();
  Node* n = OpBuilder(root.WithOpName("m"), "TestMergedKernel")
                .Input(ops::Const(root, {1.0f}))
                .Finalize()
                .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_FALSE(registry.IsKernelBuilt(*n, "GPU"));
  // Same definition, types in another order: the implementation attaches.
  KernelDefBuilder impl("TestMergedKernel");
  impl.Device(kDeviceGpu)
      .TypeConstraint("T", {DT_HALF, DT_FLOAT})
      .HostMemory("x");
  registry.Register(impl.def(), [](OpKernelConstruction* ctx) {
    return std::make_unique<PassThrough>(ctx);
  });
  EXPECT_TRUE(registry.IsKernelBuilt(*n, "GPU"));
  EXPECT_TRUE(registry.CreateKernel(*n, RealGpu()).ok());
  EXPECT_TRUE(registry.Validate().ok()) << registry.Validate().message();

  // The same constraints with other host-memory args is a conflict.
  KernelDefBuilder other("TestMergedKernel");
  other.Device(kDeviceGpu).TypeConstraint("T", {DT_FLOAT, DT_HALF});
  registry.Register(other.def(), nullptr);
  absl::Status s = registry.Validate();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("different host-memory args"));
}

TEST(KernelRegistryTest, ValidateFindsBadDefinitions) {
  KernelRegistry registry;
  registry.Register(KernelDefBuilder("NoSuchOpAnywhere").Device("GPU").def(),
                    nullptr);
  registry.Register(
      KernelDefBuilder("Reshape").Device("GPU").HostMemory("shapes").def(),
      nullptr);
  registry.Register(KernelDefBuilder("MatMul")
                        .Device("GPU")
                        .TypeConstraint("transpose_a", {DT_FLOAT})
                        .def(),
                    nullptr);
  registry.Register(
      KernelDefBuilder("Relu").Device("GPU").TypeConstraint<float>("T").def(),
      nullptr);
  registry.Register(KernelDefBuilder("Relu")
                        .Device("GPU")
                        .TypeConstraint("T", {DT_DOUBLE, DT_FLOAT})
                        .def(),
                    nullptr);
  absl::Status s = registry.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("unknown op NoSuchOpAnywhere"));
  EXPECT_THAT(s.message(), HasSubstr("'shapes' is not an argument of Reshape"));
  EXPECT_THAT(s.message(), HasSubstr("'transpose_a' is not a type attr"));
  EXPECT_THAT(s.message(), HasSubstr("overlaps"));
}

// A small graph whose MatMul runs on a fake GPU: Const and the fetch on the
// CPU, the product on GPU:0 (one executor; host memory is shared).
TEST(KernelRegistryTest, GraphRunsWithMatMulOnAFakeGpu) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), {1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  Output mm = ops::MatMul(root.WithOpName("mm"), a, a);
  OpBuilder(root.WithOpName("_retval_0"), kRetvalOp)
      .Input(mm)
      .Attr("T", DT_FLOAT)
      .Attr("index", int64_t{0})
      .Finalize();
  Graph g;
  ASSERT_TRUE(root.ToGraph(&g).ok()) << root.status();
  Device* gpu = FakeGpu();
  Device* cpu = Cpu();
  const int64_t gpu_allocs = gpu->allocator()->Stats().num_allocations;
  absl::StatusOr<std::unique_ptr<Executor>> exec = Executor::Create(
      g, [&](const Node& n) { return n.name() == "mm" ? gpu : cpu; });
  ASSERT_TRUE(exec.ok()) << exec.status();
  CallFrame frame({}, 1);
  VariableStore vars;
  Executor::Args args;
  args.call_frame = &frame;
  args.variables = &vars;
  ASSERT_TRUE((*exec)->Run(args).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(frame.TakeRetvals(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  auto v = out[0].flat<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()),
            std::vector<float>({7, 10, 15, 22}));
  // The product was allocated from the fake GPU's memory.
  EXPECT_GT(gpu->allocator()->Stats().num_allocations, gpu_allocs);
}

}  // namespace
}  // namespace dflow
