// Einsum on the CPU, the way TensorFlow computes it: each operand's
// repeated labels become its diagonal (a view: their strides add up), the
// labels only one operand has and the output lacks are summed out, and two
// operands meet in one batched matrix product: A laid out as [batch, free
// A, contracted], B as [batch, contracted, free B] (copies only where the
// layout differs; an ellipsis dimension of size 1 is broadcast), one Gemm
// per batch (kernel_util_blas.h: the same bits for a given shape, run after
// run), then the product's labels put in the output's order.
// float and double (Gemm), int32 and int64 (a plain loop).
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/einsum_equation.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Elements at data + sum(index[d] * strides[d]), one label per dimension.
template <typename T>
struct View {
  const T* data = nullptr;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  std::vector<int> labels;

  int Find(int label) const {
    for (size_t d = 0; d < labels.size(); ++d) {
      if (labels[d] == label) return static_cast<int>(d);
    }
    return -1;
  }
};

template <typename T>
View<T> ContiguousView(const T* data, std::vector<int64_t> dims,
                       std::vector<int> labels) {
  View<T> v;
  v.data = data;
  v.strides.assign(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    v.strides[d] = v.strides[d + 1] * dims[d + 1];
  }
  v.dims = std::move(dims);
  v.labels = std::move(labels);
  return v;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string LabelName(int label) {
  if (label < 26) return std::string(1, static_cast<char>('a' + label));
  if (label < kFirstEllipsisLabel) {
    return std::string(1, static_cast<char>('A' + label - 26));
  }
  return absl::StrCat("... dimension ", label - kFirstEllipsisLabel);
}

// `v` with each label once: a repeated label's dimensions must be equal and
// become one whose stride is their strides' sum (the diagonal).
template <typename T>
absl::Status Diagonal(View<T>* v, int input) {
  View<T> out;
  out.data = v->data;
  for (size_t d = 0; d < v->labels.size(); ++d) {
    const int at = out.Find(v->labels[d]);
    if (at < 0) {
      out.labels.push_back(v->labels[d]);
      out.dims.push_back(v->dims[d]);
      out.strides.push_back(v->strides[d]);
      continue;
    }
    if (out.dims[at] != v->dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", input, " repeats label '", LabelName(v->labels[d]),
          "' over dimensions of sizes ", out.dims[at], " and ", v->dims[d],
          "; a repeated label takes a diagonal, so they must be equal"));
    }
    out.strides[at] += v->strides[d];
  }
  *v = std::move(out);
  return absl::OkStatus();
}

// Copies `v` into `out` (contiguous) with dimensions in the order of
// `labels` and sizes `dims`: a label `v` lacks, or has with size 1, is
// broadcast over its size in `dims`.
template <typename T>
void Arrange(const View<T>& v, const std::vector<int>& labels,
             const std::vector<int64_t>& dims, T* out) {
  const int rank = static_cast<int>(labels.size());
  std::vector<int64_t> strides(rank, 0);
  for (int d = 0; d < rank; ++d) {
    const int at = v.Find(labels[d]);
    if (at >= 0 && v.dims[at] == dims[d]) strides[d] = v.strides[at];
  }
  const int64_t total = Product(dims);
  if (total == 0) return;
  if (rank == 0) {
    out[0] = v.data[0];
    return;
  }
  const int64_t inner = dims[rank - 1];
  const int64_t inner_stride = strides[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t from = 0;
  for (int64_t written = 0; written < total; written += inner) {
    if (inner_stride == 1) {
      std::copy_n(v.data + from, inner, out + written);
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        out[written + i] = v.data[from + i * inner_stride];
      }
    }
    for (int d = rank - 2; d >= 0; --d) {
      from += strides[d];
      if (++index[d] < dims[d]) break;
      from -= strides[d] * dims[d];
      index[d] = 0;
    }
  }
}

// Writes contiguous `source` into `out` at the positions of `target`, a
// view of `out` with the same labels in the same order (strides of a
// diagonal).
template <typename T>
void Scatter(const View<T>& source, const View<T>& target, T* out) {
  const int rank = static_cast<int>(source.dims.size());
  const int64_t total = Product(source.dims);
  std::vector<int64_t> index(rank, 0);
  int64_t to = 0;
  for (int64_t i = 0; i < total; ++i) {
    out[to] = source.data[i];
    for (int d = rank - 1; d >= 0; --d) {
      to += target.strides[d];
      if (++index[d] < source.dims[d]) break;
      to -= target.strides[d] * source.dims[d];
      index[d] = 0;
    }
  }
}

// `v` summed over the labels in `drop` (which it has), into `buffer`; the
// result keeps the other labels in their order.
template <typename T>
View<T> SumOut(const View<T>& v, const std::vector<int>& drop,
               std::vector<T>* buffer) {
  std::vector<int> kept, order;
  std::vector<int64_t> kept_dims, order_dims;
  for (size_t d = 0; d < v.labels.size(); ++d) {
    if (std::find(drop.begin(), drop.end(), v.labels[d]) != drop.end()) {
      continue;
    }
    kept.push_back(v.labels[d]);
    kept_dims.push_back(v.dims[d]);
  }
  order = kept;
  order_dims = kept_dims;
  int64_t summed = 1;
  for (int label : drop) {
    order.push_back(label);
    order_dims.push_back(v.dims[v.Find(label)]);
    summed *= order_dims.back();
  }
  std::vector<T> arranged(static_cast<size_t>(Product(order_dims)));
  Arrange(v, order, order_dims, arranged.data());
  buffer->assign(static_cast<size_t>(Product(kept_dims)), T(0));
  for (size_t i = 0; i < buffer->size(); ++i) {
    T sum = T(0);
    const T* row = arranged.data() + i * summed;
    for (int64_t j = 0; j < summed; ++j) sum += row[j];
    (*buffer)[i] = sum;
  }
  return ContiguousView(buffer->data(), kept_dims, kept);
}

// C[b] = A[b] * B[b] for `batches` products of [m, k] by [k, n].
template <typename T>
absl::Status BatchedProduct(OpKernelContext* ctx, int64_t batches, int64_t m,
                            int64_t k, int64_t n, const T* a, const T* b,
                            T* c) {
  if (m * n == 0) return absl::OkStatus();
  if (k == 0) {
    std::fill_n(c, batches * m * n, T(0));
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < batches; ++i) {
    const T* ai = a + i * m * k;
    const T* bi = b + i * k * n;
    T* ci = c + i * m * n;
    if constexpr (std::is_floating_point_v<T>) {
      absl::Status s = Gemm<T>(ctx->thread_pool(), false, false, m, n, k, ai, k,
                               bi, n, T(0), ci, n);
      if (!s.ok()) return s;
    } else {
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t col = 0; col < n; ++col) {
          T sum = T(0);
          for (int64_t j = 0; j < k; ++j)
            sum += ai[r * k + j] * bi[j * n + col];
          ci[r * n + col] = sum;
        }
      }
    }
  }
  return absl::OkStatus();
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    OP_REQUIRES(ctx, n == 1 || n == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "Einsum takes one or two inputs, got ", n,
                    " (TensorFlow's tf.einsum splits longer ones)")));
    std::vector<int> ranks;
    for (int i = 0; i < n; ++i) ranks.push_back(ctx->input(i).shape().rank());
    absl::StatusOr<EinsumEquation> eq = ParseEinsumEquation(equation_, ranks);
    OP_REQUIRES_OK(ctx, eq.status());

    std::vector<View<T>> views;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      View<T> v = ContiguousView(t.NumElements() > 0 ? t.data<T>() : nullptr,
                                 std::vector<int64_t>(t.shape().dims().begin(),
                                                      t.shape().dims().end()),
                                 eq->inputs[i]);
      OP_REQUIRES_OK(ctx, Diagonal(&v, i));
      views.push_back(std::move(v));
    }
    // Each label's size, checked across inputs (ellipsis sizes of 1
    // broadcast).
    std::vector<int64_t> size(kFirstEllipsisLabel + 64, -1);
    for (int i = 0; i < n; ++i) {
      for (size_t d = 0; d < views[i].labels.size(); ++d) {
        const int label = views[i].labels[d];
        const int64_t s = views[i].dims[d];
        int64_t& known = size[label];
        const bool ellipsis = label >= kFirstEllipsisLabel;
        if (known < 0 || (ellipsis && known == 1)) {
          known = s;
        } else if (known != s && !(ellipsis && s == 1)) {
          ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
              "Einsum equation '", equation_, "': label '", LabelName(label),
              "' is ", known, " in one place and ", s, " in input ", i,
              "; dimensions with one label must be equal (or 1 under an "
              "ellipsis, which broadcasts)")));
          return;
        }
      }
    }
    auto in_output = [&](int label) {
      return std::find(eq->output.begin(), eq->output.end(), label) !=
             eq->output.end();
    };
    // Sum out what only one operand has and the output lacks.
    std::vector<std::vector<T>> buffers(n);
    for (int i = 0; i < n; ++i) {
      std::vector<int> drop;
      for (int label : views[i].labels) {
        const bool elsewhere = n == 2 && views[1 - i].Find(label) >= 0;
        if (!in_output(label) && !elsewhere) drop.push_back(label);
      }
      if (!drop.empty()) views[i] = SumOut(views[i], drop, &buffers[i]);
    }

    TensorShape out_shape;
    std::vector<int> result;  // the output's labels, each once
    std::vector<int64_t> out_dims;
    for (int label : eq->output) {
      out_shape.AddDim(size[label]);
      if (std::find(result.begin(), result.end(), label) != result.end()) {
        continue;
      }
      result.push_back(label);
      out_dims.push_back(size[label]);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    // With a repeated output label the result goes on a diagonal of the
    // output, so it is computed into a buffer first.
    const bool diagonal_output = result.size() < eq->output.size();
    std::vector<T> result_data(diagonal_output ? Product(out_dims) : 0);
    T* o = diagonal_output          ? result_data.data()
           : out->NumElements() > 0 ? out->data<T>()
                                    : nullptr;
    Contract(ctx, views, result, out_dims, size, in_output, o);
    if (!ctx->status().ok() || !diagonal_output) return;
    T* dst = out->data<T>();
    std::fill_n(dst, out->NumElements(), T(0));
    // The output viewed with one dimension per result label: a repeated
    // label's stride is the sum of its dimensions' strides.
    View<T> placed = ContiguousView<T>(
        dst,
        std::vector<int64_t>(out_shape.dims().begin(), out_shape.dims().end()),
        eq->output);
    OP_REQUIRES_OK(ctx, Diagonal(&placed, 0));
    const View<T> source = ContiguousView<T>(o, out_dims, result);
    Scatter(source, placed, dst);
  }

 private:
  template <typename InOutput>
  void Contract(OpKernelContext* ctx, std::vector<View<T>>& views,
                const std::vector<int>& result,
                const std::vector<int64_t>& out_dims,
                const std::vector<int64_t>& size, InOutput in_output, T* o) {
    const int n = static_cast<int>(views.size());
    if (n == 1) {
      Arrange(views[0], result, out_dims, o);
      return;
    }

    // Two operands: batch (both and the output), contracted (both, not the
    // output), free (one and the output).
    const View<T>& a = views[0];
    const View<T>& b = views[1];
    std::vector<int> batch, free_a, free_b, contracted;
    for (int label : a.labels) {
      if (b.Find(label) < 0) {
        free_a.push_back(label);
      } else if (in_output(label)) {
        batch.push_back(label);
      } else {
        contracted.push_back(label);
      }
    }
    for (int label : b.labels) {
      if (a.Find(label) < 0) free_b.push_back(label);
    }
    auto sizes_of = [&](const std::vector<int>& labels) {
      std::vector<int64_t> dims;
      for (int label : labels) dims.push_back(size[label]);
      return dims;
    };
    auto concat = [](std::vector<int> x, const std::vector<int>& y,
                     const std::vector<int>& z) {
      x.insert(x.end(), y.begin(), y.end());
      x.insert(x.end(), z.begin(), z.end());
      return x;
    };
    const int64_t batches = Product(sizes_of(batch));
    const int64_t m = Product(sizes_of(free_a));
    const int64_t k = Product(sizes_of(contracted));
    const int64_t cols = Product(sizes_of(free_b));
    const std::vector<int> a_order = concat(batch, free_a, contracted);
    const std::vector<int> b_order = concat(batch, contracted, free_b);
    const std::vector<int> c_order = concat(batch, free_a, free_b);
    std::vector<T> a_data(static_cast<size_t>(batches * m * k));
    std::vector<T> b_data(static_cast<size_t>(batches * k * cols));
    Arrange(a, a_order, sizes_of(a_order), a_data.data());
    Arrange(b, b_order, sizes_of(b_order), b_data.data());
    const bool c_is_output = c_order == result;
    std::vector<T> c_data(c_is_output ? 0 : batches * m * cols);
    T* c = c_is_output ? o : c_data.data();
    OP_REQUIRES_OK(ctx, BatchedProduct(ctx, batches, m, k, cols, a_data.data(),
                                       b_data.data(), c));
    if (!c_is_output) {
      Arrange(ContiguousView<T>(c, sizes_of(c_order), c_order), result,
              out_dims, o);
    }
  }

  std::string equation_;
};

#define DFLOW_REGISTER_EINSUM(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("Einsum").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      EinsumOp<T>)

DFLOW_REGISTER_EINSUM(float);
DFLOW_REGISTER_EINSUM(double);
DFLOW_REGISTER_EINSUM(int32_t);
DFLOW_REGISTER_EINSUM(int64_t);

#undef DFLOW_REGISTER_EINSUM

}  // namespace
}  // namespace dflow
