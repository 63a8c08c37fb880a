// The host side of the GPU random kernels' float Box-Muller corrections
// (see random_ops_gpu_philox.h): for every 23-bit input index, where this
// host's libm (logf, sinf, cosf: what the CPU kernels call) differs from
// the double-precision result rounded to float, and in which direction.
//
// Built once per process on first use (about 6 x 2^23 libm calls, well
// under a second) and kept for the process' lifetime; the GPU launcher
// copies them to each device once.
#ifndef DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_TABLES_H_
#define DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_TABLES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/gpu/random_ops_gpu_philox.h"

namespace dflow {

struct HostBoxMullerTables {
  // gpu_random::kTableWords words each.
  std::vector<uint32_t> log;
  std::vector<uint32_t> sin;
  std::vector<uint32_t> cos;
  // Entries that are not kSame, per table (for tests and messages).
  int64_t corrected[3] = {0, 0, 0};

  gpu_random::BoxMullerTables view() const {
    gpu_random::BoxMullerTables t;
    t.log = log.data();
    t.sin = sin.data();
    t.cos = cos.data();
    return t;
  }
};

// This process' tables; Internal when the host libm is more than one ulp
// away from the correctly rounded result somewhere (then no table can make
// the GPU match it).
absl::StatusOr<const HostBoxMullerTables*> HostBoxMullerCorrections();

// What the CPU kernels compute for index k: logf(u1(k)), and sinf/cosf of
// angle(k) (exposed for tests).
float HostLibmLog(uint32_t k);
void HostLibmSinCos(uint32_t k, float* s, float* c);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_TABLES_H_
