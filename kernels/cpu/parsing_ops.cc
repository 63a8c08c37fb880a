// CPU kernels of DecodeRaw, ParseExampleV2 and ParseSingleExample
// (graph/ops/parsing_ops.cc): tf.Example records (proto/example.proto)
// into dense and sparse tensors, as TensorFlow's parse_single_example and
// parse_example give them. Ragged features and variable-length dense
// features are refused with an error naming the key.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "proto/example.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// --- DecodeRaw. ---

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("out_type", &out_type_));
    ctx->SetStatus(ctx->GetAttr("little_endian", &little_endian_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& bytes = ctx->input(0);
    const int64_t n = bytes.NumElements();
    const std::string* strings = bytes.data<std::string>();
    const size_t width = DataTypeSize(out_type_);
    const size_t length = n == 0 ? 0 : strings[0].size();
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, strings[i].size() == length,
                  absl::InvalidArgumentError(absl::StrCat(
                      "DecodeRaw needs every string to have one size, but "
                      "element ",
                      i, " has size ", strings[i].size(), " != ", length)));
    }
    OP_REQUIRES(ctx, width > 0 && length % width == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "DecodeRaw: input strings of ", length,
                    " bytes are not a whole number of ",
                    DataTypeName(out_type_), " (", width, " bytes each)")));
    TensorShape shape = bytes.shape();
    shape.AddDim(static_cast<int64_t>(length / width));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    char* dst = static_cast<char*>(out->raw_data());
    // The host is little-endian (x86-64); big-endian data is byte-swapped.
    const bool swap = !little_endian_ && width > 1;
    for (int64_t i = 0; i < n; ++i) {
      char* to = dst + i * length;
      std::memcpy(to, strings[i].data(), length);
      if (!swap) continue;
      // Complex numbers swap each of their two halves.
      const size_t part =
          out_type_ == DT_COMPLEX64 || out_type_ == DT_COMPLEX128 ? width / 2
                                                                  : width;
      for (size_t at = 0; at < length; at += part) {
        std::reverse(to + at, to + at + part);
      }
    }
  }

 private:
  DataType out_type_ = DT_INVALID;
  bool little_endian_ = true;
};

// --- tf.Example parsing. ---

// What to parse (from attrs, and for ParseExampleV2 from key inputs).
struct ParseConfig {
  std::vector<std::string> sparse_keys, dense_keys;
  std::vector<DataType> sparse_types, dense_types;
  std::vector<TensorShape> dense_shapes;
};

const char* KindName(DataType t) {
  return t == DT_FLOAT   ? "float_list"
         : t == DT_INT64 ? "int64_list"
                         : "bytes_list";
}

// The number of values of `f` if it holds `type`'s list, else -1.
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

// Copies f's values of `type` into `out` from index `at`.
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

// The feature `key` of `example` with `type`'s kind, null if absent (an
// empty feature counts as absent for dense keys, as in TensorFlow).
absl::StatusOr<const Feature*> FindFeature(const Example& example,
                                           const std::string& key,
                                           DataType type, int64_t record) {
  const auto& features = example.features().feature();
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

// Parses `records` (shaped `batch_shape`, a scalar or a vector) into the
// kernel's outputs, in ParseExampleV2's output order: sparse indices,
// values, shapes, then dense values.
void ParseRecords(OpKernelContext* ctx, const ParseConfig& config,
                  const TensorShape& batch_shape, const std::string* records,
                  int64_t num_records,
                  const std::vector<const Tensor*>& defaults,
                  int first_sparse_output) {
  std::vector<Example> examples(num_records);
  for (int64_t r = 0; r < num_records; ++r) {
    OP_REQUIRES(ctx, examples[r].ParseFromString(records[r]),
                absl::InvalidArgumentError(absl::StrCat(
                    "record ", r, " is not a serialized tf.Example (",
                    records[r].size(), " bytes)")));
  }
  const int num_sparse = static_cast<int>(config.sparse_keys.size());
  const int rank = batch_shape.rank();
  // Dense features: batch_shape + dense_shape, from the record or default.
  for (size_t d = 0; d < config.dense_keys.size(); ++d) {
    const std::string& key = config.dense_keys[d];
    const DataType type = config.dense_types[d];
    const TensorShape& shape = config.dense_shapes[d];
    OP_REQUIRES(ctx, shape.IsFullyDefined(),
                absl::UnimplementedError(absl::StrCat(
                    "dense feature '", key, "' has shape ", shape.ToString(),
                    ": variable-length dense features are not supported; "
                    "give a fully defined shape or parse it as sparse")));
    const int64_t per_record = shape.num_elements();
    TensorShape out_shape = batch_shape;
    for (int k = 0; k < shape.rank(); ++k) out_shape.AddDim(shape.dim(k));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(first_sparse_output + 3 * num_sparse + d,
                                  out_shape, &out));
    const Tensor& fallback = *defaults[d];
    for (int64_t r = 0; r < num_records; ++r) {
      absl::StatusOr<const Feature*> f = FindFeature(examples[r], key, type, r);
      OP_REQUIRES_OK(ctx, f.status());
      if (*f != nullptr) {
        const int64_t count = ValueCount(**f, type);
        OP_REQUIRES(ctx, count == per_record,
                    absl::InvalidArgumentError(
                        absl::StrCat("record ", r, ": feature '", key, "' has ",
                                     count, " values but its dense shape ",
                                     shape.ToString(), " needs ", per_record)));
        CopyValues(**f, type, out, r * per_record);
        continue;
      }
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
                    out->data<std::string>() + r * per_record);
      } else {
        std::memcpy(static_cast<char*>(out->raw_data()) +
                        r * per_record * DataTypeSize(type),
                    fallback.raw_data(), per_record * DataTypeSize(type));
      }
    }
  }
  // Sparse features: every value, indexed by (record..., position).
  for (int s = 0; s < num_sparse; ++s) {
    const std::string& key = config.sparse_keys[s];
    const DataType type = config.sparse_types[s];
    int64_t total = 0, longest = 0;
    std::vector<const Feature*> found(num_records, nullptr);
    for (int64_t r = 0; r < num_records; ++r) {
      absl::StatusOr<const Feature*> f = FindFeature(examples[r], key, type, r);
      OP_REQUIRES_OK(ctx, f.status());
      found[r] = *f;
      const int64_t count = *f == nullptr ? 0 : ValueCount(**f, type);
      total += count;
      longest = std::max(longest, count);
    }
    const int index_width = rank + 1;
    Tensor* indices = nullptr;
    Tensor* values = nullptr;
    Tensor* dense_shape = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(first_sparse_output + s,
                                  TensorShape({total, index_width}), &indices));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(first_sparse_output + num_sparse + s,
                                        TensorShape({total}), &values));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(first_sparse_output + 2 * num_sparse + s,
                                  TensorShape({index_width}), &dense_shape));
    int64_t at = 0;
    for (int64_t r = 0; r < num_records; ++r) {
      if (found[r] == nullptr) continue;
      const int64_t count = ValueCount(*found[r], type);
      CopyValues(*found[r], type, values, at);
      for (int64_t i = 0; i < count; ++i, ++at) {
        int64_t* row = indices->data<int64_t>() + at * index_width;
        if (rank == 1) *row++ = r;
        *row = i;
      }
    }
    int64_t* dims = dense_shape->data<int64_t>();
    if (rank == 1) *dims++ = num_records;
    *dims = longest;
  }
}

// Reads a 1-D string input of keys.
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

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tdense", &config_.dense_types));
    ctx->SetStatus(ctx->GetAttr("sparse_types", &config_.sparse_types));
    ctx->SetStatus(ctx->GetAttr("dense_shapes", &config_.dense_shapes));
    ctx->SetStatus(ctx->GetAttr("num_sparse", &num_sparse_));
    std::vector<DataType> ragged;
    ctx->SetStatus(ctx->GetAttr("ragged_value_types", &ragged));
    num_ragged_ = static_cast<int>(ragged.size());
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "serialized must be a scalar or a vector of records, got ",
                    serialized.shape().ToString())));
    ParseConfig config = config_;
    OP_REQUIRES_OK(ctx,
                   ReadKeys(ctx->input(2), "sparse_keys", &config.sparse_keys));
    OP_REQUIRES_OK(ctx,
                   ReadKeys(ctx->input(3), "dense_keys", &config.dense_keys));
    std::vector<std::string> ragged_keys;
    OP_REQUIRES_OK(ctx, ReadKeys(ctx->input(4), "ragged_keys", &ragged_keys));
    OP_REQUIRES(ctx, ragged_keys.empty() && num_ragged_ == 0,
                absl::UnimplementedError(
                    absl::StrCat("ragged features are not supported (",
                                 ragged_keys.empty() ? "" : ragged_keys[0],
                                 "); parse them as sparse features")));
    OP_REQUIRES(
        ctx,
        static_cast<int64_t>(config.sparse_keys.size()) == num_sparse_ &&
            config.sparse_keys.size() == config.sparse_types.size() &&
            config.dense_keys.size() == config.dense_types.size() &&
            config.dense_keys.size() == config.dense_shapes.size(),
        absl::InvalidArgumentError(absl::StrCat(
            "ParseExampleV2: ", config.sparse_keys.size(), " sparse keys for ",
            num_sparse_, " sparse outputs, ", config.dense_keys.size(),
            " dense keys for ", config.dense_types.size(), " dense types")));
    std::vector<const Tensor*> defaults;
    for (size_t d = 0; d < config.dense_keys.size(); ++d) {
      defaults.push_back(&ctx->input(5 + static_cast<int>(d)));
    }
    ParseRecords(ctx, config, serialized.shape(),
                 serialized.data<std::string>(), serialized.NumElements(),
                 defaults, /*first_sparse_output=*/0);
  }

 private:
  ParseConfig config_;
  int64_t num_sparse_ = 0;
  int num_ragged_ = 0;
};

class ParseSingleExampleOp : public OpKernel {
 public:
  explicit ParseSingleExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tdense", &config_.dense_types));
    ctx->SetStatus(ctx->GetAttr("sparse_types", &config_.sparse_types));
    ctx->SetStatus(ctx->GetAttr("dense_shapes", &config_.dense_shapes));
    ctx->SetStatus(ctx->GetAttr("sparse_keys", &config_.sparse_keys));
    ctx->SetStatus(ctx->GetAttr("dense_keys", &config_.dense_keys));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "ParseSingleExample parses one record (a scalar), got ",
                    serialized.shape().ToString())));
    std::vector<const Tensor*> defaults;
    for (size_t d = 0; d < config_.dense_keys.size(); ++d) {
      defaults.push_back(&ctx->input(1 + static_cast<int>(d)));
    }
    ParseRecords(ctx, config_, TensorShape({}), serialized.data<std::string>(),
                 1, defaults,
                 /*first_sparse_output=*/0);
  }

 private:
  ParseConfig config_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeRaw").Device(kDeviceCpu),
                      DecodeRawOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParseExampleV2").Device(kDeviceCpu),
                      ParseExampleV2Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParseSingleExample").Device(kDeviceCpu),
                      ParseSingleExampleOp);

}  // namespace
}  // namespace dflow
