// The Unicode ops on the CPU with ICU, TensorFlow 2.21's Unicode library:
// UnicodeDecode(WithOffsets) and UnicodeTranscode read strings with an ICU
// converter of the given encoding, one code point at a time, so malformed
// input splits into replacement characters exactly as in TensorFlow (ICU
// replaces each maximal ill-formed subsequence); UnicodeEncode and the
// transcoder write UTF-8, UTF-16-BE or UTF-32-BE; UnicodeScript is ICU's
// script property. errors="strict" fails the step on malformed input,
// "replace" puts replacement_char in its place and "ignore" drops it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "unicode/uchar.h"
#include "unicode/ucnv.h"
#include "unicode/ucnv_err.h"
#include "unicode/unistr.h"
#include "unicode/uscript.h"
#include "unicode/utf.h"

namespace dflow {
namespace {

enum class Encoding { kUtf8, kUtf16Be, kUtf32Be };

absl::Status ParseEncoding(const std::string& name, Encoding* out) {
  if (name == "UTF-8") {
    *out = Encoding::kUtf8;
  } else if (name == "UTF-16-BE") {
    *out = Encoding::kUtf16Be;
  } else if (name == "UTF-32-BE") {
    *out = Encoding::kUtf32Be;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "output_encoding '", name,
        "' is not supported: it must be UTF-8, UTF-16-BE or UTF-32-BE"));
  }
  return absl::OkStatus();
}

void Encode(Encoding encoding, const icu::UnicodeString& in,
            std::string* out) {
  out->clear();
  if (encoding == Encoding::kUtf8) {
    in.toUTF8String(*out);
  } else if (encoding == Encoding::kUtf16Be) {
    // The code units as they are (a lone surrogate stays one).
    const char16_t* units = in.getBuffer();
    for (int32_t i = 0; i < in.length(); ++i) {
      out->push_back(static_cast<char>(units[i] >> 8));
      out->push_back(static_cast<char>(units[i] & 0xFF));
    }
  } else {
    for (int32_t i = 0; i < in.length(); i = in.moveIndex32(i, 1)) {
      const UChar32 c = in.char32At(i);
      for (int shift = 24; shift >= 0; shift -= 8) {
        out->push_back(static_cast<char>((c >> shift) & 0xFF));
      }
    }
  }
}

struct ErrorOptions {
  UChar32 replacement = 0xFFFD;
  bool ignore = false;
  bool strict = false;
  bool replace_control = false;
};

absl::Status GetErrorOptions(OpKernelConstruction* ctx, bool has_control,
                             ErrorOptions* out) {
  std::string policy;
  absl::Status s = ctx->GetAttr("errors", &policy);
  if (!s.ok()) return s;
  if (policy == "ignore") {
    out->ignore = true;
  } else if (policy == "strict") {
    out->strict = true;
  } else if (policy != "replace") {
    return absl::InvalidArgumentError(
        "errors policy must be one of 'strict', 'replace', or 'ignore'");
  }
  int64_t replacement = 0;
  s = ctx->GetAttr("replacement_char", &replacement);
  if (!s.ok()) return s;
  if (replacement < UCHAR_MIN_VALUE || replacement > UCHAR_MAX_VALUE) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replacement_char out of unicode codepoint range: ", replacement));
  }
  out->replacement = static_cast<UChar32>(replacement);
  if (has_control) {
    s = ctx->GetAttr("replace_control_characters", &out->replace_control);
  }
  return s;
}

// An open ICU converter, closed when it goes out of scope.
class Converter {
 public:
  explicit Converter(const std::string& name) {
    UErrorCode status = U_ZERO_ERROR;
    converter_ = ucnv_open(name.c_str(), &status);
    if (U_FAILURE(status) && converter_ != nullptr) {
      ucnv_close(converter_);
      converter_ = nullptr;
    }
  }
  ~Converter() {
    if (converter_ != nullptr) ucnv_close(converter_);
  }
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;
  UConverter* get() const { return converter_; }

 private:
  UConverter* converter_ = nullptr;
};

absl::Status CheckEncodingName(const std::string& name) {
  Converter probe(name);
  if (probe.get() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Could not create converter for input encoding: ", name,
        " (not an encoding ICU knows)"));
  }
  return absl::OkStatus();
}

// ICU calls this on malformed input: note it, then let ICU substitute its
// replacement as it would by default.
void NoteMalformed(const void* context, UConverterToUnicodeArgs* args,
                   const char* units, int32_t length,
                   UConverterCallbackReason reason, UErrorCode* status) {
  if (reason == UCNV_UNASSIGNED || reason == UCNV_ILLEGAL ||
      reason == UCNV_IRREGULAR) {
    *static_cast<bool*>(const_cast<void*>(context)) = true;
  }
  UCNV_TO_U_CALLBACK_SUBSTITUTE(nullptr, args, units, length, reason, status);
}

// Calls fn(code point, bytes it took, whether it was malformed) for each
// code point of `s` read with `converter`.
void ForEachCodePoint(const std::string& s, UConverter* converter,
                      const std::function<void(UChar32, int, bool)>& fn) {
  const char* source = s.data();
  const char* limit = s.data() + s.size();
  UErrorCode status = U_ZERO_ERROR;
  bool malformed = false;
  UConverterToUCallback old_action = nullptr;
  const void* old_context = nullptr;
  ucnv_setToUCallBack(converter, NoteMalformed, &malformed, &old_action,
                      &old_context, &status);
  if (U_FAILURE(status)) return;
  while (source < limit) {
    const char* before = source;
    const UChar32 c = ucnv_getNextUChar(converter, &source, limit, &status);
    if (U_FAILURE(status)) source = limit;
    fn(c, static_cast<int>(source - before), malformed);
    malformed = false;
  }
  status = U_ZERO_ERROR;
  ucnv_setToUCallBack(converter, old_action, old_context, nullptr, nullptr,
                      &status);
}

bool NeedsReplacing(const ErrorOptions& e, UChar32 c, bool malformed) {
  return malformed || (e.replace_control && c <= 0x1F);
}

int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

class UnicodeDecodeOp : public OpKernel {
 public:
  UnicodeDecodeOp(OpKernelConstruction* ctx, bool offsets)
      : OpKernel(ctx), offsets_(offsets) {
    OP_REQUIRES_OK(ctx, GetErrorOptions(ctx, true, &errors_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("input_encoding", &encoding_));
    OP_REQUIRES_OK(ctx, CheckEncodingName(encoding_));
  }
  explicit UnicodeDecodeOp(OpKernelConstruction* ctx)
      : UnicodeDecodeOp(ctx, false) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Converter converter(encoding_);
    OP_REQUIRES(ctx, converter.get() != nullptr,
                absl::InvalidArgumentError(absl::StrCat(
                    "Could not create converter for input encoding: ",
                    encoding_)));
    const int64_t n = input.NumElements();
    Tensor* splits = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n + 1}), &splits));
    std::vector<int32_t> chars;
    std::vector<int64_t> starts;
    bool bad = false;
    int64_t bad_string = -1;
    const std::string* in = input.data<std::string>();
    auto set_split = [&](int64_t i, int64_t v) {
      if (splits->dtype() == DT_INT32) {
        splits->data<int32_t>()[i] = static_cast<int32_t>(v);
      } else {
        splits->data<int64_t>()[i] = v;
      }
    };
    // One converter for the whole batch, as TensorFlow (a stateful
    // encoding such as "UTF-16" keeps what it learned from a byte order
    // mark).
    for (int64_t i = 0; i < n; ++i) {
      set_split(i, static_cast<int64_t>(chars.size()));
      int64_t offset = 0;
      ForEachCodePoint(in[i], converter.get(),
                       [&](UChar32 c, int bytes, bool malformed) {
                         if (malformed && bad_string < 0) bad_string = i;
                         bad |= malformed;
                         if (NeedsReplacing(errors_, c, malformed)) {
                           if (errors_.ignore) {
                             offset += bytes;
                             return;
                           }
                           c = errors_.replacement;
                         }
                         chars.push_back(c);
                         starts.push_back(offset);
                         offset += bytes;
                       });
    }
    set_split(n, static_cast<int64_t>(chars.size()));
    OP_REQUIRES(ctx, !(errors_.strict && bad),
                absl::InvalidArgumentError(absl::StrCat(
                    "Invalid formatting on input string: input[", bad_string,
                    "] is not valid ", encoding_,
                    " (errors='strict'; 'replace' or 'ignore' accept it)")));
    const int64_t m = static_cast<int64_t>(chars.size());
    Tensor* values = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({m}), &values));
    std::copy(chars.begin(), chars.end(), values->data<int32_t>());
    if (offsets_) {
      Tensor* offsets = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({m}), &offsets));
      std::copy(starts.begin(), starts.end(), offsets->data<int64_t>());
    }
  }

 private:
  bool offsets_ = false;
  ErrorOptions errors_;
  std::string encoding_;
};

class UnicodeDecodeWithOffsetsOp : public UnicodeDecodeOp {
 public:
  explicit UnicodeDecodeWithOffsetsOp(OpKernelConstruction* ctx)
      : UnicodeDecodeOp(ctx, true) {}
};

class UnicodeEncodeOp : public OpKernel {
 public:
  explicit UnicodeEncodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string encoding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_encoding", &encoding));
    OP_REQUIRES_OK(ctx, ParseEncoding(encoding, &encoding_));
    OP_REQUIRES_OK(ctx, GetErrorOptions(ctx, false, &errors_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(0);
    const Tensor& splits = ctx->input(1);
    OP_REQUIRES(ctx, values.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("input_values must be a vector, got ",
                                 values.shape().ToString())));
    OP_REQUIRES(ctx, splits.shape().rank() == 1 && splits.NumElements() > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "input_splits must be a non-empty vector, got ",
                    splits.shape().ToString())));
    const int64_t rows = splits.NumElements() - 1;
    const int64_t size = values.NumElements();
    OP_REQUIRES(ctx, IndexAt(splits, 0) == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "input_splits must start with 0, got ",
                    IndexAt(splits, 0))));
    for (int64_t r = 0; r < rows; ++r) {
      OP_REQUIRES(
          ctx, IndexAt(splits, r + 1) >= IndexAt(splits, r),
          absl::InvalidArgumentError(absl::StrCat(
              "input_splits must be non-decreasing: input_splits[", r + 1,
              "] = ", IndexAt(splits, r + 1), " < ", IndexAt(splits, r))));
    }
    OP_REQUIRES(ctx, IndexAt(splits, rows) == size,
                absl::InvalidArgumentError(absl::StrCat(
                    "input_splits must end with the number of values, ", size,
                    ", got ", IndexAt(splits, rows))));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows}), &out));
    const int32_t* v = values.data<int32_t>();
    for (int64_t r = 0; r < rows; ++r) {
      icu::UnicodeString text;
      for (int64_t i = IndexAt(splits, r); i < IndexAt(splits, r + 1); ++i) {
        UChar32 c = v[i];
        // Surrogates (U+D800..U+DFFF) are no characters either: TensorFlow
        // replaces or drops them too.
        if (c > UCHAR_MAX_VALUE || c < UCHAR_MIN_VALUE || U_IS_SURROGATE(c)) {
          OP_REQUIRES(ctx, !errors_.strict,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Code point value out of valid Unicode range: "
                          "input_values[",
                          i, "] = ", c, " (errors='strict')")));
          if (errors_.ignore) continue;
          c = errors_.replacement;
        }
        text.append(c);
      }
      Encode(encoding_, text, &out->data<std::string>()[r]);
    }
  }

 private:
  Encoding encoding_ = Encoding::kUtf8;
  ErrorOptions errors_;
};

class UnicodeTranscodeOp : public OpKernel {
 public:
  explicit UnicodeTranscodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, GetErrorOptions(ctx, true, &errors_));
    std::string output;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_encoding", &output));
    OP_REQUIRES_OK(ctx, ParseEncoding(output, &output_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("input_encoding", &input_));
    OP_REQUIRES_OK(ctx, CheckEncodingName(input_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Converter converter(input_);
    OP_REQUIRES(ctx, converter.get() != nullptr,
                absl::InvalidArgumentError(absl::StrCat(
                    "Could not create converter for input encoding: ",
                    input_)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    int64_t bad_string = -1;
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      icu::UnicodeString text;
      ForEachCodePoint(in[i], converter.get(),
                       [&](UChar32 c, int, bool malformed) {
                         // Unlike decoding, a replaced control character
                         // counts as malformed here too (TensorFlow).
                         if (NeedsReplacing(errors_, c, malformed)) {
                           if (bad_string < 0) bad_string = i;
                           if (errors_.ignore) return;
                           c = errors_.replacement;
                         }
                         text.append(c);
                       });
      Encode(output_, text, &o[i]);
    }
    OP_REQUIRES(ctx, !(errors_.strict && bad_string >= 0),
                absl::InvalidArgumentError(absl::StrCat(
                    "Invalid formatting on input string: input[", bad_string,
                    "] is not valid ", input_,
                    " (errors='strict'; 'replace' or 'ignore' accept it)")));
  }

 private:
  ErrorOptions errors_;
  Encoding output_ = Encoding::kUtf8;
  std::string input_;
};

class UnicodeScriptOp : public OpKernel {
 public:
  explicit UnicodeScriptOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int32_t* in = input.data<int32_t>();
    int32_t* o = out->data<int32_t>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      UErrorCode status = U_ZERO_ERROR;
      const UScriptCode code = uscript_getScript(in[i], &status);
      o[i] = U_SUCCESS(status) ? static_cast<int32_t>(code) : -1;
    }
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnicodeDecode").Device(kDeviceCpu),
                      UnicodeDecodeOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("UnicodeDecodeWithOffsets").Device(kDeviceCpu),
    UnicodeDecodeWithOffsetsOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnicodeEncode").Device(kDeviceCpu),
                      UnicodeEncodeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnicodeTranscode").Device(kDeviceCpu),
                      UnicodeTranscodeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnicodeScript").Device(kDeviceCpu),
                      UnicodeScriptOp);

}  // namespace
}  // namespace dflow
