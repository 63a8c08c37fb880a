// CPU kernel of DecodeCSV (graph/ops/parsing_ops_more.cc): tf.io.decode_csv
// with TensorFlow's field rules, which are not RFC 4180's: '\n' and '\r'
// are skipped where a field starts; with use_quote_delim a field that
// starts with '"' runs to a '"' followed by the delimiter or the record's
// end, and "" inside it is one '"'; an unquoted field may hold neither '"'
// (with use_quote_delim) nor a line break; a record ending in the
// delimiter has an empty last field. Numbers parse as Abseil's SimpleAtoi /
// SimpleAtof / SimpleAtod do, as in TensorFlow (surrounding whitespace
// allowed, inf/nan accepted, overflow refused).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class DecodeCsvOp : public OpKernel {
 public:
  explicit DecodeCsvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string delim;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("OUT_TYPE", &out_types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("field_delim", &delim));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_quote_delim", &use_quote_delim_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("na_value", &na_value_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("select_cols", &select_cols_));
    OP_REQUIRES(ctx,
                select_cols_.empty() || select_cols_.size() == out_types_.size(),
                absl::InvalidArgumentError(absl::StrCat(
                    "select_cols should match output size: ",
                    select_cols_.size(), " columns selected for ",
                    out_types_.size(), " outputs")));
    for (size_t i = 1; i < select_cols_.size(); ++i) {
      OP_REQUIRES(ctx, select_cols_[i - 1] < select_cols_[i],
                  absl::InvalidArgumentError(
                      "select_cols should be strictly increasing indices"));
    }
    OP_REQUIRES(ctx, select_cols_.empty() || select_cols_.front() >= 0,
                absl::InvalidArgumentError(
                    "select_cols should be non-negative indices"));
    OP_REQUIRES(ctx, delim.size() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "field_delim should be only 1 char, got '", delim, "'")));
    delim_ = delim[0];
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& records = ctx->input(0);
    const int num_columns = static_cast<int>(out_types_.size());
    for (int f = 0; f < num_columns; ++f) {
      const Tensor& d = ctx->input(1 + f);
      OP_REQUIRES(ctx, d.shape().rank() <= 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Each record default should be at most rank 1, but "
                      "default ",
                      f, " has shape ", d.shape().ToString())));
      OP_REQUIRES(ctx, d.NumElements() < 2,
                  absl::InvalidArgumentError(absl::StrCat(
                      "There should only be 1 default per field but field ", f,
                      " has ", d.NumElements())));
    }
    std::vector<Tensor*> out(num_columns, nullptr);
    for (int f = 0; f < num_columns; ++f) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(f, records.shape(), &out[f]));
    }
    const std::string* text = records.data<std::string>();
    std::vector<std::string> fields;
    for (int64_t r = 0; r < records.NumElements(); ++r) {
      fields.clear();
      OP_REQUIRES_OK(ctx, SplitRecord(text[r], &fields));
      OP_REQUIRES(ctx, static_cast<int>(fields.size()) == num_columns,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Expect ", num_columns, " fields but have ",
                      fields.size(), " in record ", r)));
      for (int f = 0; f < num_columns; ++f) {
        OP_REQUIRES_OK(ctx, Store(fields[f], f, r, ctx->input(1 + f), out[f]));
      }
    }
  }

 private:
  // Field f of record r into out[r]: its default when empty or na_value.
  absl::Status Store(const std::string& field, int f, int64_t r,
                     const Tensor& fallback, Tensor* out) const {
    const DataType type = out_types_[f];
    if (field.empty() || field == na_value_) {
      if (fallback.NumElements() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Field ", f, " is required but missing in record ", r, "!"));
      }
      switch (type) {
        case DT_INT32:
          out->data<int32_t>()[r] = fallback.data<int32_t>()[0];
          break;
        case DT_INT64:
          out->data<int64_t>()[r] = fallback.data<int64_t>()[0];
          break;
        case DT_FLOAT:
          out->data<float>()[r] = fallback.data<float>()[0];
          break;
        case DT_DOUBLE:
          out->data<double>()[r] = fallback.data<double>()[0];
          break;
        default:
          out->data<std::string>()[r] = fallback.data<std::string>()[0];
          break;
      }
      return absl::OkStatus();
    }
    bool ok = true;
    switch (type) {
      case DT_INT32:
        ok = absl::SimpleAtoi(field, &out->data<int32_t>()[r]);
        break;
      case DT_INT64:
        ok = absl::SimpleAtoi(field, &out->data<int64_t>()[r]);
        break;
      case DT_FLOAT:
        ok = absl::SimpleAtof(field, &out->data<float>()[r]);
        break;
      case DT_DOUBLE:
        ok = absl::SimpleAtod(field, &out->data<double>()[r]);
        break;
      default:
        out->data<std::string>()[r] = field;
        break;
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("Field ", f, " in record ", r, " is not a valid ",
                       DataTypeName(type), ": ", field));
    }
    return absl::OkStatus();
  }

  // Whether column `column` is one of the outputs, given how many selected
  // columns came before it.
  bool Selected(int64_t column, size_t selected_so_far) const {
    return select_cols_.empty() || select_cols_[selected_so_far] == column;
  }

  // The selected fields of one record, in TensorFlow's rules (file
  // comment).
  absl::Status SplitRecord(absl::string_view in,
                           std::vector<std::string>* fields) const {
    if (in.empty()) return absl::OkStatus();
    const size_t n = in.size();
    size_t at = 0;
    int64_t column = 0;
    while (at < n) {
      if (in[at] == '\n' || in[at] == '\r') {
        ++at;
        continue;
      }
      const bool keep = Selected(column, fields->size());
      std::string field;
      if (use_quote_delim_ && in[at] == '"') {
        ++at;
        // Up to a '"' that the delimiter follows, or the last byte.
        while (at + 1 < n && (in[at] != '"' || in[at + 1] != delim_)) {
          if (in[at] != '"') {
            if (keep) field += in[at];
            ++at;
            continue;
          }
          if (in[at + 1] != '"') {
            return absl::InvalidArgumentError(
                "Quote inside a string has to be escaped by another quote");
          }
          if (keep) field += '"';
          at += 2;
        }
        if (!(at < n && in[at] == '"' && (at + 1 == n || in[at + 1] == delim_))) {
          return absl::InvalidArgumentError(
              "Quoted field has to end with quote followed by delim or end");
        }
        at += 2;
      } else {
        for (; at < n && in[at] != delim_; ++at) {
          if ((use_quote_delim_ && in[at] == '"') || in[at] == '\n' ||
              in[at] == '\r') {
            return absl::InvalidArgumentError(
                "Unquoted fields cannot have quotes/CRLFs inside");
          }
          if (keep) field += in[at];
        }
        ++at;  // past the delimiter (or the end)
      }
      ++column;
      if (keep) {
        fields->push_back(std::move(field));
        if (fields->size() == select_cols_.size()) return absl::OkStatus();
      }
    }
    // A record ending in the delimiter ends with an empty field.
    if (in.back() == delim_ && Selected(column, fields->size())) {
      fields->emplace_back();
    }
    return absl::OkStatus();
  }

  std::vector<DataType> out_types_;
  std::vector<int64_t> select_cols_;
  char delim_ = ',';
  bool use_quote_delim_ = true;
  std::string na_value_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeCSV").Device(kDeviceCpu),
                      DecodeCsvOp);

}  // namespace
}  // namespace dflow
