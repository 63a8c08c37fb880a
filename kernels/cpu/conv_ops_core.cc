// The arithmetic of the CPU convolution kernels: im2col + GEMM, for what
// oneDNN's direct convolutions do not take (conv_ops_onednn.h: float
// convolutions of one group go there first; DFLOW_CONV=im2col keeps them
// here).
//
// Why im2col + OpenBLAS rather than Eigen's tensor contraction of image
// patches (the approach of TensorFlow's SpatialConvolution): the repository
// builds with plain -O2 (SSE2 code), while OpenBLAS picks AVX2/FMA kernels
// at run time. On the CIFAR-10 layer (batch 128, 24x24x64 input, 5x5x64x64
// filter, SAME: 15.1 GFLOP) on this project's AMD EPYC machine, one thread,
// CPU time (the machine is shared, so wall time is noisy), best of 3:
//   Eigen extract_image_patches + contract:   1000 ms   15 GFLOP/s
//   im2col tiles + Eigen matrix product:       524 ms   29 GFLOP/s
//   im2col tiles + cblas_sgemm:                206 ms   73 GFLOP/s
// (bench/conv_bench.cc times the kernel itself: 221 ms CPU per step with
// its output allocation.)
//
// The im2col matrix of a whole batch is large (1.9 GB for the layer above),
// so it is built in tiles of output positions, each multiplied as soon as
// it is built. Tiles of about 1 MB were fastest: on the layer above, 32-row
// tiles (200 KB) ran at 67 GFLOP/s, 160 rows at 74, 2048 rows (13 MB) at
// 58; with 3 input channels (patch 75 floats) anything from 384 rows up ran
// at 52. Shards of the shared thread pool claim tiles; OpenBLAS runs
// single-threaded (kernel_util_blas.h) so it does not fight the pool.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/conv_ops_common.h"
#include "kernels/cpu/conv_ops_onednn.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace conv {
namespace {

// --- GEMM: row-major C (m x n) = op(A) (m x k) * op(B) (k x n) [+ C]. ---

// Integers have no BLAS: Eigen's product on uint32 (wrapping arithmetic).
void IntegerGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                 const uint32_t* a, int64_t lda, const uint32_t* b, int64_t ldb,
                 bool accumulate, uint32_t* c, int64_t ldc) {
  using Matrix =
      Eigen::Matrix<uint32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<const Matrix, 0, Stride> ma(a, trans_a ? k : m, trans_a ? m : k,
                                         Stride(lda));
  Eigen::Map<const Matrix, 0, Stride> mb(b, trans_b ? n : k, trans_b ? k : n,
                                         Stride(ldb));
  Eigen::Map<Matrix, 0, Stride> mc(c, m, n, Stride(ldc));
  if (!accumulate) mc.setZero();
  if (!trans_a && !trans_b) {
    mc.noalias() += ma * mb;
  } else if (!trans_a) {
    mc.noalias() += ma * mb.transpose();
  } else if (!trans_b) {
    mc.noalias() += ma.transpose() * mb;
  } else {
    mc.noalias() += ma.transpose() * mb.transpose();
  }
}

// Floats go to single-threaded OpenBLAS (kernel_util_blas.h): the callers
// here already split the work over the pool. Sizes were checked against
// BLAS's limits when the geometry was computed.
template <typename T>
void MatMul(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
            const T* a, int64_t lda, const T* b, int64_t ldb, bool accumulate,
            T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, uint32_t>) {
    if (m == 0 || n == 0) return;
    IntegerGemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, accumulate, c, ldc);
  } else {
    const absl::Status s =
        Gemm<T>(/*pool=*/nullptr, trans_a, trans_b, m, n, k, a, lda, b, ldb,
                accumulate ? T(1) : T(0), c, ldc);
    (void)s;
  }
}

// --- im2col and its adjoint. ---

// Rows [begin, end) of group `group`'s im2col matrix (one row per output
// position, columns ordered (filter row, filter col, channel) like the
// filter's rows) into `patches`.
template <typename T>
void Im2Col(const ConvGeometry& g, const T* input, int64_t group, int64_t begin,
            int64_t end, T* patches) {
  const int64_t depth = g.filter_depth, span = g.filter_cols * depth;
  const int64_t out_area = g.out_rows * g.out_cols;
  int64_t n = begin / out_area, oh = begin % out_area / g.out_cols,
          ow = begin % g.out_cols;
  // A whole filter row is one contiguous run of the input when it reads
  // consecutive pixels with every channel.
  const bool contiguous_rows = g.groups == 1 && g.dilation_cols == 1;
  T* dst = patches;
  for (int64_t r = begin; r < end; ++r) {
    const T* image =
        input + n * g.in_rows * g.in_cols * g.in_depth + group * depth;
    const int64_t ih0 = oh * g.stride_rows - g.pad_top;
    const int64_t iw0 = ow * g.stride_cols - g.pad_left;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t ih = ih0 + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) {
        std::fill_n(dst, span, T(0));
        dst += span;
        continue;
      }
      const T* row = image + ih * g.in_cols * g.in_depth;
      if (contiguous_rows && iw0 >= 0 && iw0 + g.filter_cols <= g.in_cols) {
        std::copy_n(row + iw0 * g.in_depth, span, dst);
        dst += span;
        continue;
      }
      for (int64_t kw = 0; kw < g.filter_cols; ++kw, dst += depth) {
        const int64_t iw = iw0 + kw * g.dilation_cols;
        if (iw < 0 || iw >= g.in_cols) {
          std::fill_n(dst, depth, T(0));
        } else {
          std::copy_n(row + iw * g.in_depth, depth, dst);
        }
      }
    }
    if (++ow == g.out_cols) {
      ow = 0;
      if (++oh == g.out_rows) {
        oh = 0;
        ++n;
      }
    }
  }
}

// Adds rows [begin, end) of image `n`'s im2col matrix for group `group` (row
// p is output position p of the image) back into the image's pixels.
template <typename T>
void Col2ImAdd(const ConvGeometry& g, const T* patches, int64_t n,
               int64_t group, int64_t begin, int64_t end, T* input) {
  const int64_t depth = g.filter_depth;
  T* image = input + n * g.in_rows * g.in_cols * g.in_depth + group * depth;
  const T* src = patches;
  int64_t oh = begin / g.out_cols, ow = begin % g.out_cols;
  for (int64_t p = begin; p < end; ++p) {
    const int64_t ih0 = oh * g.stride_rows - g.pad_top;
    const int64_t iw0 = ow * g.stride_cols - g.pad_left;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t ih = ih0 + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) {
        src += g.filter_cols * depth;
        continue;
      }
      T* row = image + ih * g.in_cols * g.in_depth;
      for (int64_t kw = 0; kw < g.filter_cols; ++kw, src += depth) {
        const int64_t iw = iw0 + kw * g.dilation_cols;
        if (iw < 0 || iw >= g.in_cols) continue;
        T* dst = row + iw * g.in_depth;
        for (int64_t c = 0; c < depth; ++c) dst[c] += src[c];
      }
    }
    if (++ow == g.out_cols) {
      ow = 0;
      ++oh;
    }
  }
}

// A 1x1 convolution with stride 1 and no padding multiplies the input
// itself: its im2col matrix is the input viewed as [positions, depth].
bool IsPointwise(const ConvGeometry& g) {
  return g.filter_rows == 1 && g.filter_cols == 1 && g.stride_rows == 1 &&
         g.stride_cols == 1 && g.pad_top == 0 && g.pad_left == 0 &&
         g.groups == 1 && g.out_rows == g.in_rows && g.out_cols == g.in_cols;
}

// --- Tiling over the shared pool. ---

// Im2col tiles of about this many bytes (within these row counts) ran
// fastest; see the measurements at the top.
constexpr int64_t kTileBytes = 1 << 20;
constexpr int64_t kMinTileRows = 32, kMaxTileRows = 1024;
// Below this much work (multiply-adds) per shard, a thread hand-off costs
// more than it saves.
constexpr double kMinWorkPerShard = 1 << 17;

struct TilePlan {
  int64_t tile_rows = 1;  // rows per tile
  int64_t num_tiles = 0;
  int shards = 1;  // tiles run on this many threads, each with its scratch
};

TilePlan PlanTiles(const OpKernelContext* ctx, int64_t rows, int64_t tile_rows,
                   double work_per_row) {
  TilePlan plan;
  plan.tile_rows = std::max<int64_t>(1, std::min(tile_rows, rows));
  plan.num_tiles = (rows + plan.tile_rows - 1) / plan.tile_rows;
  const double work = work_per_row * static_cast<double>(rows);
  const int64_t by_work =
      std::max<int64_t>(1, static_cast<int64_t>(work / kMinWorkPerShard));
  plan.shards = static_cast<int>(std::min<int64_t>(
      {ctx->thread_pool()->num_threads(), plan.num_tiles, by_work}));
  return plan;
}

int64_t PatchTileRows(int64_t patch_size, size_t element_size) {
  const int64_t bytes =
      std::max<int64_t>(1, patch_size * static_cast<int64_t>(element_size));
  return std::clamp(kTileBytes / bytes, kMinTileRows, kMaxTileRows);
}

// Runs fn(shard, begin, end) over the row tiles of `plan` on plan.shards
// threads. Dynamic: shards claim the next tile as they finish one.
void RunTiles(OpKernelContext* ctx, const TilePlan& plan, int64_t rows,
              const std::function<void(int, int64_t, int64_t)>& fn) {
  std::atomic<int64_t> next{0};
  auto shard_fn = [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s) {
      for (int64_t t; (t = next.fetch_add(1)) < plan.num_tiles;) {
        const int64_t r0 = t * plan.tile_rows;
        fn(static_cast<int>(s), r0, std::min(rows, r0 + plan.tile_rows));
      }
    }
  };
  if (plan.shards <= 1) {
    shard_fn(0, 1);
    return;
  }
  // One block per shard: the cost says every block is worth a thread.
  ctx->thread_pool()->ParallelFor(plan.shards, int64_t{1} << 30, shard_fn);
}

// Scratch of `count` elements of T, or null with ctx's status set.
template <typename T>
T* Scratch(OpKernelContext* ctx, int64_t count, Tensor* holder) {
  if (!ctx->allocate_temp(DataTypeToEnum<T>::value,
                          TensorShape({std::max<int64_t>(count, 1)}), holder)
           .ok()) {
    return nullptr;
  }
  return holder->data<T>();
}

}  // namespace

template <typename T>
void ConvForward(OpKernelContext* ctx, const ConvGeometry& g, const T* input,
                 const T* filter, T* output) {
  if constexpr (std::is_same_v<T, float>) {
    if (OneDnnConvolves(g) &&
        OneDnnConvolve(ctx->thread_pool(), ConvPass::kForward, g, input, filter,
                       output)
            .ok()) {
      return;
    }
  }
  const int64_t rows = g.out_positions(), k = g.patch_size();
  const int64_t out_depth = g.out_depth, group_depth = g.out_depth_per_group();
  if (rows == 0 || out_depth == 0) return;
  const double work_per_row = static_cast<double>(k) * out_depth;
  if (IsPointwise(g)) {
    const TilePlan plan = PlanTiles(ctx, rows, kMaxTileRows, work_per_row);
    RunTiles(ctx, plan, rows, [&](int, int64_t r0, int64_t r1) {
      MatMul<T>(false, false, r1 - r0, out_depth, k, input + r0 * g.in_depth,
                g.in_depth, filter, out_depth, false, output + r0 * out_depth,
                out_depth);
    });
    return;
  }
  const TilePlan plan =
      PlanTiles(ctx, rows, PatchTileRows(k, sizeof(T)), work_per_row);
  Tensor scratch;
  T* patches = Scratch<T>(ctx, plan.shards * plan.tile_rows * k, &scratch);
  if (patches == nullptr) return;
  RunTiles(ctx, plan, rows, [&](int shard, int64_t r0, int64_t r1) {
    T* buffer = patches + shard * plan.tile_rows * k;
    for (int64_t group = 0; group < g.groups; ++group) {
      Im2Col(g, input, group, r0, r1, buffer);
      MatMul<T>(false, false, r1 - r0, group_depth, k, buffer, k,
                filter + group * group_depth, out_depth, false,
                output + r0 * out_depth + group * group_depth, out_depth);
    }
  });
}

// With stride 1, the input gradient is itself a convolution: of the output
// gradient with the filter flipped in space and with its in and out
// channels swapped, padded so that every input position gets an output.
template <typename T>
void BackpropInputAsConv(OpKernelContext* ctx, const ConvGeometry& g,
                         const T* filter, const T* out_backprop,
                         T* in_backprop) {
  const int64_t rows = g.filter_rows, cols = g.filter_cols;
  const int64_t in_group = g.filter_depth, out_group = g.out_depth_per_group();
  ConvGeometry t;
  t.batch = g.batch;
  t.in_rows = g.out_rows;
  t.in_cols = g.out_cols;
  t.in_depth = g.out_depth;
  t.filter_rows = rows;
  t.filter_cols = cols;
  t.filter_depth = out_group;
  t.out_depth = g.in_depth;
  t.groups = g.groups;
  t.out_rows = g.in_rows;
  t.out_cols = g.in_cols;
  t.dilation_rows = g.dilation_rows;
  t.dilation_cols = g.dilation_cols;
  t.pad_top = (rows - 1) * g.dilation_rows - g.pad_top;
  t.pad_left = (cols - 1) * g.dilation_cols - g.pad_left;
  Tensor holder;
  T* flipped = Scratch<T>(ctx, rows * cols * out_group * g.in_depth, &holder);
  if (flipped == nullptr) return;
  // flipped[rows-1-i][cols-1-j][o][group*in_group + c] =
  //     filter[i][j][c][group*out_group + o]
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const T* src = filter + (i * cols + j) * in_group * g.out_depth;
      T* dst = flipped + ((rows - 1 - i) * cols + (cols - 1 - j)) * out_group *
                             g.in_depth;
      for (int64_t c = 0; c < in_group; ++c) {
        for (int64_t o = 0; o < g.out_depth; ++o) {
          const int64_t group = o / out_group;
          dst[(o % out_group) * g.in_depth + group * in_group + c] =
              src[c * g.out_depth + o];
        }
      }
    }
  }
  ConvForward(ctx, t, out_backprop, flipped, in_backprop);
}

template <typename T>
void ConvBackpropInput(OpKernelContext* ctx, const ConvGeometry& g,
                       const T* filter, const T* out_backprop, T* in_backprop) {
  if constexpr (std::is_same_v<T, float>) {
    if (OneDnnConvolves(g) &&
        OneDnnConvolve(ctx->thread_pool(), ConvPass::kBackpropInput, g, filter,
                       out_backprop, in_backprop)
            .ok()) {
      return;
    }
  }
  const int64_t k = g.patch_size(), out_depth = g.out_depth;
  const int64_t group_depth = g.out_depth_per_group();
  const int64_t image_size = g.in_rows * g.in_cols * g.in_depth;
  const int64_t out_area = g.out_rows * g.out_cols;
  if (g.batch * image_size == 0) return;
  if (k == 0 || out_depth == 0) {
    std::fill_n(in_backprop, g.batch * image_size, T(0));
    return;
  }
  const double work_per_position = static_cast<double>(k) * out_depth;
  // As a convolution, the GEMM's output width is the input's channels per
  // group: with few of them it runs far below peak, and the scatter below is
  // faster. CIFAR-10 layers, 1 thread (CPU time): 24x24x64 input, 5x5x64x64
  // filter: 243 ms as a convolution, 329 ms by scatter; 24x24x3 input,
  // 5x5x3x64 filter: 86 ms as a convolution, 19 ms by scatter.
  constexpr int64_t kMinDepthAsConv = 16;
  if (!IsPointwise(g) && g.stride_rows == 1 && g.stride_cols == 1 &&
      g.filter_depth >= kMinDepthAsConv) {
    BackpropInputAsConv(ctx, g, filter, out_backprop, in_backprop);
    return;
  }
  if (IsPointwise(g)) {
    // d input = d output * filter^T, row by row.
    const int64_t rows = g.out_positions();
    const TilePlan plan = PlanTiles(ctx, rows, kMaxTileRows, work_per_position);
    RunTiles(ctx, plan, rows, [&](int, int64_t r0, int64_t r1) {
      MatMul<T>(false, true, r1 - r0, g.in_depth, out_depth,
                out_backprop + r0 * out_depth, out_depth, filter, out_depth,
                false, in_backprop + r0 * g.in_depth, g.in_depth);
    });
    return;
  }
  // Each image's gradient is the sum of its patches' gradients, so a tile
  // is a whole image (no two threads add into one pixel), processed in
  // chunks of output positions.
  const int64_t chunk =
      std::max<int64_t>(1, std::min(out_area, PatchTileRows(k, sizeof(T))));
  const TilePlan plan =
      PlanTiles(ctx, g.batch, 1, work_per_position * out_area);
  Tensor scratch;
  T* patches = Scratch<T>(ctx, plan.shards * chunk * k, &scratch);
  if (patches == nullptr) return;
  RunTiles(ctx, plan, g.batch, [&](int shard, int64_t n0, int64_t n1) {
    T* buffer = patches + shard * chunk * k;
    for (int64_t n = n0; n < n1; ++n) {
      std::fill_n(in_backprop + n * image_size, image_size, T(0));
      const T* dy = out_backprop + n * out_area * out_depth;
      for (int64_t p0 = 0; p0 < out_area && k > 0; p0 += chunk) {
        const int64_t p1 = std::min(out_area, p0 + chunk);
        for (int64_t group = 0; group < g.groups; ++group) {
          MatMul<T>(false, true, p1 - p0, k, group_depth,
                    dy + p0 * out_depth + group * group_depth, out_depth,
                    filter + group * group_depth, out_depth, false, buffer, k);
          Col2ImAdd(g, buffer, n, group, p0, p1, in_backprop);
        }
      }
    }
  });
}

template <typename T>
void ConvBackpropFilter(OpKernelContext* ctx, const ConvGeometry& g,
                        const T* input, const T* out_backprop,
                        T* filter_backprop) {
  if constexpr (std::is_same_v<T, float>) {
    if (OneDnnConvolves(g) &&
        OneDnnConvolve(ctx->thread_pool(), ConvPass::kBackpropFilter, g, input,
                       out_backprop, filter_backprop)
            .ok()) {
      return;
    }
  }
  const int64_t rows = g.out_positions(), k = g.patch_size();
  const int64_t out_depth = g.out_depth, group_depth = g.out_depth_per_group();
  const int64_t filter_size = k * out_depth;
  if (filter_size == 0) return;
  std::fill_n(filter_backprop, filter_size, T(0));
  if (rows == 0) return;
  const bool pointwise = IsPointwise(g);
  const TilePlan plan = PlanTiles(
      ctx, rows, pointwise ? kMaxTileRows : PatchTileRows(k, sizeof(T)),
      static_cast<double>(k) * out_depth);
  // Shard s sums its tiles into its own accumulator (shard 0 into the
  // output); the accumulators are added in shard order afterwards. Shards
  // take fixed, contiguous tile ranges so the sums do not depend on timing.
  Tensor scratch;
  const int64_t patch_elements = pointwise ? 0 : plan.tile_rows * k;
  const int64_t per_shard = patch_elements + filter_size;
  T* buffers = Scratch<T>(ctx, plan.shards * per_shard, &scratch);
  if (buffers == nullptr) return;
  auto run_shard = [&](int64_t s) {
    T* patches = buffers + s * per_shard;
    T* acc = s == 0 ? filter_backprop : patches + patch_elements;
    if (s > 0) std::fill_n(acc, filter_size, T(0));
    const int64_t t0 = plan.num_tiles * s / plan.shards;
    const int64_t t1 = plan.num_tiles * (s + 1) / plan.shards;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = t * plan.tile_rows;
      const int64_t r1 = std::min(rows, r0 + plan.tile_rows);
      for (int64_t group = 0; group < g.groups; ++group) {
        const T* a = input + r0 * g.in_depth;
        if (!pointwise) {
          Im2Col(g, input, group, r0, r1, patches);
          a = patches;
        }
        MatMul<T>(true, false, k, group_depth, r1 - r0, a, k,
                  out_backprop + r0 * out_depth + group * group_depth,
                  out_depth, true, acc + group * group_depth, out_depth);
      }
    }
  };
  if (plan.shards <= 1) {
    run_shard(0);
  } else {
    ctx->thread_pool()->ParallelFor(plan.shards, int64_t{1} << 30,
                                    [&](int64_t begin, int64_t end) {
                                      for (int64_t s = begin; s < end; ++s) {
                                        run_shard(s);
                                      }
                                    });
  }
  for (int s = 1; s < plan.shards; ++s) {
    const T* acc = buffers + s * per_shard + patch_elements;
    for (int64_t i = 0; i < filter_size; ++i) filter_backprop[i] += acc[i];
  }
}

#define DFLOW_INSTANTIATE_CONV(T)                                            \
  template void ConvForward<T>(OpKernelContext*, const ConvGeometry&,        \
                               const T*, const T*, T*);                      \
  template void ConvBackpropInput<T>(OpKernelContext*, const ConvGeometry&,  \
                                     const T*, const T*, T*);                \
  template void ConvBackpropFilter<T>(OpKernelContext*, const ConvGeometry&, \
                                      const T*, const T*, T*)

DFLOW_INSTANTIATE_CONV(float);
DFLOW_INSTANTIATE_CONV(double);
DFLOW_INSTANTIATE_CONV(uint32_t);

#undef DFLOW_INSTANTIATE_CONV

}  // namespace conv
}  // namespace dflow
