#include "tools/tensor_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "graph/types.h"

namespace dflow {
namespace {

std::string FormatFloat(double v) { return absl::StrFormat("%.6g", v); }

template <typename T>
std::string FormatValue(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, float16> ||
                       std::is_same_v<T, bfloat16>) {
    return FormatFloat(v.ToFloat());
  } else if constexpr (std::is_floating_point_v<T>) {
    return FormatFloat(v);
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    return absl::StrCat("(", FormatFloat(v.real()), ",", FormatFloat(v.imag()),
                        ")");
  } else if constexpr (std::is_same_v<T, std::string>) {
    constexpr size_t kMaxChars = 24;
    const bool cut = v.size() > kMaxChars;
    return absl::StrCat("\"", absl::CEscape(v.substr(0, kMaxChars)),
                        cut ? "...\"" : "\"");
  } else {
    // Widened so int8/uint8 print as numbers, not characters.
    if constexpr (std::is_signed_v<T>) {
      return absl::StrCat(int64_t{v});
    } else {
      return absl::StrCat(uint64_t{v});
    }
  }
}

template <typename T>
double AsDouble(const T& v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return v.ToFloat();
  } else {
    return static_cast<double>(v);
  }
}

}  // namespace

std::string DescribeTensorType(const Tensor& tensor) {
  return absl::StrCat(DataTypeName(tensor.dtype()), " ",
                      tensor.shape().ToString());
}

std::string PreviewTensorValues(const Tensor& tensor, int max_values) {
  if (!tensor.IsInitialized() && tensor.NumElements() > 0) {
    return "(uninitialized)";
  }
  if (tensor.NumElements() == 0) return "(no values)";
  std::string out;
  const bool known = VisitStorageType(tensor.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const absl::Span<const T> values = tensor.flat<T>();
    const size_t shown =
        std::min(values.size(), static_cast<size_t>(std::max(max_values, 0)));
    for (size_t i = 0; i < shown; ++i) {
      if (i > 0) out.push_back(' ');
      out += FormatValue(values[i]);
    }
    if (shown < values.size()) {
      absl::StrAppend(&out, shown > 0 ? " " : "", "... (", values.size(),
                      " values)");
    }
  });
  return known ? out : "(values of this type are not shown)";
}

std::string FloatTensorStats(const Tensor& tensor) {
  if (!IsFloatingType(tensor.dtype()) || tensor.NumElements() == 0 ||
      !tensor.IsInitialized()) {
    return "";
  }
  double min = std::numeric_limits<double>::infinity();
  double max = -min;
  double sum = 0;
  int64_t count = 0, nans = 0;
  VisitStorageType(tensor.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16> ||
                  std::is_same_v<T, bfloat16>) {
      for (const T& raw : tensor.flat<T>()) {
        const double v = AsDouble(raw);
        if (std::isnan(v)) {
          ++nans;
          continue;
        }
        min = std::min(min, v);
        max = std::max(max, v);
        sum += v;
        ++count;
      }
    }
  });
  std::string out;
  if (count > 0) {
    out = absl::StrCat("min ", FormatFloat(min), "  max ", FormatFloat(max),
                       "  mean ", FormatFloat(sum / count));
  }
  if (nans > 0) absl::StrAppend(&out, count > 0 ? "  " : "", "nan ", nans);
  return out;
}

void PrintFetch(const std::string& name, const Tensor& tensor,
                const std::string& indent, std::ostream& out) {
  out << indent << "fetch " << name << ": " << DescribeTensorType(tensor)
      << "\n";
  out << indent << "  values: " << PreviewTensorValues(tensor) << "\n";
  if (std::string stats = FloatTensorStats(tensor); !stats.empty()) {
    out << indent << "  " << stats << "\n";
  }
}

std::string StepTimesLine(const std::vector<double>& step_ms) {
  std::vector<double> warm(step_ms.begin() + 1, step_ms.end());
  std::sort(warm.begin(), warm.end());
  const double median =
      warm.size() % 2 == 1
          ? warm[warm.size() / 2]
          : (warm[warm.size() / 2 - 1] + warm[warm.size() / 2]) / 2;
  const int steps = static_cast<int>(step_ms.size());
  return absl::StrFormat(
      "steps: %d, first %.3f ms, warm median %.3f ms (steps 2..%d)\n", steps,
      step_ms.front(), median, steps);
}

}  // namespace dflow
