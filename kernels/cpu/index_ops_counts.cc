// DenseBincount and EditDistance on the CPU, as TensorFlow 2.21 computes
// them. DenseBincount counts (or sums weights of) the values of a vector,
// or of each row of a matrix, into `size` bins; values at or past `size`
// are dropped, negative ones rejected. EditDistance groups each
// SparseTensor's entries by all but the last coordinate and compares the
// groups' sequences with the Levenshtein distance: a hypothesis without a
// truth is infinitely far when normalized, a truth without a hypothesis at
// distance 1.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

template <typename T>
class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& size_t_ = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    OP_REQUIRES(ctx, size_t_.NumElements() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "size must be a scalar, got ", size_t_.shape().ToString())));
    const int64_t size = IndexAt(size_t_, 0);
    OP_REQUIRES(ctx, size >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("size (", size, ") must be non-negative")));
    const int rank = input.shape().rank();
    OP_REQUIRES(ctx, rank <= 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "Shape must be at most rank 2 but is rank ", rank)));
    const bool weighted = weights.NumElements() > 0;
    OP_REQUIRES(ctx, !weighted || weights.shape() == input.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "`weights` must be the same shape as `arr` or a length-0 "
                    "`Tensor`, in which case it acts as all weights equal to "
                    "1. Received ",
                    weights.shape().ToString(), " for `weights` and ",
                    input.shape().ToString(), " for `arr`")));
    const int64_t rows = rank == 2 ? input.shape().dim(0) : 1;
    const int64_t cols = rank == 2 ? input.shape().dim(1) : input.NumElements();
    TensorShape out_shape =
        rank == 2 ? TensorShape({rows, size}) : TensorShape({size});
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      OP_REQUIRES(ctx, IndexAt(input, i) >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Input arr must be non-negative! input[", i,
                      "] = ", IndexAt(input, i))));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const T* w = weighted ? weights.data<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t i = r * cols + c;
        const int64_t v = IndexAt(input, i);
        if (v >= size) continue;
        T& bin = o[r * size + v];
        if (binary_) {
          bin = T(1);
        } else {
          bin += weighted ? w[i] : T(1);
        }
      }
    }
  }

 private:
  bool binary_ = false;
};

// Equality of two elements of a tensor of `dtype`: by value for floats
// (-0 equals 0, NaN equals nothing), by bytes otherwise.
bool SameElement(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  switch (a.dtype()) {
    case DT_FLOAT:
      return a.data<float>()[i] == b.data<float>()[j];
    case DT_DOUBLE:
      return a.data<double>()[i] == b.data<double>()[j];
    case DT_STRING:
      return a.data<std::string>()[i] == b.data<std::string>()[j];
    default: {
      const size_t n = DataTypeSize(StorageDataType(a.dtype()));
      return std::memcmp(static_cast<const char*>(a.raw_data()) + i * n,
                         static_cast<const char*>(b.raw_data()) + j * n,
                         n) == 0;
    }
  }
}

class EditDistanceOp : public OpKernel {
 public:
  explicit EditDistanceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("normalize", &normalize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& h_shape = ctx->input(2);
    const Tensor& t_shape = ctx->input(5);
    OP_REQUIRES(
        ctx, h_shape.shape().rank() == 1 && t_shape.shape().rank() == 1,
        absl::InvalidArgumentError("hypothesis_shape and truth_shape must be "
                                   "vectors"));
    OP_REQUIRES(ctx, h_shape.NumElements() == t_shape.NumElements(),
                absl::InvalidArgumentError(absl::StrCat(
                    "Expected truth and hypothesis to have matching ranks, "
                    "but their shapes are: ",
                    t_shape.shape().ToString(), " and ",
                    h_shape.shape().ToString())));
    const int rank = static_cast<int>(h_shape.NumElements());
    OP_REQUIRES(ctx, rank >= 1,
                absl::InvalidArgumentError(
                    "the SparseTensors must have rank >= 1"));
    const int64_t* hs = h_shape.data<int64_t>();
    const int64_t* ts = t_shape.data<int64_t>();
    std::vector<int64_t> out_dims;
    TensorShape out_shape;
    for (int i = 0; i + 1 < rank; ++i) {
      OP_REQUIRES(ctx, hs[i] >= 0 && ts[i] >= 0,
                  absl::InvalidArgumentError("shapes must be non-negative"));
      out_dims.push_back(std::max(hs[i], ts[i]));
      out_shape.AddDim(out_dims.back());
    }
    std::vector<Group> hyp, truth;
    OP_REQUIRES_OK(ctx, Groups(ctx->input(0), ctx->input(1), hs, rank,
                               "hypothesis", out_dims, &hyp));
    OP_REQUIRES_OK(ctx, Groups(ctx->input(3), ctx->input(4), ts, rank,
                               "truth", out_dims, &truth));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    float* o = out->data<float>();
    std::fill(o, o + out->NumElements(), 0.0f);
    const Tensor& hv = ctx->input(1);
    const Tensor& tv = ctx->input(4);
    // Both lists are sorted by location: walk them together.
    size_t a = 0, b = 0;
    while (a < hyp.size() || b < truth.size()) {
      if (b == truth.size() ||
          (a < hyp.size() && hyp[a].location < truth[b].location)) {
        const float n = static_cast<float>(hyp[a].end - hyp[a].begin);
        o[hyp[a].location] =
            normalize_ ? std::numeric_limits<float>::infinity() : n;
        ++a;
      } else if (a == hyp.size() || truth[b].location < hyp[a].location) {
        const float n = static_cast<float>(truth[b].end - truth[b].begin);
        o[truth[b].location] = normalize_ ? 1.0f : n;
        ++b;
      } else {
        float d = static_cast<float>(Levenshtein(hv, hyp[a], tv, truth[b]));
        if (normalize_) d /= static_cast<float>(truth[b].end - truth[b].begin);
        o[hyp[a].location] = d;
        ++a;
        ++b;
      }
    }
  }

 private:
  // The entries [begin, end) sharing all but the last coordinate, whose
  // flat position in the output is `location`.
  struct Group {
    int64_t location, begin, end;
  };

  static absl::Status Groups(const Tensor& indices, const Tensor& values,
                             const int64_t* shape, int rank,
                             const char* what,
                             const std::vector<int64_t>& out_dims,
                             std::vector<Group>* groups) {
    if (indices.shape().rank() != 2 || indices.shape().dim(1) != rank ||
        values.shape().rank() != 1 ||
        values.shape().dim(0) != indices.shape().dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " must be a SparseTensor of rank ", rank, ": indices ",
          indices.shape().ToString(), ", values ", values.shape().ToString()));
    }
    const int64_t n = indices.shape().dim(0);
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t* row = idx + i * rank;
      for (int k = 0; k < rank; ++k) {
        if (row[k] < 0 || row[k] >= shape[k]) {
          return absl::InvalidArgumentError(absl::StrCat(
              what, "_indices[", i, "] = [",
              absl::StrJoin(row, row + rank, ","),
              "] is out of bounds of its shape [",
              absl::StrJoin(shape, shape + rank, ","), "]"));
        }
      }
      if (i > 0 && !std::lexicographical_compare(row - rank, row, row,
                                                 row + rank)) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, "_indices[", i, "] = [", absl::StrJoin(row, row + rank, ","),
            "] is out of order or repeated: a SparseTensor's indices must "
            "be in row-major order (tf.sparse.reorder)"));
      }
      int64_t location = 0;
      for (int k = 0; k + 1 < rank; ++k) {
        location = location * out_dims[k] + row[k];
      }
      if (groups->empty() || groups->back().location != location) {
        groups->push_back({location, i, i + 1});
      } else {
        groups->back().end = i + 1;
      }
    }
    return absl::OkStatus();
  }

  static int64_t Levenshtein(const Tensor& hv, const Group& h,
                             const Tensor& tv, const Group& t) {
    const int64_t m = t.end - t.begin;
    std::vector<int64_t> prev(m + 1), cur(m + 1);
    for (int64_t j = 0; j <= m; ++j) prev[j] = j;
    for (int64_t i = 1; i <= h.end - h.begin; ++i) {
      cur[0] = i;
      for (int64_t j = 1; j <= m; ++j) {
        const bool same =
            SameElement(hv, h.begin + i - 1, tv, t.begin + j - 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                           prev[j - 1] + (same ? 0 : 1)});
      }
      std::swap(prev, cur);
    }
    return prev[m];
  }

  bool normalize_ = true;
};

#define DFLOW_REGISTER_BINCOUNT(T)                                      \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("DenseBincount")               \
                            .Device(kDeviceCpu)                         \
                            .TypeConstraint<T>("T")                     \
                            .HostMemory("size"),                        \
                        DenseBincountOp<T>);
DFLOW_REGISTER_BINCOUNT(int32_t)
DFLOW_REGISTER_BINCOUNT(int64_t)
DFLOW_REGISTER_BINCOUNT(float)
DFLOW_REGISTER_BINCOUNT(double)
#undef DFLOW_REGISTER_BINCOUNT

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("EditDistance")
        .Device(kDeviceCpu)
        .TypeConstraint("T", array_kernels::AllTensorTypes()),
    EditDistanceOp);

}  // namespace
}  // namespace dflow
