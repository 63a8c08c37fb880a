// String ops: StaticRegexFullMatch (TensorFlow's string_ops.cc), which
// TensorFlow's Saver writes to tell "s3://" paths apart, and RegexFullMatch;
// StringLength; StringFormat and PrintV2, what tf.print builds; the feature
// pipelines' string ops (string_ops_transform.cc, string_ops_convert.cc):
// case, strip, substr, reduce_join, regex_replace, split, to_number,
// as_string, base64 and hash buckets, fingerprints; the text models' ops:
// n-grams, segment joins (string_ops_text.cc) and Unicode decoding and
// encoding (string_ops_unicode.cc).
#ifndef DFLOW_GRAPH_OPS_STRING_OPS_H_
#define DFLOW_GRAPH_OPS_STRING_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// Whether each string of `input` matches `pattern` as a whole (RE2 syntax
// and full-match semantics, as in TensorFlow).
Output StaticRegexFullMatch(const Scope& scope, Input input,
                            absl::string_view pattern);
// The same with the pattern a string scalar tensor (tf.strings.
// regex_full_match with a tensor pattern).
Output RegexFullMatch(const Scope& scope, Input input, Input pattern);

// Each string's length in "BYTE"s or "UTF8_CHAR"s (tf.strings.length).
Output StringLength(const Scope& scope, Input input,
                    absl::string_view unit = "BYTE");

// `format` with each "{}" replaced by an input's values as tf.print writes
// them (the first and last `summarize` entries of each dimension; -1: all).
Output StringFormat(const Scope& scope, InputList inputs,
                    absl::string_view format, int64_t summarize = 3);

// `input` passed on; when it runs, `message` and each data tensor's first
// elements go to stderr (TF1's tf.compat.v1.Print).
Output Print(const Scope& scope, Input input, InputList data,
             absl::string_view message);

// Writes `input` (a string scalar) and a newline to "stderr", "stdout",
// "log(info)" or "file://<path>" when it runs (tf.print).
Operation PrintV2(const Scope& scope, Input input,
                  absl::string_view output_stream = "stderr");

// Case (ASCII letters; with encoding "utf-8" every cased letter, ICU's
// mapping) and ASCII whitespace (tf.strings.lower, upper, strip).
Output StringLower(const Scope& scope, Input input,
                   absl::string_view encoding = "");
Output StringUpper(const Scope& scope, Input input,
                   absl::string_view encoding = "");
Output StringStrip(const Scope& scope, Input input);

// `len` "BYTE"s or "UTF8_CHAR"s of each string from `pos` (negative: from
// the end); pos and len broadcast against input.
Output Substr(const Scope& scope, Input input, Input pos, Input len,
              absl::string_view unit = "BYTE");

// The strings joined with `separator` along `reduction_indices` (int32).
Output ReduceJoin(const Scope& scope, Input inputs, Input reduction_indices,
                  bool keep_dims = false, absl::string_view separator = "");

// RE2 matches of `pattern` replaced by `rewrite` (\\1 names groups): the
// first match or, with replace_global, all of them.
Output StaticRegexReplace(const Scope& scope, Input input,
                          absl::string_view pattern, absl::string_view rewrite,
                          bool replace_global = true);
Output RegexReplace(const Scope& scope, Input input, Input pattern,
                    Input rewrite, bool replace_global = true);

// The pieces of a vector of strings as a SparseTensor.
struct StringSplitOutputs {
  Output indices;  // int64 [pieces, 2]: (string, piece)
  Output values;   // string [pieces]
  Output shape;    // int64 [2]: (strings, most pieces)
};
// tf.compat.v1.string_split: at any byte of `delimiter` (empty: each byte).
StringSplitOutputs StringSplit(const Scope& scope, Input input,
                               Input delimiter, bool skip_empty = true);
// tf.strings.split: Python's str.split(sep, maxsplit).
StringSplitOutputs StringSplitV2(const Scope& scope, Input input, Input sep,
                                 int64_t maxsplit = -1);

// Each string parsed as a float, double, int32 or int64.
Output StringToNumber(const Scope& scope, Input input,
                      DataType out_type = DT_FLOAT);

// tf.strings.as_string's attrs (printf's %f, %e, %g, width and fill).
struct AsStringAttrs {
  int64_t precision = -1;
  bool scientific = false;
  bool shortest = false;
  int64_t width = -1;
  std::string fill;
};
Output AsString(const Scope& scope, Input input,
                const AsStringAttrs& attrs = {});

// Web-safe base64 (tf.io.encode_base64, decode_base64).
Output EncodeBase64(const Scope& scope, Input input, bool pad = false);
Output DecodeBase64(const Scope& scope, Input input);

// Hash buckets: FarmHash Fingerprint64, or SipHash-2-4 under `key` (two
// ints), modulo num_buckets.
Output StringToHashBucketFast(const Scope& scope, Input input,
                              int64_t num_buckets);
Output StringToHashBucketStrong(const Scope& scope, Input input,
                                int64_t num_buckets,
                                const std::vector<int64_t>& key);
// The legacy bucket (tf.strings.to_hash_bucket): TensorFlow's Hash64.
Output StringToHashBucket(const Scope& scope, Input input,
                          int64_t num_buckets);

// tf.fingerprint: FarmHash Fingerprint64 of each row of `data` (method
// "farmhash64"), uint8 [rows, 8].
Output Fingerprint(const Scope& scope, Input data, Input method);

// --- string_ops_text.cc: n-grams and segment joins (text models). ---

struct StringNGramsAttrs {
  std::string separator = " ";
  std::vector<int64_t> ngram_widths = {2};
  std::string left_pad;
  std::string right_pad;
  // Pads on each side: -1 for ngram_width - 1 (never more than that).
  int64_t pad_width = 0;
  // A non-empty row too short for any n-gram gives one of all its tokens.
  bool preserve_short_sequences = false;
};
struct StringNGramsOutputs {
  Output ngrams;         // string [total]
  Output ngrams_splits;  // data_splits' type: row r is [splits[r], ...)
};
// tf.strings.ngrams of a ragged string tensor given by its values `data`
// and row splits `data_splits` (int32 or int64).
StringNGramsOutputs StringNGrams(const Scope& scope, Input data,
                                 Input data_splits,
                                 const StringNGramsAttrs& attrs = {});

// output[s] = the strings with segment id s, in order, joined by
// `separator` (tf.strings.unsorted_segment_join).
Output UnsortedSegmentJoin(const Scope& scope, Input inputs,
                           Input segment_ids, Input num_segments,
                           absl::string_view separator = "");

// --- string_ops_unicode.cc: Unicode decoding and encoding (ICU). ---

// What to do with malformed input (or, for UnicodeEncode, code points
// outside [0, 0x10FFFF] and surrogates): "strict" fails, "replace" puts
// replacement_char in its place, "ignore" drops it. With
// replace_control_characters, code points below 0x20 count as malformed.
struct UnicodeErrorAttrs {
  std::string errors = "replace";
  int64_t replacement_char = 0xFFFD;
  bool replace_control_characters = false;
};
struct UnicodeDecodeOutputs {
  Output row_splits;           // [size(input) + 1]
  Output char_values;          // int32 code points
  Output char_to_byte_starts;  // int64 byte offsets (with_offsets only)
};
// The code points of each string in `input_encoding` (any name ICU knows:
// "UTF-8", "UTF-16-BE", "ISO-8859-1", ...): UnicodeDecode, or
// UnicodeDecodeWithOffsets when `with_offsets`.
UnicodeDecodeOutputs UnicodeDecode(const Scope& scope, Input input,
                                   absl::string_view input_encoding,
                                   const UnicodeErrorAttrs& attrs = {},
                                   bool with_offsets = false);
// Rows of code points (values and row splits) as "UTF-8", "UTF-16-BE" or
// "UTF-32-BE" strings.
Output UnicodeEncode(const Scope& scope, Input input_values,
                     Input input_splits, absl::string_view output_encoding,
                     const UnicodeErrorAttrs& attrs = {});
Output UnicodeTranscode(const Scope& scope, Input input,
                        absl::string_view input_encoding,
                        absl::string_view output_encoding,
                        const UnicodeErrorAttrs& attrs = {});
// ICU's script code of each code point (tf.strings.unicode_script).
Output UnicodeScript(const Scope& scope, Input input);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_STRING_OPS_H_
