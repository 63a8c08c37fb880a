#include "kernels/cpu/kernel_util_summarize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "graph/types.h"

namespace dflow {
namespace {

// Shortest of %.{6,9}g (float) or %.{15,17}g (double) that reads back as
// the same value: TensorFlow's FloatToBuffer / DoubleToBuffer.
template <typename F>
std::string FloatString(F v) {
  constexpr bool kIsFloat = std::is_same_v<F, float>;
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", kIsFloat ? 6 : 15,
                static_cast<double>(v));
  const F back = kIsFloat ? std::strtof(buf, nullptr)
                          : static_cast<F>(std::strtod(buf, nullptr));
  if (back != v) {
    std::snprintf(buf, sizeof(buf), "%.*g", kIsFloat ? 9 : 17,
                  static_cast<double>(v));
  }
  return buf;
}

template <typename T>
std::string Element(const T& v, bool quoted = false) {
  if constexpr (std::is_same_v<T, std::string>) {
    // TensorFlow escapes as CEscape: octal for other bytes (absl's CEscape).
    return quoted ? absl::StrCat("\"", absl::CEscape(v), "\"")
                  : absl::Utf8SafeCHexEscape(v);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return FloatString(v);
  } else if constexpr (std::is_same_v<T, float16> ||
                       std::is_same_v<T, bfloat16>) {
    return FloatString(v.ToFloat());
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else {
    return absl::StrCat(static_cast<int64_t>(v));
  }
}

template <typename T>
void PrintOneDim(int dim, const TensorShape& shape, int64_t limit,
                 const T* data, int64_t* index, std::string* out) {
  if (*index >= limit) return;
  const int64_t count = shape.dim(dim);
  if (dim == shape.rank() - 1) {
    for (int64_t i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) absl::StrAppend(out, "...");
        return;
      }
      if (i > 0) absl::StrAppend(out, " ");
      absl::StrAppend(out, Element(data[(*index)++]));
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    bool open = false;
    if (*index < limit) {
      absl::StrAppend(out, "[");
      open = true;
    }
    PrintOneDim(dim + 1, shape, limit, data, index, out);
    if (*index < limit || open) absl::StrAppend(out, "]");
  }
}

template <typename T>
std::string SummarizeArray(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  const T* data = limit > 0 ? t.data<T>() : nullptr;
  std::string out;
  if (t.shape().rank() == 0) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) absl::StrAppend(&out, " ");
      absl::StrAppend(&out, Element(data[i]));
    }
  } else {
    int64_t index = 0;
    PrintOneDim(0, t.shape(), limit, data, &index, &out);
  }
  if (n > limit) absl::StrAppend(&out, "...");
  return out;
}

// Calls visit(tag) with a T* tag for t's dtype; false for a dtype that has
// no text form here.
template <typename Visitor>
bool VisitPrintable(DataType dtype, Visitor&& visit) {
  switch (dtype) {
    case DT_FLOAT:
      visit(static_cast<float*>(nullptr));
      return true;
    case DT_DOUBLE:
      visit(static_cast<double*>(nullptr));
      return true;
    case DT_HALF:
      visit(static_cast<float16*>(nullptr));
      return true;
    case DT_BFLOAT16:
      visit(static_cast<bfloat16*>(nullptr));
      return true;
    case DT_INT8:
      visit(static_cast<int8_t*>(nullptr));
      return true;
    case DT_UINT8:
      visit(static_cast<uint8_t*>(nullptr));
      return true;
    case DT_INT16:
      visit(static_cast<int16_t*>(nullptr));
      return true;
    case DT_UINT16:
      visit(static_cast<uint16_t*>(nullptr));
      return true;
    case DT_INT32:
      visit(static_cast<int32_t*>(nullptr));
      return true;
    case DT_UINT32:
      visit(static_cast<uint32_t*>(nullptr));
      return true;
    case DT_INT64:
      visit(static_cast<int64_t*>(nullptr));
      return true;
    case DT_BOOL:
      visit(static_cast<bool*>(nullptr));
      return true;
    case DT_STRING:
      visit(static_cast<std::string*>(nullptr));
      return true;
    default:
      return false;
  }
}

std::string Unprintable(const Tensor& t) {
  return absl::StrCat("<", DataTypeName(t.dtype()), " tensor of shape ",
                      t.shape().ToString(), ">");
}

// The spacing before an entry of dimension `dim` (not its first): a space
// in the last dimension; else a newline per dimension below it and an
// indent of dim + 1.
void AppendSpacing(int dim, int rank, std::string* out) {
  if (dim == rank - 1) {
    out->push_back(' ');
    return;
  }
  out->append(static_cast<size_t>(rank - dim - 1), '\n');
  out->append(static_cast<size_t>(dim + 1), ' ');
}

// Dimension `dim` of the block at `offset`: its first and last `ends`
// entries, "..." between them when some were left out.
template <typename T>
void PrintDimV2(int dim, const TensorShape& shape, int64_t ends, const T* data,
                int64_t offset, std::string* out) {
  if (dim == shape.rank()) {
    absl::StrAppend(out, Element(data[offset], /*quoted=*/true));
    return;
  }
  out->push_back('[');
  const int64_t count = shape.dim(dim);
  int64_t stride = 1;
  for (int d = dim + 1; d < shape.rank(); ++d) stride *= shape.dim(d);
  for (int64_t i = 0; i < ends && i < count; ++i) {
    if (i > 0) AppendSpacing(dim, shape.rank(), out);
    PrintDimV2(dim + 1, shape, ends, data, offset + i * stride, out);
  }
  if (count > 2 * ends) {
    AppendSpacing(dim, shape.rank(), out);
    out->append("...");
  }
  for (int64_t i = std::max(ends, count - ends); i < count; ++i) {
    if (i > 0) AppendSpacing(dim, shape.rank(), out);
    PrintDimV2(dim + 1, shape, ends, data, offset + i * stride, out);
  }
  out->push_back(']');
}

}  // namespace

std::string SummarizeTensor(const Tensor& t, int64_t max_entries) {
  std::string out;
  if (!VisitPrintable(t.dtype(), [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        out = SummarizeArray<T>(t, max_entries);
      })) {
    return Unprintable(t);
  }
  return out;
}

std::string SummarizeTensorV2(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::string out;
  if (!VisitPrintable(t.dtype(), [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        const T* data = n > 0 ? t.data<T>() : nullptr;
        if (t.shape().rank() == 0) {
          out = limit > 0 ? Element(data[0], /*quoted=*/true) : "...";
          return;
        }
        PrintDimV2<T>(0, t.shape(), limit, data, 0, &out);
      })) {
    return Unprintable(t);
  }
  return out;
}

}  // namespace dflow
