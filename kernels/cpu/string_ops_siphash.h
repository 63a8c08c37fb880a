// SipHash-2-4 (Aumasson and Bernstein, 2012), the keyed 64-bit hash
// TensorFlow's StringToHashBucketStrong computes: a key of two 64-bit words
// makes the buckets unpredictable to whoever does not know it. Written from
// the published algorithm (two compression and four finalization rounds,
// little-endian words).
#ifndef DFLOW_KERNELS_CPU_STRING_OPS_SIPHASH_H_
#define DFLOW_KERNELS_CPU_STRING_OPS_SIPHASH_H_

#include <cstddef>
#include <cstdint>

namespace dflow {

uint64_t SipHash24(uint64_t k0, uint64_t k1, const char* data, size_t size);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_STRING_OPS_SIPHASH_H_
