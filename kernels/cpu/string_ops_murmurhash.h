// MurmurHash64A (Austin Appleby's MurmurHash2, 64-bit version), the hash
// TensorFlow's Hash64 computes with the seed 0xDECAFCAFFE, so the legacy
// StringToHashBucket's buckets match TensorFlow's. Written from the
// published algorithm (8-byte little-endian words, tail bytes, avalanche).
#ifndef DFLOW_KERNELS_CPU_STRING_OPS_MURMURHASH_H_
#define DFLOW_KERNELS_CPU_STRING_OPS_MURMURHASH_H_

#include <cstddef>
#include <cstdint>

namespace dflow {

uint64_t MurmurHash64A(const char* data, size_t size, uint64_t seed);

// TensorFlow's seed for Hash64 (StringToHashBucket).
inline constexpr uint64_t kTensorFlowHash64Seed = 0xDECAFCAFFEULL;

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_STRING_OPS_MURMURHASH_H_
