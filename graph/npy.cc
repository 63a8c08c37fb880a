#include "graph/npy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/npy_dtypes.h"
#include "graph/npy_strings.h"

namespace dflow {

// .npy data is little-endian and copied with memcpy.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "dflow's .npy support assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
// Magic, two version bytes, and the largest (4-byte) header length field.
constexpr size_t kMaxPreambleBytes = kMagicBytes + 2 + 4;
// numpy.save aligns the data to this many bytes.
constexpr size_t kArrayAlign = 64;
// numpy.save leaves room in the header for the first dimension to grow to
// this many digits, so appending rows can rewrite the header in place.
constexpr size_t kGrowthAxisMaxDigits = 21;

absl::Status NpyError(absl::string_view source, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("npy file '", source, "': ", problem));
}

// Header text for an error message: printable ASCII as is, the rest
// escaped, so a corrupt header cannot garble the terminal.
std::string Printable(absl::string_view text) {
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\' || c == '"') {
      absl::StrAppend(&out, "\\", std::string(1, ch));
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else {
      absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

// The parsed values of the header dict.
struct HeaderDict {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

// A recursive-descent reader for the Python dict literal of a .npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }. It accepts
// what Python's literal_eval accepts for these three keys (any spacing and
// key order, either quote, trailing commas, Python 2's `3L` longs) and
// nothing more, and reports where it stopped.
class HeaderParser {
 public:
  HeaderParser(absl::string_view text, absl::string_view source,
               bool allow_long_suffix)
      : text_(text), source_(source), allow_long_(allow_long_suffix) {}

  absl::StatusOr<HeaderDict> Parse() {
    HeaderDict dict;
    SkipSpace();
    if (!Consume('{')) return Expected("'{' starting the header dict");
    SkipSpace();
    while (!Consume('}')) {
      std::string key;
      if (absl::Status s = ParseString(&key); !s.ok()) return s;
      SkipSpace();
      if (!Consume(':')) return Expected("':' after the key");
      SkipSpace();
      if (absl::Status s = ParseEntry(key, &dict); !s.ok()) return s;
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
        continue;
      }
      SkipSpace();
      if (!Consume('}')) return Expected("',' or '}' after a value");
      break;
    }
    SkipSpace();
    if (pos_ != text_.size()) return Expected("only padding after the '}'");
    if (!dict.descr || !dict.fortran_order || !dict.shape) {
      std::vector<std::string> missing;
      if (!dict.descr) missing.push_back("'descr'");
      if (!dict.fortran_order) missing.push_back("'fortran_order'");
      if (!dict.shape) missing.push_back("'shape'");
      return Problem(
          absl::StrCat("the header lacks ", absl::StrJoin(missing, " and ")));
    }
    return dict;
  }

 private:
  absl::Status ParseEntry(const std::string& key, HeaderDict* dict) {
    if (key == "descr") {
      if (dict->descr) return Problem("the header has 'descr' twice");
      if (Peek() == '[') {
        return Problem(
            "holds a structured dtype (a list of fields); dflow loads plain "
            "arrays of one numeric type only");
      }
      std::string descr;
      if (absl::Status s = ParseString(&descr); !s.ok()) return s;
      dict->descr = descr;
      return absl::OkStatus();
    }
    if (key == "fortran_order") {
      if (dict->fortran_order) {
        return Problem("the header has 'fortran_order' twice");
      }
      if (ConsumeWord("True")) {
        dict->fortran_order = true;
      } else if (ConsumeWord("False")) {
        dict->fortran_order = false;
      } else {
        return Expected("True or False for 'fortran_order'");
      }
      return absl::OkStatus();
    }
    if (key == "shape") {
      if (dict->shape) return Problem("the header has 'shape' twice");
      std::vector<int64_t> dims;
      if (absl::Status s = ParseShape(&dims); !s.ok()) return s;
      dict->shape = std::move(dims);
      return absl::OkStatus();
    }
    return Problem(absl::StrCat("unexpected key '", Printable(key),
                                "' in the header (a .npy header has exactly "
                                "'descr', 'fortran_order' and 'shape')"));
  }

  // A tuple of non-negative ints: "()", "(5,)", "(3, 4)", "(3, 4,)".
  absl::Status ParseShape(std::vector<int64_t>* dims) {
    if (!Consume('(')) return Expected("a tuple such as (3, 4) for 'shape'");
    SkipSpace();
    bool saw_comma = false;
    while (!Consume(')')) {
      int64_t dim = 0;
      if (absl::Status s = ParseDim(&dim); !s.ok()) return s;
      dims->push_back(dim);
      SkipSpace();
      if (Consume(',')) {
        saw_comma = true;
        SkipSpace();
        continue;
      }
      if (!Consume(')')) return Expected("',' or ')' in 'shape'");
      break;
    }
    // In Python "(3)" is the int 3, not a tuple; NumPy rejects it too.
    if (dims->size() == 1 && !saw_comma) {
      return Problem(
          "'shape' is a parenthesized int, not a tuple; a 1-d shape is "
          "written (n,)");
    }
    return absl::OkStatus();
  }

  absl::Status ParseDim(int64_t* dim) {
    if (Peek() == '-') return Problem("'shape' has a negative dimension");
    const size_t start = pos_;
    uint64_t value = 0;
    while (pos_ < text_.size() &&
           absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (value >
          (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) /
              10) {
        return Problem("a dimension in 'shape' does not fit in 64 bits");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Expected("an integer dimension in 'shape'");
    if (allow_long_ && (Peek() == 'L' || Peek() == 'l')) ++pos_;
    *dim = static_cast<int64_t>(value);
    return absl::OkStatus();
  }

  // A '...' or "..." literal. .npy headers hold no escapes; a backslash
  // still escapes the next character, as in Python.
  absl::Status ParseString(std::string* out) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Expected("a quoted string");
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      if (text_[pos_] == '\n') break;
      out->push_back(text_[pos_++]);
    }
    if (!Consume(quote)) return Expected("the end of a quoted string");
    return absl::OkStatus();
  }

  bool ConsumeWord(absl::string_view word) {
    if (!absl::StartsWith(text_.substr(pos_), word)) return false;
    const size_t end = pos_ + word.size();
    if (end < text_.size() &&
        (absl::ascii_isalnum(static_cast<unsigned char>(text_[end])) ||
         text_[end] == '_')) {
      return false;
    }
    pos_ = end;
    return true;
  }

  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c || pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  absl::Status Expected(absl::string_view what) const {
    const std::string found =
        pos_ < text_.size()
            ? absl::StrCat("'", Printable(text_.substr(pos_, 12)), "'")
            : std::string("the end of the header");
    return Problem(absl::StrCat("expected ", what, " at byte ", pos_,
                                " of the header, found ", found));
  }
  absl::Status Problem(absl::string_view what) const {
    // The header itself, trimmed of its padding, makes the problem obvious.
    absl::string_view shown = absl::StripTrailingAsciiWhitespace(text_);
    const bool cut = shown.size() > 200;
    if (cut) shown = shown.substr(0, 200);
    return NpyError(source_,
                    absl::StrCat("bad header: ", what, "; header: \"",
                                 Printable(shown), cut ? "...\"" : "\""));
  }

  absl::string_view text_;
  absl::string_view source_;
  bool allow_long_;
  size_t pos_ = 0;
};

uint64_t ReadLittleEndian(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  }
  return v;
}

// Sets the data bytes `header` calls for and checks that exactly that many
// are `available` after the header.
absl::Status CheckDataSize(const NpyHeader& header, uint64_t available,
                           absl::string_view source, uint64_t* data_bytes) {
  const int64_t n = header.shape.num_elements();
  const uint64_t elem = static_cast<uint64_t>(
      header.dtype == DT_STRING ? header.strings.item_bytes()
                                : DataTypeSize(header.dtype));
  if (n < 0 || (n > 0 && elem > 0 && static_cast<uint64_t>(n) >
                             std::numeric_limits<uint64_t>::max() / elem)) {
    return NpyError(source, absl::StrCat("shape ", header.shape.ToString(),
                                         " has more elements than fit in 64 "
                                         "bits; the header is corrupt"));
  }
  *data_bytes = static_cast<uint64_t>(n) * elem;
  if (available < *data_bytes) {
    return NpyError(
        source,
        absl::StrCat("truncated data: shape ", header.shape.ToString(), " of ",
                     NumpyTypeName(header.dtype), " needs ", *data_bytes,
                     " bytes but only ", available, " follow the header"));
  }
  if (available > *data_bytes) {
    return NpyError(
        source, absl::StrCat("shape ", header.shape.ToString(), " of ",
                             NumpyTypeName(header.dtype), " needs ",
                             *data_bytes, " bytes but ", available,
                             " follow the header (", available - *data_bytes,
                             " extra); the shape does not match the data"));
  }
  return absl::OkStatus();
}

// NumPy's bools are the bytes 0 and 1; anything else is not a C++ bool.
absl::Status CheckBools(const Tensor& t, absl::string_view source) {
  if (t.dtype() != DT_BOOL) return absl::OkStatus();
  const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (bytes[i] > 1) {
      return NpyError(source, absl::StrCat("bool element ", i, " is the byte ",
                                           static_cast<int>(bytes[i]),
                                           "; .npy bools must be 0 or 1"));
    }
  }
  return absl::OkStatus();
}

// repr() of a Python tuple of ints.
std::string PythonTuple(absl::Span<const int64_t> dims) {
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

absl::StatusOr<std::string> NpyPreamble(const Tensor& tensor,
                                        const char* descr) {
  if (descr == nullptr) descr = NpyDescrFor(tensor.dtype());
  if (descr == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", DataTypeName(tensor.dtype()),
        " tensor cannot be saved as .npy: NumPy has no such dtype (cast it "
        "to a standard type, e.g. float, first)"));
  }
  if (!tensor.IsInitialized() && tensor.NumElements() > 0) {
    return absl::InvalidArgumentError(
        "cannot save an uninitialized tensor as .npy");
  }
  const absl::Span<const int64_t> dims = tensor.shape().dims();
  std::string dict = absl::StrCat(
      "{'descr': '", descr,
      "', 'fortran_order': False, 'shape': ", PythonTuple(dims), ", }");
  if (!dims.empty()) {
    const size_t digits = absl::StrCat(dims[0]).size();
    if (digits < kGrowthAxisMaxDigits) {
      dict.append(kGrowthAxisMaxDigits - digits, ' ');
    }
  }
  // Version 1.0 has a 2-byte header length, 2.0 a 4-byte one.
  for (int version : {1, 2}) {
    const size_t len_bytes = version == 1 ? 2 : 4;
    const size_t hlen = dict.size() + 1;  // with the final '\n'
    const size_t padding =
        kArrayAlign - (kMagicBytes + 2 + len_bytes + hlen) % kArrayAlign;
    const uint64_t total = hlen + padding;
    if (version == 1 && total > 0xffff) continue;
    std::string out(kMagic, kMagicBytes);
    out.push_back(static_cast<char>(version));
    out.push_back('\0');
    for (size_t i = 0; i < len_bytes; ++i) {
      out.push_back(static_cast<char>((total >> (8 * i)) & 0xff));
    }
    out.append(dict);
    out.append(padding, ' ');
    out.push_back('\n');
    return out;
  }
  return absl::InvalidArgumentError("the .npy header does not fit 4 GB");
}

}  // namespace

namespace {

// The fixed-size start of a .npy file: magic, version and header length.
struct NpyPreambleInfo {
  int major_version = 0;
  int minor_version = 0;
  size_t length_bytes = 0;  // of the header length field: 2 or 4
  uint64_t header_len = 0;
  uint64_t header_start() const { return kMagicBytes + 2 + length_bytes; }
};

absl::StatusOr<NpyPreambleInfo> ParsePreamble(absl::string_view bytes,
                                              absl::string_view source) {
  const absl::string_view magic(kMagic, kMagicBytes);
  if (bytes.size() < kMagicBytes && magic.substr(0, bytes.size()) == bytes) {
    return NpyError(source, absl::StrCat("truncated: only ", bytes.size(),
                                         " bytes, shorter than the .npy "
                                         "magic string"));
  }
  if (bytes.substr(0, kMagicBytes) != magic) {
    std::string hint;
    if (absl::StartsWith(bytes, "PK\x03\x04")) {
      hint =
          " (it is a zip archive, perhaps an .npz: load it with np.load "
          "and np.save each array)";
    }
    return NpyError(
        source,
        absl::StrCat("not a .npy file: it does not start with the magic string "
                     "\"\\x93NUMPY\" but with \"",
                     Printable(bytes.substr(0, kMagicBytes)), "\"", hint));
  }
  NpyPreambleInfo info;
  if (bytes.size() >= kMagicBytes + 2) {
    info.major_version = static_cast<unsigned char>(bytes[6]);
    info.minor_version = static_cast<unsigned char>(bytes[7]);
    if (info.minor_version != 0 || info.major_version < 1 ||
        info.major_version > 3) {
      return NpyError(
          source, absl::StrCat("format version ", info.major_version, ".",
                               info.minor_version,
                               " is not one dflow reads (1.0, 2.0 and 3.0)"));
    }
    info.length_bytes = info.major_version == 1 ? 2 : 4;
  }
  if (info.length_bytes == 0 || bytes.size() < info.header_start()) {
    return NpyError(source, absl::StrCat("truncated: only ", bytes.size(),
                                         " bytes, shorter than the .npy "
                                         "preamble"));
  }
  info.header_len =
      ReadLittleEndian(bytes.data() + kMagicBytes + 2, info.length_bytes);
  if (info.header_len > kMaxNpyHeaderBytes) {
    return NpyError(source,
                    absl::StrCat("the header claims to be ", info.header_len,
                                 " bytes, over the ", kMaxNpyHeaderBytes,
                                 "-byte limit; the file is corrupt"));
  }
  return info;
}

}  // namespace

absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view bytes,
                                         absl::string_view source) {
  absl::StatusOr<NpyPreambleInfo> preamble = ParsePreamble(bytes, source);
  if (!preamble.ok()) return preamble.status();
  NpyHeader header;
  header.major_version = preamble->major_version;
  header.minor_version = preamble->minor_version;
  header.data_offset = preamble->header_start() + preamble->header_len;
  if (bytes.size() < header.data_offset) {
    return NpyError(
        source, absl::StrCat("truncated header: it is ", preamble->header_len,
                             " bytes but only ",
                             bytes.size() - preamble->header_start(),
                             " follow the preamble"));
  }
  const absl::string_view text =
      bytes.substr(preamble->header_start(), preamble->header_len);
  // Python 2 wrote shape dims as longs ("3L"); NumPy filters those for
  // format versions before 3.0.
  absl::StatusOr<HeaderDict> dict =
      HeaderParser(text, source, header.major_version < 3).Parse();
  if (!dict.ok()) return dict.status();
  if (std::optional<NpyStringLayout> strings =
          NpyStringLayoutForDescr(*dict->descr)) {
    header.dtype = DT_STRING;
    header.strings = *strings;
  } else {
    absl::StatusOr<DataType> dtype = DataTypeForNpyDescr(*dict->descr, source);
    if (!dtype.ok()) return dtype.status();
    header.dtype = *dtype;
  }
  if (*dict->fortran_order) {
    return NpyError(source,
                    "the array is in Fortran (column-major) order; dflow "
                    "reads C order only: save np.ascontiguousarray(a) instead");
  }
  header.shape = TensorShape(absl::MakeConstSpan(*dict->shape));
  if (header.shape.num_elements() < 0) {
    return NpyError(source, absl::StrCat("shape ", header.shape.ToString(),
                                         " has more elements than fit in 64 "
                                         "bits; the header is corrupt"));
  }
  return header;
}

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes,
                                absl::string_view source) {
  absl::StatusOr<NpyHeader> header = ParseNpyHeader(bytes, source);
  if (!header.ok()) return header.status();
  uint64_t data_bytes = 0;
  if (absl::Status s = CheckDataSize(
          *header, bytes.size() - header->data_offset, source, &data_bytes);
      !s.ok()) {
    return s;
  }
  if (header->dtype == DT_STRING) {
    return DecodeNpyStrings(header->strings, header->shape,
                            bytes.substr(header->data_offset, data_bytes),
                            source);
  }
  absl::StatusOr<Tensor> tensor =
      Tensor::Allocate(DefaultCpuAllocator(), header->dtype, header->shape);
  if (!tensor.ok()) {
    return NpyError(source, tensor.status().message());
  }
  if (data_bytes > 0) {
    std::memcpy(tensor->raw_data(), bytes.data() + header->data_offset,
                data_bytes);
  }
  if (absl::Status s = CheckBools(*tensor, source); !s.ok()) return s;
  return tensor;
}

namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

}  // namespace

absl::StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot read npy file '", path,
                                            "': ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("npy file '", path, "' is a directory"));
  }
  File f(std::fopen(path.c_str(), "rb"));
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open npy file '", path,
                                            "': ", std::strerror(errno)));
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  // The preamble, then exactly the header it announces (never more than the
  // file holds), then the data straight into the tensor.
  std::string head(std::min<uint64_t>(file_size, kMaxPreambleBytes), '\0');
  if (std::fread(head.data(), 1, head.size(), f.get()) != head.size()) {
    return absl::DataLossError(
        absl::StrCat("could not read npy file '", path, "'"));
  }
  absl::StatusOr<NpyPreambleInfo> preamble = ParsePreamble(head, path);
  if (!preamble.ok()) return preamble.status();
  const uint64_t header_end = std::min<uint64_t>(
      file_size, preamble->header_start() + preamble->header_len);
  if (header_end > head.size()) {
    const size_t have = head.size();
    head.resize(header_end);
    if (std::fread(head.data() + have, 1, head.size() - have, f.get()) !=
        head.size() - have) {
      return absl::DataLossError(
          absl::StrCat("could not read npy file '", path, "'"));
    }
  }
  absl::StatusOr<NpyHeader> header = ParseNpyHeader(head, path);
  if (!header.ok()) return header.status();
  uint64_t data_bytes = 0;
  if (absl::Status s = CheckDataSize(*header, file_size - header->data_offset,
                                     path, &data_bytes);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Tensor> tensor =
      header->dtype == DT_STRING
          ? Tensor()
          : Tensor::Allocate(DefaultCpuAllocator(), header->dtype,
                             header->shape);
  if (!tensor.ok()) return NpyError(path, tensor.status().message());
  // Strings are read whole, then decoded into the tensor.
  std::string strings(header->dtype == DT_STRING ? data_bytes : 0, '\0');
  void* into = header->dtype == DT_STRING ? strings.data() : tensor->raw_data();
  // Seek rather than trust the stream position: a (corrupt) header shorter
  // than two bytes would end inside the preamble bytes already read.
  if (data_bytes > 0) {
    if (std::fseek(f.get(), static_cast<long>(header->data_offset), SEEK_SET) !=
            0 ||
        std::fread(into, 1, data_bytes, f.get()) != data_bytes) {
      return absl::DataLossError(absl::StrCat("could not read the ", data_bytes,
                                              " data bytes of npy file '", path,
                                              "'"));
    }
  }
  if (header->dtype == DT_STRING) {
    return DecodeNpyStrings(header->strings, header->shape, strings, path);
  }
  if (absl::Status s = CheckBools(*tensor, path); !s.ok()) return s;
  return tensor;
}

namespace {

// A string tensor's descr and data as `.npy` holds them (npy_strings.h).
absl::StatusOr<EncodedNpyStrings> EncodeIfStrings(const Tensor& tensor) {
  if (tensor.dtype() != DT_STRING || !tensor.IsInitialized()) {
    return EncodedNpyStrings();
  }
  return EncodeNpyStrings(tensor);
}

}  // namespace

absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor) {
  absl::StatusOr<EncodedNpyStrings> strings = EncodeIfStrings(tensor);
  if (!strings.ok()) return strings.status();
  absl::StatusOr<std::string> out = NpyPreamble(
      tensor, strings->descr.empty() ? nullptr : strings->descr.c_str());
  if (!out.ok()) return out.status();
  if (!strings->descr.empty()) {
    out->append(strings->data);
  } else if (tensor.NumElements() > 0) {
    out->append(static_cast<const char*>(tensor.raw_data()),
                tensor.TotalBytes());
  }
  return out;
}

absl::Status WriteNpyFile(const std::string& path, const Tensor& tensor) {
  absl::StatusOr<EncodedNpyStrings> strings = EncodeIfStrings(tensor);
  if (!strings.ok()) {
    return absl::Status(strings.status().code(),
                        absl::StrCat("cannot write '", path,
                                     "': ", strings.status().message()));
  }
  const bool is_strings = !strings->descr.empty();
  absl::StatusOr<std::string> preamble =
      NpyPreamble(tensor, is_strings ? strings->descr.c_str() : nullptr);
  if (!preamble.ok()) {
    return absl::Status(preamble.status().code(),
                        absl::StrCat("cannot write '", path,
                                     "': ", preamble.status().message()));
  }
  // Unique per process and call, so concurrent writers never share a
  // temporary file; the same directory, so rename is atomic.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp =
      absl::StrCat(path, ".tmp.", getpid(), ".", counter.fetch_add(1));
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  const size_t data_bytes = is_strings                ? strings->data.size()
                            : tensor.NumElements() > 0 ? tensor.TotalBytes()
                                                       : 0;
  const void* data = is_strings ? strings->data.data() : tensor.raw_data();
  bool ok =
      std::fwrite(preamble->data(), 1, preamble->size(), f) == preamble->size();
  if (ok && data_bytes > 0) {
    ok = std::fwrite(data, 1, data_bytes, f) == data_bytes;
  }
  ok = ok && std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  const std::string why = ok ? "" : std::strerror(errno);
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = why.empty() ? std::strerror(errno) : why;
    std::remove(tmp.c_str());
    return absl::DataLossError(
        absl::StrCat("could not write '", path, "': ", reason));
  }
  return absl::OkStatus();
}

}  // namespace dflow
