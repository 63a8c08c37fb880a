// Logical ops (LogicalNot, LogicalAnd, LogicalOr; broadcasting) and the
// selections Select (legacy: condition of t's shape, a scalar, or a vector
// picking rows) and SelectV2 (condition, t and e broadcast together).
// Bools are read as bytes (non-zero is true), as in Equal.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cwise_ops_common.h"

namespace dflow {
namespace cwise {
namespace {

const uint8_t* Bytes(const Tensor& t) {
  return reinterpret_cast<const uint8_t*>(t.data<bool>());
}

class LogicalNotOp : public OpKernel {
 public:
  explicit LogicalNotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const uint8_t* in = Bytes(x);
    bool* o = out->data<bool>();
    ParallelForShards(ctx, x.NumElements(), 1, [in, o](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = in[i] == 0;
    });
  }
};

template <bool kAnd>
class LogicalBinaryOp : public OpKernel {
 public:
  explicit LogicalBinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BCast> b = BroadcastShapes(x.shape(), y.shape());
    OP_REQUIRES_OK(ctx, b.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b->output_shape, &out));
    if (out->NumElements() == 0) return;
    BroadcastLoop(ctx, *b, Bytes(x), Bytes(y), out->data<bool>(), /*cost=*/1,
                  [](uint8_t a, uint8_t c) {
                    return kAnd ? (a != 0 && c != 0) : (a != 0 || c != 0);
                  });
  }
};

// Per input, the element strides of a row-major walk over `out`: 0 along
// the dimensions the input is broadcast.
std::vector<int64_t> BroadcastStrides(const TensorShape& in,
                                      const TensorShape& out) {
  const int rank = out.rank();
  std::vector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (int d = in.rank() - 1; d >= 0; --d) {
    const int od = d + rank - in.rank();
    strides[od] = in.dim(d) == 1 ? 0 : s;
    s *= in.dim(d);
  }
  return strides;
}

// out[i] = cond[ci] ? t[ti] : e[ei] over a broadcast walk (the general
// SelectV2 path), in shards of the output.
template <typename T>
void BroadcastSelect(OpKernelContext* ctx, const Tensor& cond, const Tensor& t,
                     const Tensor& e, Tensor* out) {
  const TensorShape& shape = out->shape();
  const int rank = shape.rank();
  const std::vector<int64_t> cs = BroadcastStrides(cond.shape(), shape);
  const std::vector<int64_t> ts = BroadcastStrides(t.shape(), shape);
  const std::vector<int64_t> es = BroadcastStrides(e.shape(), shape);
  const uint8_t* c = Bytes(cond);
  const T* tv = t.data<T>();
  const T* ev = e.data<T>();
  T* o = out->data<T>();
  ParallelForShards(ctx, out->NumElements(), 2, [&](int64_t b, int64_t end) {
    std::vector<int64_t> index(rank);
    int64_t ci = 0, ti = 0, ei = 0, rest = b;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = rest % shape.dim(d);
      rest /= shape.dim(d);
      ci += index[d] * cs[d];
      ti += index[d] * ts[d];
      ei += index[d] * es[d];
    }
    for (int64_t i = b; i < end; ++i) {
      o[i] = c[ci] != 0 ? tv[ti] : ev[ei];
      for (int d = rank - 1; d >= 0; --d) {
        ci += cs[d];
        ti += ts[d];
        ei += es[d];
        if (++index[d] < shape.dim(d)) break;
        ci -= cs[d] * shape.dim(d);
        ti -= ts[d] * shape.dim(d);
        ei -= es[d] * shape.dim(d);
        index[d] = 0;
      }
    }
  });
}

// out = cond ? t : e where every one has out's elements; a condition that
// picks rows (Select with a vector) has `row` elements per condition entry.
template <typename T>
void RowSelect(OpKernelContext* ctx, const Tensor& cond, const Tensor& t,
               const Tensor& e, Tensor* out, int64_t row) {
  const uint8_t* c = Bytes(cond);
  const T* tv = t.data<T>();
  const T* ev = e.data<T>();
  T* o = out->data<T>();
  ParallelForShards(ctx, out->NumElements(), 2,
                    [=](int64_t b, int64_t end) {
                      for (int64_t i = b; i < end; ++i) {
                        o[i] = c[i / row] != 0 ? tv[i] : ev[i];
                      }
                    });
}

template <typename T>
class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    OP_REQUIRES(ctx, t.shape() == e.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "'t' and 'e' must have the same shape, but have ",
                    t.shape().ToString(), " and ", e.shape().ToString())));
    if (cond.shape().rank() == 0) {
      ctx->set_output(0, *Bytes(cond) != 0 ? t : e);
      return;
    }
    int64_t row = 1;
    if (cond.shape() != t.shape()) {
      OP_REQUIRES(
          ctx,
          cond.shape().rank() == 1 && t.shape().rank() >= 1 &&
              cond.shape().dim(0) == t.shape().dim(0),
          absl::InvalidArgumentError(absl::StrCat(
              "'condition' must be a scalar, have the shape of 't' (",
              t.shape().ToString(),
              "), or be a vector of its first dimension; it has shape ",
              cond.shape().ToString())));
      row = t.shape().dim(0) == 0 ? 1 : t.NumElements() / t.shape().dim(0);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    if (out->NumElements() == 0) return;
    RowSelect<T>(ctx, cond, t, e, out, row);
  }
};

template <typename T>
class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    absl::StatusOr<BCast> te = BroadcastShapes(t.shape(), e.shape());
    OP_REQUIRES_OK(ctx, te.status());
    absl::StatusOr<BCast> all = BroadcastShapes(cond.shape(), te->output_shape);
    OP_REQUIRES_OK(ctx, all.status());
    const TensorShape& shape = all->output_shape;
    if (cond.NumElements() == 1 && cond.shape().rank() <= shape.rank()) {
      const Tensor& pick = *Bytes(cond) != 0 ? t : e;
      if (pick.shape() == shape) {
        ctx->set_output(0, pick);
        return;
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    if (cond.shape() == shape && t.shape() == shape && e.shape() == shape) {
      RowSelect<T>(ctx, cond, t, e, out, 1);
    } else {
      BroadcastSelect<T>(ctx, cond, t, e, out);
    }
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("LogicalNot").Device(kDeviceCpu),
                      LogicalNotOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LogicalAnd").Device(kDeviceCpu),
                      LogicalBinaryOp<true>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LogicalOr").Device(kDeviceCpu),
                      LogicalBinaryOp<false>);

#define DFLOW_REGISTER_SELECT(T)                                             \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("Select").Device(kDeviceCpu).TypeConstraint<T>("T"),  \
      SelectOp<T>);                                          \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("SelectV2").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      SelectV2Op<T>)

DFLOW_REGISTER_SELECT(float16);
DFLOW_REGISTER_SELECT(bfloat16);
DFLOW_REGISTER_SELECT(float);
DFLOW_REGISTER_SELECT(double);
DFLOW_REGISTER_SELECT(int8_t);
DFLOW_REGISTER_SELECT(uint8_t);
DFLOW_REGISTER_SELECT(int16_t);
DFLOW_REGISTER_SELECT(int32_t);
DFLOW_REGISTER_SELECT(int64_t);
DFLOW_REGISTER_SELECT(bool);
DFLOW_REGISTER_SELECT(std::string);
DFLOW_REGISTER_SELECT(complex64);
DFLOW_REGISTER_SELECT(complex128);

}  // namespace
}  // namespace cwise
}  // namespace dflow
