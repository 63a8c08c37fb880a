// StringNGrams and UnsortedSegmentJoin on the CPU, as TensorFlow 2.21
// computes them. StringNGrams: for each row of a ragged string tensor and
// each width n, the n-grams of the row padded with pad_width (at most n-1)
// pads on each side; with preserve_short_sequences a non-empty row that
// gives no n-gram gives one of all its tokens, padded. UnsortedSegmentJoin:
// the strings of each segment joined in order; like TensorFlow it adds the
// separator only after a non-empty prefix, so empty strings leave no
// separator behind them.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

void SetIndex(Tensor* t, int64_t i, int64_t v) {
  if (t->dtype() == DT_INT32) {
    t->data<int32_t>()[i] = static_cast<int32_t>(v);
  } else {
    t->data<int64_t>()[i] = v;
  }
}

class StringNGramsOp : public OpKernel {
 public:
  explicit StringNGramsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ngram_widths", &widths_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("left_pad", &left_pad_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("right_pad", &right_pad_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_width", &pad_width_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("preserve_short_sequences", &preserve_short_));
    for (int64_t w : widths_) {
      OP_REQUIRES(ctx, w > 0 && w <= (int64_t{1} << 30),
                  absl::InvalidArgumentError(absl::StrCat(
                      "ngram_widths must contain positive values, got ", w)));
    }
    OP_REQUIRES(ctx, pad_width_ <= (int64_t{1} << 30),
                absl::InvalidArgumentError(
                    absl::StrCat("pad_width is too large: ", pad_width_)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& splits = ctx->input(1);
    OP_REQUIRES(ctx, data.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "data must be a vector, got ", data.shape().ToString())));
    OP_REQUIRES(ctx, splits.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("data_splits must be a vector, got ",
                                 splits.shape().ToString())));
    const int64_t size = data.NumElements();
    const int64_t num_splits = splits.NumElements();
    if (num_splits > 0) {
      OP_REQUIRES(ctx, IndexAt(splits, 0) == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "First split value must be 0, got ", IndexAt(splits, 0))));
      for (int64_t i = 1; i < num_splits; ++i) {
        const int64_t prev = IndexAt(splits, i - 1), v = IndexAt(splits, i);
        OP_REQUIRES(ctx, v >= prev && v <= size,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Invalid split value ", v, ", must be in [", prev,
                        ", ", size, "]")));
      }
      OP_REQUIRES(ctx, IndexAt(splits, num_splits - 1) == size,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Last split value must be data size. Expected ", size,
                      ", got ", IndexAt(splits, num_splits - 1))));
    }
    const int64_t rows = num_splits - 1;
    Tensor* out_splits = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, splits.shape(), &out_splits));
    if (size == 0 || num_splits == 0) {
      Tensor* empty = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, data.shape(), &empty));
      for (int64_t i = 0; i < num_splits; ++i) SetIndex(out_splits, i, 0);
      return;
    }
    // How many n-grams each row gives: its splits first.
    std::vector<int64_t> starts(rows + 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length = IndexAt(splits, r + 1) - IndexAt(splits, r);
      int64_t count = 0;
      for (int64_t w : widths_) count += NumNGrams(length, w);
      if (preserve_short_ && length > 0 && count == 0) count = 1;
      starts[r + 1] = starts[r] + count;
    }
    // A preserved short row needs a fixed pad width (it has no n-gram
    // width to take n - 1 from).
    OP_REQUIRES(
        ctx, !(preserve_short_ && pad_width_ < 0 && NeedsShortRow(splits, rows)),
        absl::InvalidArgumentError(absl::StrCat(
            "Pad width should be >= 0 when preserve_short_sequences is True "
            "and ngram_widths are not provided, got ",
            pad_width_)));
    for (int64_t r = 0; r <= rows; ++r) SetIndex(out_splits, r, starts[r]);
    Tensor* ngrams = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({starts[rows]}), &ngrams));
    const std::string* in = data.data<std::string>();
    std::string* out = ngrams->data<std::string>();
    for (int64_t r = 0; r < rows; ++r) {
      const std::string* row = in + IndexAt(splits, r);
      const int64_t length = IndexAt(splits, r + 1) - IndexAt(splits, r);
      int64_t at = starts[r];
      for (int64_t w : widths_) {
        const int64_t n = NumNGrams(length, w);
        Build(row, out + at, n, w);
        at += n;
      }
      if (preserve_short_ && at == starts[r] && length > 0) {
        // One n-gram of the whole row and its pads.
        Build(row, out + at, 1, length + 2 * pad_width_);
      }
    }
  }

 private:
  int64_t PadWidth(int64_t width) const {
    return std::min(pad_width_ < 0 ? width - 1 : pad_width_, width - 1);
  }

  int64_t NumNGrams(int64_t length, int64_t width) const {
    return std::max<int64_t>(0, length + 2 * PadWidth(width) - width + 1);
  }

  bool NeedsShortRow(const Tensor& splits, int64_t rows) const {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length = IndexAt(splits, r + 1) - IndexAt(splits, r);
      int64_t count = 0;
      for (int64_t w : widths_) count += NumNGrams(length, w);
      if (length > 0 && count == 0) return true;
    }
    return false;
  }

  // `count` n-grams of `width` over `data`: n-gram i starts i - pad tokens
  // into the row, pads filling what lies outside it.
  void Build(const std::string* data, std::string* out, int64_t count,
             int64_t width) const {
    const int64_t pad = PadWidth(width);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t left = std::max<int64_t>(0, pad - i);
      const int64_t right = std::max<int64_t>(0, pad - (count - (i + 1)));
      const int64_t tokens = width - (left + right);
      const int64_t first = left > 0 ? 0 : i - pad;
      std::string& s = out[i];
      for (int64_t k = 0; k < left; ++k) absl::StrAppend(&s, left_pad_, separator_);
      for (int64_t k = 0; k + 1 < tokens; ++k) {
        absl::StrAppend(&s, data[first + k], separator_);
      }
      if (tokens > 0) {
        s.append(data[first + tokens - 1]);
        for (int64_t k = 0; k < right; ++k) absl::StrAppend(&s, separator_, right_pad_);
      } else {
        // Only pads: the left ones already end in a separator.
        for (int64_t k = 0; k + 1 < right; ++k) {
          absl::StrAppend(&s, right_pad_, separator_);
        }
        s.append(right_pad_);
      }
    }
  }

  std::string separator_, left_pad_, right_pad_;
  std::vector<int64_t> widths_;
  int64_t pad_width_ = 0;
  bool preserve_short_ = false;
};

class UnsortedSegmentJoinOp : public OpKernel {
 public:
  explicit UnsortedSegmentJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
    // TensorFlow appends separator.c_str(): the separator ends at a NUL.
    separator_ = separator_.c_str();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const Tensor& num = ctx->input(2);
    OP_REQUIRES(ctx, num.NumElements() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_segments must be a scalar, got ",
                    num.shape().ToString())));
    const int64_t segments = IndexAt(num, 0);
    OP_REQUIRES(ctx, segments >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_segments must be non-negative, got ", segments)));
    const int ids_rank = ids.shape().rank();
    OP_REQUIRES(ctx, ids_rank != 0,
                absl::InvalidArgumentError("Segment_id cannot have rank 0"));
    OP_REQUIRES(ctx, ids_rank <= input.shape().rank(),
                absl::InvalidArgumentError(absl::StrCat(
                    "Invalid segment_id rank ", ids_rank, " for input with ",
                    input.shape().rank(), " dimension(s)")));
    TensorShape out_shape({segments});
    int64_t inner = 1;
    for (int i = 0; i < input.shape().rank(); ++i) {
      if (i < ids_rank) {
        OP_REQUIRES(ctx, ids.shape().dim(i) == input.shape().dim(i),
                    absl::InvalidArgumentError(absl::StrCat(
                        "segment_ids.shape ", ids.shape().ToString(),
                        " must be a prefix of inputs.shape ",
                        input.shape().ToString())));
      } else {
        out_shape.AddDim(input.shape().dim(i));
        inner *= input.shape().dim(i);
      }
    }
    const int64_t n = ids.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = IndexAt(ids, i);
      OP_REQUIRES(ctx, id >= 0 && id < segments,
                  absl::InvalidArgumentError(absl::StrCat(
                      "segment_ids are not allowed to exceed num_segments or "
                      "to have negative values: segment_ids[",
                      i, "] = ", id, ", num_segments = ", segments)));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = IndexAt(ids, i);
      for (int64_t j = 0; j < inner; ++j) {
        std::string& s = o[id * inner + j];
        if (!s.empty()) s.append(separator_);
        s.append(in[i * inner + j]);
      }
    }
  }

 private:
  std::string separator_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringNGrams").Device(kDeviceCpu),
                      StringNGramsOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnsortedSegmentJoin")
                          .Device(kDeviceCpu)
                          .HostMemory("num_segments"),
                      UnsortedSegmentJoinOp);

}  // namespace
}  // namespace dflow
