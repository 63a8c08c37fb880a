// The text-model and CTC ops' part of the every-op graph
// (all_ops_graph.h): Unicode, n-grams, ragged tensors, bincounts, edit
// distances and the CTC loss and decoders.
#include <string>

#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildTextAndCtcOps(const Scope& root) {
  const Scope s = root.NewSubScope("text");
  Output words = ops::Const(
      s, Tensor::FromVector<std::string>({"h\u00e9llo", "w\u00f6rld", "!"},
                                         TensorShape({3})));
  ops::RegexFullMatch(s, words, ops::Const(s, "w.*"));
  ops::StringUpper(s, ops::StringLower(s, words, "utf-8"), "utf-8");
  Output splits64 = ops::Const(s, {int64_t{0}, int64_t{2}, int64_t{3}});
  ops::StringNGramsAttrs ngram_attrs;
  ngram_attrs.ngram_widths = {1, 2};
  ngram_attrs.left_pad = "<s>";
  ngram_attrs.right_pad = "</s>";
  ngram_attrs.pad_width = -1;
  ops::StringNGrams(s, words, splits64, ngram_attrs);
  ops::UnsortedSegmentJoin(s, words, ops::Const(s, {0, 1, 0}),
                           ops::Const(s, 2), ",");
  ops::UnicodeDecodeOutputs chars = ops::UnicodeDecode(s, words, "UTF-8");
  ops::UnicodeDecode(s, words, "UTF-8", {}, /*with_offsets=*/true);
  ops::UnicodeEncode(s, chars.char_values, chars.row_splits, "UTF-16-BE");
  ops::UnicodeTranscode(s, words, "UTF-8", "UTF-32-BE");
  ops::UnicodeScript(s, chars.char_values);

  // Ragged tensors: the rows of the decoded characters.
  ops::RaggedTensorToTensor(s, ops::Const(s, int64_t{-1}), chars.char_values,
                            ops::Const(s, 0), {chars.row_splits},
                            {"ROW_SPLITS"});
  ops::RaggedTensorToSparse(s, {chars.row_splits}, chars.char_values);
  ops::RaggedRange(s, ops::Const(s, {0, 2}), ops::Const(s, {3, 5}),
                   ops::Const(s, 1));
  ops::RaggedGather(s, {chars.row_splits}, chars.char_values,
                    ops::Const(s, {2, 0}), 1);
  ops::DenseBincount(s, ops::Const(s, {1, 1, 3}), ops::Const(s, 4),
                     ops::Const(s, {1.0f, 2.0f, 0.5f}));
  Output idx = ops::Const(
      s, Tensor::FromVector<int64_t>({0, 0, 0, 1, 1, 0}, TensorShape({3, 2})));
  Output shape = ops::Const(s, {int64_t{2}, int64_t{2}});
  ops::EditDistance(s, idx, words, shape, idx, words, shape);

  // CTC: time-major logits [4, 2, 5].
  Output logits = ops::Placeholder(s.WithOpName("ctc_logits"), DT_FLOAT,
                                   ops::PlaceholderAttrs().Shape({4, 2, 5}));
  Output seq_len = ops::Const(s, {4, 3});
  Output label_values = ops::Const(s, {1, 2, 3});
  ops::CTCLoss(s, logits, idx, label_values, seq_len);
  ops::CTCLossV2(s, logits, idx, label_values, seq_len);
  ops::CTCGreedyDecoder(s, logits, seq_len, true);
  ops::CTCBeamSearchDecoder(s, logits, seq_len, 4, 2);
}

}  // namespace dflow
