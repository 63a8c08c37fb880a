// GPU kernel definitions: element-wise math, MatMul, reductions, scans,
// ArgMax, Cast (TensorFlow's cwise_op_*.cc, aggregate_ops.cc, matmul_op.cc,
// reduction_ops_*.cc, scan_ops.cc, argmax_op.cc, cast_op.cc).
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const std::vector<std::string> kBinaryArgs = {"x", "y", "z"};

const bool kRegistered = [] {
  DefineWithInt32HostKernel("AddN", "T",
                            Concat({GpuFloat(), Complex(), {DT_INT64}}),
                            {"inputs", "sum"});

  // Binary element-wise ops; TensorFlow's int32 versions run on the host.
  const Types arith = Concat({GpuFloat(), Complex(), {DT_INT64}});
  for (const char* op : {"Add", "AddV2", "Sub"}) {
    DefineWithInt32HostKernel(op, "T", arith, kBinaryArgs);
  }
  DefineWithInt32HostKernel(
      "Mul", "T",
      Concat({GpuFloat(),
              Complex(),
              {DT_INT8, DT_INT16, DT_INT64, DT_UINT8, DT_UINT16}}),
      kBinaryArgs);
  Define(Gpu("RealDiv").TypeConstraint("T", Concat({GpuFloat(), Complex()})));
  for (const char* op : {"Maximum", "Minimum", "SquaredDifference"}) {
    DefineWithInt32HostKernel(op, "T", Concat({GpuFloat(), {DT_INT64}}),
                              kBinaryArgs);
  }
  Define(Gpu("Pow").TypeConstraint(
      "T", Concat({GpuFloat(), Complex(), {DT_INT64}})));
  for (const char* op : {"Less", "Greater"}) {
    DefineWithInt32HostKernel(
        op, "T", Concat({GpuFloat(), {DT_INT8, DT_INT16, DT_INT64, DT_UINT8}}),
        kBinaryArgs);
  }
  DefineWithInt32HostKernel(
      "Equal", "T",
      Concat({GpuFloat(),
              Complex(),
              {DT_BOOL, DT_INT8, DT_INT16, DT_INT64, DT_UINT8}}),
      kBinaryArgs);

  for (const char* op : {"LessEqual", "GreaterEqual"}) {
    DefineWithInt32HostKernel(
        op, "T", Concat({GpuFloat(), {DT_INT8, DT_INT16, DT_INT64, DT_UINT8}}),
        kBinaryArgs);
  }
  DefineWithInt32HostKernel(
      "NotEqual", "T",
      Concat({GpuFloat(),
              Complex(),
              {DT_BOOL, DT_INT8, DT_INT16, DT_INT64, DT_UINT8}}),
      kBinaryArgs);
  // Floor division: integers on the device but int32 on the host, as for
  // the other binary ops.
  DefineWithInt32HostKernel(
      "FloorDiv", "T",
      Concat({GpuFloat(), {DT_UINT8, DT_UINT16, DT_INT16, DT_INT64}}),
      kBinaryArgs);
  DefineWithInt32HostKernel("FloorMod", "T", Concat({GpuFloat(), {DT_INT64}}),
                            kBinaryArgs);
  Define(Gpu("DivNoNan").TypeConstraint("T", Concat({GpuFloat(), Complex()})));
  Define(Gpu("Floor").TypeConstraint("T", GpuFloat()));
  for (const char* op : {"LogicalNot", "LogicalAnd", "LogicalOr"}) {
    Define(Gpu(op));
  }
  // Select and SelectV2 move every device type (bool condition).
  for (const char* op : {"Select", "SelectV2"}) {
    Define(Gpu(op).TypeConstraint(
        "T", Concat({GpuAll(), {DT_INT32, DT_INT64}})));
  }

  // Unary element-wise ops.
  for (const char* op : {"Neg", "Square"}) {
    DefineWithInt32HostKernel(
        op, "T", Concat({GpuFloat(), Complex(), {DT_INT64}}), {"x", "y"});
  }
  for (const char* op : {"Sqrt", "Rsqrt", "Exp", "Log", "Sigmoid", "Tanh",
                         "SigmoidGrad", "TanhGrad"}) {
    Define(Gpu(op).TypeConstraint("T", Concat({GpuFloat(), Complex()})));
  }

  // cuBLAS GEMM: floating and complex types only.
  Define(Gpu("MatMul").TypeConstraint("T", Concat({GpuFloat(), Complex()})));

  // Reductions read their axes on the host.
  const Types idx = {DT_INT32, DT_INT64};
  auto reduction = [&](const char* op, const Types& types) {
    Define(Gpu(op)
               .TypeConstraint("T", types)
               .TypeConstraint("Tidx", idx)
               .HostMemory("reduction_indices"));
    Define(Gpu(op)
               .TypeConstraint("T", {DT_INT32})
               .TypeConstraint("Tidx", idx)
               .HostMemory("input")
               .HostMemory("output")
               .HostMemory("reduction_indices"));
  };
  reduction("Sum", Concat({GpuFloat(), Complex(), {DT_INT64}}));
  reduction("Mean", Concat({GpuFloat(), Complex(), {DT_INT64}}));
  reduction("Prod", Concat({GpuFloat(), Complex(), {DT_INT64}}));
  reduction("Max", Concat({GpuFloat(), {DT_INT64}}));
  reduction("Min", Concat({GpuFloat(), {DT_INT64}}));

  // Scans read their axis on the host; int32 runs on the device too.
  for (const char* op : {"Cumsum", "Cumprod"}) {
    Define(Gpu(op)
               .TypeConstraint("T", Concat({GpuFloat(), {DT_INT32, DT_INT64}}))
               .TypeConstraint("Tidx", idx)
               .HostMemory("axis"));
  }

  Define(Gpu("ArgMax")
             .TypeConstraint("T", Concat({GpuFloat(), {DT_BOOL}}))
             .TypeConstraint("Tidx", {DT_INT32, DT_INT64})
             .TypeConstraint("output_type", {DT_INT32, DT_INT64})
             .HostMemory("dimension"));

  // One GPU Cast kernel for every pair of bool and real numeric types;
  // soft placement puts complex Casts on the CPU.
  Define(Gpu("Cast")
             .TypeConstraint("SrcT", GpuCastable())
             .TypeConstraint("DstT", GpuCastable()));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
