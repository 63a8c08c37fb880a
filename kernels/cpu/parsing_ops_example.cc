// The tf.Example parsing shared by ParseExampleV2, ParseSingleExample and
// the SequenceExample parsers (parsing_ops_example.h).
#include "kernels/cpu/parsing_ops_example.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dflow {
namespace parsing {

const char* KindName(DataType t) {
  return t == DT_FLOAT   ? "float_list"
         : t == DT_INT64 ? "int64_list"
                         : "bytes_list";
}

int64_t ValueCount(const Feature& f, DataType type) {
  switch (type) {
    case DT_FLOAT:
      return f.has_float_list() ? f.float_list().value_size() : -1;
    case DT_INT64:
      return f.has_int64_list() ? f.int64_list().value_size() : -1;
    default:
      return f.has_bytes_list() ? f.bytes_list().value_size() : -1;
  }
}

void CopyValues(const Feature& f, DataType type, Tensor* out, int64_t at) {
  switch (type) {
    case DT_FLOAT:
      std::copy(f.float_list().value().begin(), f.float_list().value().end(),
                out->data<float>() + at);
      break;
    case DT_INT64:
      std::copy(f.int64_list().value().begin(), f.int64_list().value().end(),
                out->data<int64_t>() + at);
      break;
    default:
      std::copy(f.bytes_list().value().begin(), f.bytes_list().value().end(),
                out->data<std::string>() + at);
      break;
  }
}

absl::StatusOr<const Feature*> FindFeature(const Features& record_features,
                                           const std::string& key,
                                           DataType type, int64_t record) {
  const auto& features = record_features.feature();
  auto it = features.find(key);
  if (it == features.end() || it->second.kind_case() == Feature::KIND_NOT_SET) {
    return nullptr;
  }
  if (ValueCount(it->second, type) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("record ", record, ": feature '", key, "' holds ",
                     it->second.has_float_list()   ? "float_list"
                     : it->second.has_int64_list() ? "int64_list"
                                                   : "bytes_list",
                     " but the parser asks for ", KindName(type), " (",
                     DataTypeName(type), ")"));
  }
  return &it->second;
}

void ParseDenseFeature(OpKernelContext* ctx, const std::string& key,
                       DataType type, const TensorShape& shape,
                       const TensorShape& batch_shape, const Records& records,
                       int output, const Tensor& fallback) {
  const int64_t num_records = static_cast<int64_t>(records.size());
  // FixedLenSequenceFeature: [?, d...], rows of d... elements.
  const bool rows = shape.rank() >= 1 && shape.dim(0) < 0;
  TensorShape row_shape;
  for (int k = rows ? 1 : 0; k < shape.rank(); ++k) {
    row_shape.AddDim(shape.dim(k));
  }
  OP_REQUIRES(ctx, shape.rank() >= 0 && row_shape.IsFullyDefined(),
              absl::InvalidArgumentError(absl::StrCat(
                  "dense feature '", key, "' has shape ", shape.ToString(),
                  ": only its first dimension may be unknown (a "
                  "FixedLenSequenceFeature); give the others")));
  const int64_t per_row = row_shape.num_elements();
  std::vector<const Feature*> found(num_records, nullptr);
  int64_t longest = 0;  // rows of the longest record (sequence features)
  for (int64_t r = 0; r < num_records; ++r) {
    absl::StatusOr<const Feature*> f = FindFeature(*records[r], key, type, r);
    OP_REQUIRES_OK(ctx, f.status());
    found[r] = *f;
    if (!rows || found[r] == nullptr) continue;
    const int64_t count = ValueCount(*found[r], type);
    OP_REQUIRES(ctx, per_row > 0 ? count % per_row == 0 : count == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "record ", r, ": feature '", key, "' has ", count, " ",
                    KindName(type), " values, not a whole number of rows of ",
                    per_row, " (its shape is ", shape.ToString(), ")")));
    if (per_row > 0) longest = std::max(longest, count / per_row);
  }
  const int64_t per_record = rows ? longest * per_row : per_row;
  TensorShape out_shape = batch_shape;
  if (rows) out_shape.AddDim(longest);
  for (int k = 0; k < row_shape.rank(); ++k) out_shape.AddDim(row_shape.dim(k));
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(output, out_shape, &out));
  if (rows) {
    OP_REQUIRES(ctx, fallback.NumElements() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "feature '", key, "' has the variable-length shape ",
                    shape.ToString(),
                    ", so its default must be one element "
                    "(the padding), but it has shape ",
                    fallback.shape().ToString())));
  }
  const size_t width = DataTypeSize(type);
  for (int64_t r = 0; r < num_records; ++r) {
    const int64_t at = r * per_record;
    int64_t filled = 0;
    if (found[r] != nullptr) {
      const int64_t count = ValueCount(*found[r], type);
      OP_REQUIRES(ctx, rows || count == per_record,
                  absl::InvalidArgumentError(
                      absl::StrCat("record ", r, ": feature '", key, "' has ",
                                   count, " values but its dense shape ",
                                   shape.ToString(), " needs ", per_record)));
      CopyValues(*found[r], type, out, at);
      filled = count;
    } else if (!rows) {
      OP_REQUIRES(ctx, fallback.NumElements() > 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "record ", r, ": feature '", key, "' (", KindName(type),
                      ") is required but could not be found (give it a "
                      "default value to make it optional)")));
      OP_REQUIRES(ctx, fallback.NumElements() == per_record,
                  absl::InvalidArgumentError(absl::StrCat(
                      "the default of feature '", key, "' has shape ",
                      fallback.shape().ToString(), " but the feature's is ",
                      shape.ToString())));
      if (type == DT_STRING) {
        std::copy_n(fallback.data<std::string>(), per_record,
                    out->data<std::string>() + at);
      } else {
        std::memcpy(static_cast<char*>(out->raw_data()) + at * width,
                    fallback.raw_data(), per_record * width);
      }
      continue;
    }
    // A sequence feature's padding: the default's one element.
    for (int64_t i = filled; i < per_record; ++i) {
      if (type == DT_STRING) {
        out->data<std::string>()[at + i] = fallback.data<std::string>()[0];
      } else {
        std::memcpy(static_cast<char*>(out->raw_data()) + (at + i) * width,
                    fallback.raw_data(), width);
      }
    }
  }
}

void ParseSparseFeature(OpKernelContext* ctx, const std::string& key,
                        DataType type, int batch_rank, const Records& records,
                        int indices_output, int values_output,
                        int shape_output) {
  const int64_t num_records = static_cast<int64_t>(records.size());
  int64_t total = 0, longest = 0;
  std::vector<const Feature*> found(num_records, nullptr);
  for (int64_t r = 0; r < num_records; ++r) {
    absl::StatusOr<const Feature*> f = FindFeature(*records[r], key, type, r);
    OP_REQUIRES_OK(ctx, f.status());
    found[r] = *f;
    const int64_t count = *f == nullptr ? 0 : ValueCount(**f, type);
    total += count;
    longest = std::max(longest, count);
  }
  const int index_width = batch_rank + 1;
  Tensor* indices = nullptr;
  Tensor* values = nullptr;
  Tensor* dense_shape = nullptr;
  OP_REQUIRES_OK(
      ctx, ctx->allocate_output(indices_output,
                                TensorShape({total, index_width}), &indices));
  OP_REQUIRES_OK(
      ctx, ctx->allocate_output(values_output, TensorShape({total}), &values));
  OP_REQUIRES_OK(ctx,
                 ctx->allocate_output(shape_output, TensorShape({index_width}),
                                      &dense_shape));
  int64_t at = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    if (found[r] == nullptr) continue;
    const int64_t count = ValueCount(*found[r], type);
    CopyValues(*found[r], type, values, at);
    for (int64_t i = 0; i < count; ++i, ++at) {
      int64_t* row = indices->data<int64_t>() + at * index_width;
      if (batch_rank == 1) *row++ = r;
      *row = i;
    }
  }
  int64_t* dims = dense_shape->data<int64_t>();
  if (batch_rank == 1) *dims++ = num_records;
  *dims = longest;
}

absl::Status ReadKeys(const Tensor& t, const char* what,
                      std::vector<std::string>* keys) {
  if (t.dtype() != DT_STRING || t.shape().rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a vector of strings, got ",
                     DataTypeName(t.dtype()), " ", t.shape().ToString()));
  }
  keys->assign(t.data<std::string>(), t.data<std::string>() + t.NumElements());
  return absl::OkStatus();
}

void SetSplit(Tensor* splits, int64_t i, int64_t at) {
  if (splits->dtype() == DT_INT32) {
    splits->data<int32_t>()[i] = static_cast<int32_t>(at);
  } else {
    splits->data<int64_t>()[i] = at;
  }
}

void ParseRaggedFeature(OpKernelContext* ctx, const std::string& key,
                        DataType type, DataType split_type, int batch_rank,
                        const Records& records, int values_output,
                        int splits_output) {
  OP_REQUIRES(
      ctx, type == DT_FLOAT || type == DT_INT64 || type == DT_STRING,
      absl::InvalidArgumentError(absl::StrCat(
          "ragged feature '", key, "' has value type ", DataTypeName(type),
          "; tf.Example holds float, int64 and "
          "string values")));
  OP_REQUIRES(ctx, split_type == DT_INT32 || split_type == DT_INT64,
              absl::InvalidArgumentError(absl::StrCat(
                  "ragged feature '", key, "' has row splits of ",
                  DataTypeName(split_type), "; they must be int32 or int64")));
  const int64_t num_records = static_cast<int64_t>(records.size());
  std::vector<const Feature*> found(num_records, nullptr);
  int64_t total = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    absl::StatusOr<const Feature*> f = FindFeature(*records[r], key, type, r);
    OP_REQUIRES_OK(ctx, f.status());
    found[r] = *f;
    if (found[r] != nullptr) total += ValueCount(*found[r], type);
  }
  Tensor* values = nullptr;
  Tensor* splits = nullptr;
  OP_REQUIRES_OK(
      ctx, ctx->allocate_output(values_output, TensorShape({total}), &values));
  const int64_t num_splits = batch_rank == 0 ? 0 : num_records + 1;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(splits_output,
                                           TensorShape({num_splits}), &splits));
  int64_t at = 0;
  if (num_splits > 0) SetSplit(splits, 0, 0);
  for (int64_t r = 0; r < num_records; ++r) {
    if (found[r] != nullptr) {
      CopyValues(*found[r], type, values, at);
      at += ValueCount(*found[r], type);
    }
    if (num_splits > 0) SetSplit(splits, r + 1, at);
  }
}

}  // namespace parsing
}  // namespace dflow
