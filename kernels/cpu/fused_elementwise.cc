// _FusedElementwise (made by compiler/fuse_elementwise.h): a tree of
// element-wise ops evaluated in one walk over the data.
//
// The output is cut into blocks of kBlock elements; for each block every
// op of the program runs in order on the block, its result going to a
// temporary of kBlock elements (or, for the last op, straight into the
// output). Temporaries are reused once their last reader has run, so a
// tree needs as many as it has results alive at once. Blocks are spread
// over the pool when the work is large (ParallelForShards).
//
// kBlock = 512: a float temporary is 2 KiB, so a block's inputs, output
// and temporaries stay in the 32 KiB L1. Measured with bench/fusion_bench
// on the 2-core development machine (AMD EPYC, 32 MiB L3, loaded by other
// builds: medians of CPU time, 1 thread), Relu(Square(x * 0.5 + 1)) over
// 1M floats: unfused ~700-900 us; fused with 512-element blocks ~560-
// 1100 us, with 2048 ~1050-1280 us (a 2048-block working set of 32 KiB
// thrashes L1). Over 64K floats (all in L2) fusion does not pay here:
// ~45 us unfused, ~55 us fused (each op is one Eigen call per block).
// Because of the 32 MiB L3, unfused chains over 1M floats never reach
// DRAM either; the gain of one pass shows only where tensors outgrow it.
//
// Each op applies the same Eigen expression as its unfused kernel (the
// functors of cwise_ops_common.h and cwise_ops_unary_functors.h), to maps that
// start at multiples of kBlock (a multiple of every packet size), so the
// vectorized and scalar parts of each op line up with the unfused kernel's
// (whose threads split the data at multiples of kElementShardAlign,
// ParallelForElements): the results are the same bits on any number of threads.
//
// A one-element operand repeats over the block, as in the unfused binary
// kernels (FlatBinary's constant()); an op of one-element operands only
// is computed on one element.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/cwise_ops_common.h"
#include "kernels/cpu/cwise_ops_unary_functors.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Elements per block: a multiple of every SIMD packet (16 floats); see
// the top of the file for the choice.
constexpr int64_t kBlock = 512;

// Frees the 64-byte aligned temporaries (T is a plain number type: no
// destructors to run).
struct AlignedArrayDelete {
  void operator()(void* p) const {
    ::operator delete[](p, std::align_val_t{64});
  }
};

enum class Code {
  kNeg,
  kSquare,
  kSqrt,
  kRsqrt,
  kExp,
  kLog,
  kRelu,
  kSigmoid,
  kTanh,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kMinimum,
  kSquaredDifference,
};

struct OpInfo {
  const char* name;
  Code code;
  int arity;
  int64_t cost;
};

constexpr OpInfo kOps[] = {
    {"Neg", Code::kNeg, 1, cwise::NegFunctor::kCost},
    {"Square", Code::kSquare, 1, cwise::SquareFunctor::kCost},
    {"Sqrt", Code::kSqrt, 1, cwise::SqrtFunctor::kCost},
    {"Rsqrt", Code::kRsqrt, 1, cwise::RsqrtFunctor::kCost},
    {"Exp", Code::kExp, 1, cwise::ExpFunctor::kCost},
    {"Log", Code::kLog, 1, cwise::LogFunctor::kCost},
    {"Relu", Code::kRelu, 1, cwise::ReluFunctor::kCost},
    {"Sigmoid", Code::kSigmoid, 1, cwise::SigmoidFunctor::kCost},
    {"Tanh", Code::kTanh, 1, cwise::TanhFunctor::kCost},
    {"Add", Code::kAdd, 2, cwise::AddFunctor::kCost},
    {"AddV2", Code::kAdd, 2, cwise::AddFunctor::kCost},
    {"Sub", Code::kSub, 2, cwise::SubFunctor::kCost},
    {"Mul", Code::kMul, 2, cwise::MulFunctor::kCost},
    {"RealDiv", Code::kDiv, 2, cwise::DivFunctor::kCost},
    {"Maximum", Code::kMaximum, 2, cwise::MaximumFunctor::kCost},
    {"Minimum", Code::kMinimum, 2, cwise::MinimumFunctor::kCost},
    {"SquaredDifference", Code::kSquaredDifference, 2,
     cwise::SquaredDifferenceFunctor::kCost},
};

const OpInfo* FindOp(const std::string& name) {
  for (const OpInfo& op : kOps) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

// One op of the program: operands k < N are inputs, k >= N results.
struct Instr {
  Code code;
  int arity;
  int operand[2];
  int slot;  // the temporary its result goes to (-1: the output)
};

// One operand or result within a block: `len` elements at `data`, or one
// element that repeats.
template <typename E>
struct Value {
  const E* data;
  bool repeats;
};

// Not inlined: each op's loop is compiled on its own, as in its kernel,
// rather than all sixteen inside one switch.
template <typename F, typename E>
__attribute__((noinline)) void Unary(const Value<E>& x, E* out, int64_t len) {
  cwise::InMap<E, 1> xm(x.data, len);
  cwise::OutMap<E, 1> om(out, len);
  om = F::Apply(xm);
}

// As cwise::FlatBinary, on one block.
template <typename F, typename E>
__attribute__((noinline)) void Binary(const Value<E>& x, const Value<E>& y,
                                      E* out, int64_t len) {
  cwise::OutMap<E, 1> om(out, len);
  if (x.repeats && len > 1) {
    cwise::InMap<E, 1> ym(y.data, len);
    om = F::Apply(ym.constant(x.data[0]), ym);
  } else if (y.repeats && len > 1) {
    cwise::InMap<E, 1> xm(x.data, len);
    om = F::Apply(xm, xm.constant(y.data[0]));
  } else {
    cwise::InMap<E, 1> xm(x.data, len);
    cwise::InMap<E, 1> ym(y.data, len);
    om = F::Apply(xm, ym);
  }
}

template <typename E>
void Apply(Code code, const Value<E>& x, const Value<E>& y, E* out,
           int64_t len) {
  switch (code) {
    case Code::kNeg:
      return Unary<cwise::NegFunctor>(x, out, len);
    case Code::kSquare:
      return Unary<cwise::SquareFunctor>(x, out, len);
    case Code::kSqrt:
      return Unary<cwise::SqrtFunctor>(x, out, len);
    case Code::kRsqrt:
      return Unary<cwise::RsqrtFunctor>(x, out, len);
    case Code::kExp:
      return Unary<cwise::ExpFunctor>(x, out, len);
    case Code::kLog:
      return Unary<cwise::LogFunctor>(x, out, len);
    case Code::kRelu:
      return Unary<cwise::ReluFunctor>(x, out, len);
    case Code::kSigmoid:
      return Unary<cwise::SigmoidFunctor>(x, out, len);
    case Code::kTanh:
      return Unary<cwise::TanhFunctor>(x, out, len);
    case Code::kAdd:
      return Binary<cwise::AddFunctor>(x, y, out, len);
    case Code::kSub:
      return Binary<cwise::SubFunctor>(x, y, out, len);
    case Code::kMul:
      return Binary<cwise::MulFunctor>(x, y, out, len);
    case Code::kDiv:
      return Binary<cwise::DivFunctor>(x, y, out, len);
    case Code::kMaximum:
      return Binary<cwise::MaximumFunctor>(x, y, out, len);
    case Code::kMinimum:
      return Binary<cwise::MinimumFunctor>(x, y, out, len);
    case Code::kSquaredDifference:
      return Binary<cwise::SquaredDifferenceFunctor>(x, y, out, len);
  }
}

template <typename T>
class FusedElementwiseOp : public OpKernel {
 public:
  explicit FusedElementwiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n_inputs = ctx->num_inputs();
    // The output's shape: every input has it or is one element of at most
    // its rank, so it is an input of the highest rank, preferring one that
    // is not one element ([3,4] over [1,1]; [0], no elements, over []).
    int widest = 0;
    for (int i = 1; i < n_inputs; ++i) {
      const TensorShape& s = ctx->input(i).shape();
      const TensorShape& w = ctx->input(widest).shape();
      if (s.rank() > w.rank() ||
          (s.rank() == w.rank() && w.num_elements() == 1 &&
           s.num_elements() != 1)) {
        widest = i;
      }
    }
    const TensorShape shape = ctx->input(widest).shape();
    std::vector<Value<T>> inputs(n_inputs);
    for (int i = 0; i < n_inputs; ++i) {
      const Tensor& t = ctx->input(i);
      const bool repeats = t.shape() != shape;
      OP_REQUIRES(ctx,
                  !repeats || (t.NumElements() == 1 &&
                               t.shape().rank() <= shape.rank()),
                  absl::InvalidArgumentError(absl::StrCat(
                      "input ", i, " has shape ", t.shape().ToString(),
                      " but the fused element-wise ops need ", shape.ToString(),
                      " or one element (", absl::StrJoin(op_names_, ","),
                      "); the fused tree was built for other shapes: disable "
                      "the fuse_elementwise pass")));
      inputs[i] = {t.data<T>(), repeats};
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    if (n == 0) return;
    T* o = out->data<T>();
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    const int64_t block_len = std::min(n, kBlock);
    // Temporaries kBlock * sizeof(T) apart (a multiple of 4 KiB) make
    // every op that reads one and writes the next stall on 4K aliasing
    // (a load whose address matches an earlier store's low 12 bits waits
    // for it): measured 1.5x slower on this machine. A 64-byte pad avoids
    // it. Each temporary starts 64-byte aligned, as tensors do: Eigen
    // computes the elements before the first aligned packet of its output
    // one by one (its scalar path, an ulp apart for Exp, Log, Sigmoid), so
    // a temporary aligned otherwise than the unfused kernel's output tensor
    // would give other bits (seen with 32-byte AVX2 packets on 16-byte
    // aligned temporaries).
    constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
    const int64_t stride = (block_len + kLine - 1) / kLine * kLine + kLine;
    ParallelForShards(
        ctx, blocks, block_len * cost_, [&](int64_t b0, int64_t b1) {
          std::unique_ptr<T[], AlignedArrayDelete> temps(
              static_cast<T*>(::operator new[](sizeof(T) * num_slots_ * stride,
                                               std::align_val_t{64})));
          std::vector<Value<T>> results(program_.size());
          for (int64_t b = b0; b < b1; ++b) {
            const int64_t begin = b * kBlock;
            const int64_t len = std::min(kBlock, n - begin);
            auto operand = [&](int k) {
              if (k < n_inputs) {
                const Value<T>& v = inputs[k];
                return Value<T>{v.repeats ? v.data : v.data + begin, v.repeats};
              }
              return results[k - n_inputs];
            };
            for (size_t j = 0; j < program_.size(); ++j) {
              const Instr& in = program_[j];
              const Value<T> x = operand(in.operand[0]);
              const Value<T> y =
                  in.arity == 2 ? operand(in.operand[1]) : Value<T>{};
              const bool repeats = x.repeats && (in.arity == 1 || y.repeats);
              T* dst = in.slot < 0 ? o + begin : temps.get() + in.slot * stride;
              Apply<T>(in.code, x, y, dst, repeats ? 1 : len);
              results[j] = {dst, repeats};
            }
          }
        });
  }

 private:
  absl::Status Init(OpKernelConstruction* ctx) {
    int64_t n = 0;
    std::vector<int64_t> operands;
    if (auto s = ctx->GetAttr("N", &n); !s.ok()) return s;
    if (auto s = ctx->GetAttr("ops", &op_names_); !s.ok()) return s;
    if (auto s = ctx->GetAttr("operands", &operands); !s.ok()) return s;
    auto bad = [&](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat(
          "_FusedElementwise has a bad program (ops [",
          absl::StrJoin(op_names_, ","), "], operands [",
          absl::StrJoin(operands, ","), "], N=", n, "): ", why,
          ". The node was not made by dflow's fuse_elementwise pass; "
          "disable that pass or fix the attrs"));
    };
    if (op_names_.empty()) return bad("no ops");
    std::vector<bool> input_read(n, false);
    std::vector<int> last_reader(op_names_.size(), -1);
    size_t next = 0;
    for (size_t j = 0; j < op_names_.size(); ++j) {
      const OpInfo* info = FindOp(op_names_[j]);
      if (info == nullptr) {
        return bad(absl::StrCat("op ", j, " '", op_names_[j],
                                "' is not an element-wise op it computes"));
      }
      Instr in{info->code, info->arity, {0, 0}, -1};
      for (int a = 0; a < info->arity; ++a, ++next) {
        if (next >= operands.size()) return bad("too few operands");
        const int64_t k = operands[next];
        if (k < 0 || k >= n + static_cast<int64_t>(j)) {
          return bad(absl::StrCat("operand ", a, " of op ", j, " is ", k,
                                  ", not an input or an earlier result"));
        }
        in.operand[a] = static_cast<int>(k);
        if (k < n) {
          input_read[k] = true;
        } else {
          last_reader[k - n] = static_cast<int>(j);
        }
      }
      cost_ += info->cost;
      program_.push_back(in);
    }
    if (next != operands.size()) return bad("too many operands");
    for (int64_t i = 0; i < n; ++i) {
      if (!input_read[i]) return bad(absl::StrCat("input ", i, " is unread"));
    }
    for (size_t j = 0; j + 1 < program_.size(); ++j) {
      if (last_reader[j] < 0) {
        return bad(absl::StrCat("the result of op ", j, " is unread"));
      }
    }
    // Temporaries: a result's slot is free again after its last reader.
    std::vector<int> free_slots;
    std::vector<std::vector<int>> frees_after(program_.size());
    for (size_t j = 0; j + 1 < program_.size(); ++j) {
      frees_after[last_reader[j]].push_back(static_cast<int>(j));
    }
    for (size_t j = 0; j < program_.size(); ++j) {
      if (j + 1 < program_.size()) {
        // Slots freed by j's reads are released after j takes its own,
        // so an op never writes the temporary it is reading.
        if (free_slots.empty()) {
          program_[j].slot = num_slots_++;
        } else {
          program_[j].slot = free_slots.back();
          free_slots.pop_back();
        }
      }
      for (int done : frees_after[j]) free_slots.push_back(program_[done].slot);
    }
    return absl::OkStatus();
  }

  std::vector<std::string> op_names_;
  std::vector<Instr> program_;
  int num_slots_ = 0;
  int64_t cost_ = 0;
};

#define DFLOW_REGISTER_FUSED_ELEMENTWISE(T)                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("_FusedElementwise") \
                            .Device(kDeviceCpu)               \
                            .TypeConstraint<T>("T"),          \
                        FusedElementwiseOp<T>)
DFLOW_REGISTER_FUSED_ELEMENTWISE(float);
DFLOW_REGISTER_FUSED_ELEMENTWISE(double);
#undef DFLOW_REGISTER_FUSED_ELEMENTWISE

}  // namespace
}  // namespace dflow
