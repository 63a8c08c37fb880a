#include "kernels/gpu/random_ops_gpu_tables.h"

#include <cmath>
#include <cstring>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dflow {

using gpu_random::BoxMullerAngle;
using gpu_random::BoxMullerU1;
using gpu_random::NextFloat;

float HostLibmLog(uint32_t k) { return std::log(BoxMullerU1(k)); }

void HostLibmSinCos(uint32_t k, float* s, float* c) {
  // Written as the CPU kernel writes it (std::sin then std::cos of one
  // float), so the compiler makes the same calls (it may fuse them into
  // sincosf, whose results glibc computes the same way).
  const float angle = BoxMullerAngle(k);
  *s = std::sin(angle);
  *c = std::cos(angle);
}

namespace {

// The code for libm's `got` against `reference` (double rounded to float),
// or -1 when they are further apart than one ulp.
int Code(float got, float reference) {
  if (std::memcmp(&got, &reference, sizeof(float)) == 0) {
    return gpu_random::kSame;
  }
  const float up = NextFloat(reference, true);
  const float down = NextFloat(reference, false);
  if (std::memcmp(&got, &up, sizeof(float)) == 0) return gpu_random::kUp;
  if (std::memcmp(&got, &down, sizeof(float)) == 0) return gpu_random::kDown;
  return -1;
}

absl::StatusOr<HostBoxMullerTables> Build() {
  HostBoxMullerTables t;
  t.log.assign(gpu_random::kTableWords, 0);
  t.sin.assign(gpu_random::kTableWords, 0);
  t.cos.assign(gpu_random::kTableWords, 0);
  for (uint32_t k = 0; k < gpu_random::kTableEntries; ++k) {
    const float u1 = BoxMullerU1(k);
    const float angle = BoxMullerAngle(k);
    float s, c;
    HostLibmSinCos(k, &s, &c);
    const float got[3] = {HostLibmLog(k), s, c};
    const float reference[3] = {
        static_cast<float>(std::log(static_cast<double>(u1))),
        static_cast<float>(std::sin(static_cast<double>(angle))),
        static_cast<float>(std::cos(static_cast<double>(angle)))};
    std::vector<uint32_t>* tables[3] = {&t.log, &t.sin, &t.cos};
    for (int f = 0; f < 3; ++f) {
      const int code = Code(got[f], reference[f]);
      if (code < 0) {
        static const char* kNames[3] = {"logf", "sinf", "cosf"};
        return absl::InternalError(absl::StrFormat(
            "this host's %s(%a) = %a is more than one ulp from the "
            "correctly rounded %a: the GPU random kernels cannot reproduce "
            "the CPU kernels' normal numbers here",
            kNames[f], f == 0 ? u1 : angle, got[f], reference[f]));
      }
      if (code != gpu_random::kSame) {
        (*tables[f])[k >> 4] |= static_cast<uint32_t>(code) << ((k & 15u) * 2);
        ++t.corrected[f];
      }
    }
  }
  return t;
}

}  // namespace

absl::StatusOr<const HostBoxMullerTables*> HostBoxMullerCorrections() {
  static std::once_flag once;
  static absl::StatusOr<HostBoxMullerTables>* tables = nullptr;
  std::call_once(
      once, [] { tables = new absl::StatusOr<HostBoxMullerTables>(Build()); });
  if (!tables->ok()) return tables->status();
  return &**tables;
}

}  // namespace dflow
