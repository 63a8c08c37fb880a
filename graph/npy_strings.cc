#include "graph/npy_strings.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace dflow {

std::optional<NpyStringLayout> NpyStringLayoutForDescr(
    absl::string_view descr) {
  char order = '|';
  if (!descr.empty() && (descr[0] == '<' || descr[0] == '>' ||
                         descr[0] == '|' || descr[0] == '=')) {
    order = descr[0];
    descr.remove_prefix(1);
  }
  if (descr.size() < 2) return std::nullopt;
  NpyStringLayout layout;
  layout.kind = descr[0] == 'a' ? 'S' : descr[0];
  if (layout.kind != 'S' && layout.kind != 'U') return std::nullopt;
  if (layout.kind == 'U' && order == '>') return std::nullopt;
  const absl::string_view digits = descr.substr(1);
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) {
        return absl::ascii_isdigit(static_cast<unsigned char>(c));
      })) {
    return std::nullopt;
  }
  if (!absl::SimpleAtoi(digits, &layout.width)) return std::nullopt;
  return layout;
}

namespace {

// Appends code point `c` as UTF-8; false if it is not a Unicode scalar.
bool AppendUtf8(uint32_t c, std::string* out) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
  return true;
}

}  // namespace

absl::StatusOr<Tensor> DecodeNpyStrings(const NpyStringLayout& layout,
                                        const TensorShape& shape,
                                        absl::string_view data,
                                        absl::string_view source) {
  Tensor t(DT_STRING, shape);
  const int64_t n = shape.num_elements();
  const int64_t item = layout.item_bytes();
  std::string* out = t.data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    absl::string_view e = data.substr(i * item, item);
    if (layout.kind == 'S') {
      // NumPy drops an element's trailing NULs when it reads it.
      while (!e.empty() && e.back() == '\0') e.remove_suffix(1);
      out[i] = std::string(e);
      continue;
    }
    int64_t chars = layout.width;
    auto code = [&](int64_t k) {
      const unsigned char* p =
          reinterpret_cast<const unsigned char*>(e.data()) + 4 * k;
      return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
             static_cast<uint32_t>(p[2]) << 16 |
             static_cast<uint32_t>(p[3]) << 24;
    };
    while (chars > 0 && code(chars - 1) == 0) --chars;
    for (int64_t k = 0; k < chars; ++k) {
      if (!AppendUtf8(code(k), &out[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "npy file '", source, "': element ", i, " holds ", code(k),
            " at character ", k,
            ", which is not a Unicode code point; the file is corrupt"));
      }
    }
  }
  return t;
}

absl::StatusOr<EncodedNpyStrings> EncodeNpyStrings(const Tensor& tensor) {
  const int64_t n = tensor.NumElements();
  const std::string* in = tensor.data<std::string>();
  size_t width = 1;  // NumPy's narrowest string dtype is S1
  for (int64_t i = 0; i < n; ++i) {
    if (!in[i].empty() && in[i].back() == '\0') {
      return absl::InvalidArgumentError(absl::StrCat(
          "a string tensor whose element ", i,
          " ends in a NUL byte cannot be saved as .npy: NumPy's fixed-width "
          "strings drop trailing NULs, so it would read back shorter"));
    }
    width = std::max(width, in[i].size());
  }
  EncodedNpyStrings out;
  out.descr = absl::StrCat("|S", width);
  out.data.assign(static_cast<size_t>(n) * width, '\0');
  for (int64_t i = 0; i < n; ++i) {
    std::copy(in[i].begin(), in[i].end(), out.data.begin() + i * width);
  }
  return out;
}

}  // namespace dflow
