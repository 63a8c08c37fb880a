// The reductions of the segment kernels (index_ops_segment*.cc): each
// gives the value of a segment no row reaches and folds a row into an
// accumulated row. The row loops are plain element loops that compilers
// vectorize (add, mul, max and min have packed instructions).
#ifndef DFLOW_KERNELS_CPU_INDEX_OPS_SEGMENT_REDUCERS_H_
#define DFLOW_KERNELS_CPU_INDEX_OPS_SEGMENT_REDUCERS_H_

#include <cstdint>
#include <limits>

namespace dflow {
namespace segment_reducers {

struct Sum {
  template <typename T>
  static T Identity() {
    return T(0);
  }
  template <typename T>
  static void Fold(const T* src, int64_t n, T* dst) {
    for (int64_t c = 0; c < n; ++c) dst[c] += src[c];
  }
};

struct Prod {
  template <typename T>
  static T Identity() {
    return T(1);
  }
  template <typename T>
  static void Fold(const T* src, int64_t n, T* dst) {
    for (int64_t c = 0; c < n; ++c) dst[c] *= src[c];
  }
};

// An empty segment of the unsorted Max is T's lowest finite value, as in
// TensorFlow (not -inf).
struct Max {
  template <typename T>
  static T Identity() {
    return std::numeric_limits<T>::lowest();
  }
  template <typename T>
  static void Fold(const T* src, int64_t n, T* dst) {
    for (int64_t c = 0; c < n; ++c) dst[c] = dst[c] < src[c] ? src[c] : dst[c];
  }
};

struct Min {
  template <typename T>
  static T Identity() {
    return std::numeric_limits<T>::max();
  }
  template <typename T>
  static void Fold(const T* src, int64_t n, T* dst) {
    for (int64_t c = 0; c < n; ++c) dst[c] = src[c] < dst[c] ? src[c] : dst[c];
  }
};

}  // namespace segment_reducers
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_INDEX_OPS_SEGMENT_REDUCERS_H_
