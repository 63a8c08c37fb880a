// dflow's DataType as the launchers' GpuType (kernels/gpu/gpu_launch_util.h),
// for kernel classes and tests (host code only).
#ifndef DFLOW_KERNELS_GPU_GPU_TYPE_OF_H_
#define DFLOW_KERNELS_GPU_GPU_TYPE_OF_H_

#include <optional>

#include "graph/types.h"
#include "kernels/gpu/gpu_launch_util.h"

namespace dflow {

// The launchers' tag for `dtype`; nullopt for types no launcher takes.
inline std::optional<GpuType> GpuTypeOf(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
      return GpuType::kHalf;
    case DT_BFLOAT16:
      return GpuType::kBfloat16;
    case DT_FLOAT:
      return GpuType::kFloat;
    case DT_DOUBLE:
      return GpuType::kDouble;
    case DT_INT8:
      return GpuType::kInt8;
    case DT_INT16:
      return GpuType::kInt16;
    case DT_INT32:
      return GpuType::kInt32;
    case DT_INT64:
      return GpuType::kInt64;
    case DT_UINT8:
      return GpuType::kUint8;
    case DT_BOOL:
      return GpuType::kBool;
    default:
      return std::nullopt;
  }
}

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_GPU_TYPE_OF_H_
