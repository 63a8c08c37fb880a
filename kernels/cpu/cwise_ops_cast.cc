// Cast between all numeric types and bool (TensorFlow's Cast).
//
// Conversions, element by element:
//   to bool            x != 0 (NaN is true; complex: either part nonzero);
//   from bool          0 or 1 (any nonzero byte reads as true);
//   integer -> integer two's-complement wrap, like static_cast;
//   float -> integer   toward zero; out-of-range values saturate to the
//                      type's min/max and NaN becomes 0. (TensorFlow leaves
//                      these to the C++ conversion, which is undefined;
//                      x86 gives INT_MIN for both. dflow pins a defined,
//                      documented answer.)
//   float -> float     rounds to nearest even, through float for half and
//                      bfloat16; with Truncate=true the mantissa bits the
//                      destination lacks are cleared first (round toward
//                      zero, TensorFlow's LSBZeroSetter), NaN kept as is;
//   complex -> real    the real part; real -> complex: (x, 0).
// A cast to the same type forwards the input.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

// Floating types in their Eigen spelling, including half and bfloat16.
template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
    std::is_same_v<T, Eigen::bfloat16>;

template <typename T>
constexpr int MantissaBits() {
  if constexpr (std::is_same_v<T, double>) return 52;
  if constexpr (std::is_same_v<T, float>) return 23;
  if constexpr (std::is_same_v<T, Eigen::half>) return 10;
  return 7;  // bfloat16
}

// For Truncate: clears the mantissa bits of x that Dst cannot hold.
template <typename Dst, typename Src>
Src ClearLowMantissa(Src x) {
  constexpr int kDrop = MantissaBits<Src>() - MantissaBits<Dst>();
  if constexpr (kDrop <= 0) {
    return x;
  } else {
    if (Eigen::numext::isnan(x)) return x;
    using Bits = std::conditional_t<
        sizeof(Src) == 8, uint64_t,
        std::conditional_t<sizeof(Src) == 4, uint32_t, uint16_t>>;
    // __builtin_bit_cast, not memcpy: GCC 12.2 at -O1/-O2 drops the
    // masking when this runs under `if (truncate)` and the bits travel
    // through memcpy (reproduced with a 10-line program).
    Bits bits = __builtin_bit_cast(Bits, x);
    bits &= static_cast<Bits>(~((Bits{1} << kDrop) - 1));
    return __builtin_bit_cast(Src, bits);
  }
}

// Saturating, NaN -> 0, toward zero.
template <typename Dst>
Dst FloatToInt(double d) {
  if (std::isnan(d)) return Dst(0);
  constexpr double kLo = static_cast<double>(std::numeric_limits<Dst>::min());
  // 2^digits: one past the maximum, exact in double.
  constexpr double kHi =
      2.0 *
      static_cast<double>(Dst{1} << (std::numeric_limits<Dst>::digits - 1));
  if (d >= kHi) return std::numeric_limits<Dst>::max();
  if (d <= kLo - 1.0) return std::numeric_limits<Dst>::min();
  return static_cast<Dst>(d);
}

// One real (non-complex) value of type Src to Dst; bool handled by callers.
template <typename Dst, typename Src>
Dst ConvertReal(Src x, bool truncate) {
  if constexpr (std::is_same_v<Dst, bool>) {
    if constexpr (kIsFloat<Src>) {
      return static_cast<float>(x) != 0.0f;
    } else {
      return x != 0;
    }
  } else if constexpr (kIsFloat<Src> && std::is_integral_v<Dst>) {
    return FloatToInt<Dst>(static_cast<double>(x));
  } else if constexpr (kIsFloat<Src> && kIsFloat<Dst>) {
    if (truncate) x = ClearLowMantissa<Dst>(x);
    if constexpr (std::is_same_v<Dst, Eigen::half> ||
                  std::is_same_v<Dst, Eigen::bfloat16>) {
      // Through float, as Eigen (and so TensorFlow) converts.
      return static_cast<Dst>(static_cast<float>(x));
    } else {
      return static_cast<Dst>(x);
    }
  } else if constexpr (kIsFloat<Dst>) {
    // From an integer.
    if constexpr (std::is_same_v<Dst, Eigen::half> ||
                  std::is_same_v<Dst, Eigen::bfloat16>) {
      return static_cast<Dst>(static_cast<float>(x));
    } else {
      return static_cast<Dst>(x);
    }
  } else {
    return static_cast<Dst>(x);  // integer to integer: wraps
  }
}

template <typename Dst, typename Src>
Dst Convert(Src x, bool truncate) {
  if constexpr (IsComplex<Src>::value) {
    if constexpr (IsComplex<Dst>::value) {
      using D = typename Dst::value_type;
      return Dst(ConvertReal<D>(x.real(), truncate),
                 ConvertReal<D>(x.imag(), truncate));
    } else if constexpr (std::is_same_v<Dst, bool>) {
      return x.real() != 0 || x.imag() != 0;
    } else {
      return ConvertReal<Dst>(x.real(), truncate);
    }
  } else if constexpr (IsComplex<Dst>::value) {
    using D = typename Dst::value_type;
    return Dst(Convert<D>(x, truncate), D(0));
  } else if constexpr (std::is_same_v<Src, bool>) {
    return ConvertReal<Dst>(static_cast<uint8_t>(x ? 1 : 0), truncate);
  } else {
    return ConvertReal<Dst>(x, truncate);
  }
}

using CastFn = void (*)(OpKernelContext*, const Tensor&, Tensor*, bool);

// Src and Dst in Eigen spelling (Eigen::half), bool as bool.
template <typename Src, typename Dst>
void CastTensor(OpKernelContext* ctx, const Tensor& in, Tensor* out,
                bool truncate) {
  using SrcRead = std::conditional_t<std::is_same_v<Src, bool>, uint8_t, Src>;
  const SrcRead* src =
      reinterpret_cast<const SrcRead*>(in.data<StorageElement<Src>>());
  Dst* dst = reinterpret_cast<Dst*>(out->data<StorageElement<Dst>>());
  ParallelForShards(ctx, in.NumElements(), /*cost=*/2,
                    [src, dst, truncate](int64_t begin, int64_t end) {
                      for (int64_t i = begin; i < end; ++i) {
                        if constexpr (std::is_same_v<Src, bool>) {
                          dst[i] = Convert<Dst>(src[i] != 0, truncate);
                        } else {
                          dst[i] = Convert<Dst>(src[i], truncate);
                        }
                      }
                    });
}

// Calls visit(tag) with a null pointer to the Eigen-spelled element type of
// `dtype`; false if Cast does not handle the type.
template <typename Visitor>
bool VisitCastType(DataType dtype, Visitor&& visit) {
#define DFLOW_CAST_CASE(ENUM, TYPE)     \
  case ENUM:                            \
    visit(static_cast<TYPE*>(nullptr)); \
    return true
  switch (dtype) {
    DFLOW_CAST_CASE(DT_BOOL, bool);
    DFLOW_CAST_CASE(DT_HALF, Eigen::half);
    DFLOW_CAST_CASE(DT_BFLOAT16, Eigen::bfloat16);
    DFLOW_CAST_CASE(DT_FLOAT, float);
    DFLOW_CAST_CASE(DT_DOUBLE, double);
    DFLOW_CAST_CASE(DT_INT8, int8_t);
    DFLOW_CAST_CASE(DT_INT16, int16_t);
    DFLOW_CAST_CASE(DT_INT32, int32_t);
    DFLOW_CAST_CASE(DT_INT64, int64_t);
    DFLOW_CAST_CASE(DT_UINT8, uint8_t);
    DFLOW_CAST_CASE(DT_UINT16, uint16_t);
    DFLOW_CAST_CASE(DT_UINT32, uint32_t);
    DFLOW_CAST_CASE(DT_UINT64, uint64_t);
    DFLOW_CAST_CASE(DT_COMPLEX64, complex64);
    DFLOW_CAST_CASE(DT_COMPLEX128, complex128);
    default:
      return false;
  }
#undef DFLOW_CAST_CASE
}

const std::vector<DataType>& CastTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DT_BOOL,   DT_HALF,   DT_BFLOAT16, DT_FLOAT,     DT_DOUBLE,
      DT_INT8,   DT_INT16,  DT_INT32,    DT_INT64,     DT_UINT8,
      DT_UINT16, DT_UINT32, DT_UINT64,   DT_COMPLEX64, DT_COMPLEX128};
  return *types;
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src = DT_INVALID, dst = DT_INVALID;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
    forward_ = src == dst;
    VisitCastType(src, [&](auto* src_tag) {
      VisitCastType(dst, [&](auto* dst_tag) {
        using Src = std::remove_pointer_t<decltype(src_tag)>;
        using Dst = std::remove_pointer_t<decltype(dst_tag)>;
        fn_ = &CastTensor<Src, Dst>;
      });
    });
    OP_REQUIRES(ctx, forward_ || fn_ != nullptr,
                absl::UnimplementedError(absl::StrCat(
                    "Cast from ", DataTypeName(src), " to ", DataTypeName(dst),
                    " is not supported; Cast handles bool and the numeric "
                    "types")));
  }

  // A cast to the same type only forwards its input.
  bool IsExpensive() const override { return !forward_; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (forward_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    fn_(ctx, x, out, truncate_);
  }

 private:
  bool truncate_ = false;
  bool forward_ = false;
  CastFn fn_ = nullptr;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Cast")
                          .Device(kDeviceCpu)
                          .TypeConstraint("SrcT", CastTypes())
                          .TypeConstraint("DstT", CastTypes()),
                      CastOp);

}  // namespace
}  // namespace dflow
