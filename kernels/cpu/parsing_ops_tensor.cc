// CPU kernels of SerializeTensor and ParseTensor (tensors as TensorProto
// bytes, the encoding TensorFlow writes: packed little-endian
// tensor_content, strings in string_val), DecodeCompressed (zlib or gzip
// inflate of each string), DecodePaddedRaw (each
// string's first fixed_length bytes as numbers, zero-padded) and
// DecodeJSONExample (protobuf's JSON to binary, through the descriptor of
// proto/example.proto, as TensorFlow does with its own).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver.h"
#include "google/protobuf/util/type_resolver_util.h"
#include "graph/tensor.h"
#include "proto/example.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "zlib.h"

namespace dflow {
namespace {

class SerializeTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    OP_REQUIRES(ctx, t.dtype() != DT_VARIANT && t.dtype() != DT_RESOURCE,
                absl::UnimplementedError(absl::StrCat(
                    "SerializeTensor of a ", DataTypeName(t.dtype()),
                    " tensor is not supported")));
    TensorProto proto;
    t.ToProto(&proto, /*use_tensor_content=*/true);
    std::string bytes;
    OP_REQUIRES(ctx, proto.SerializeToString(&bytes),
                absl::InternalError("could not serialize the TensorProto"));
    ctx->set_output(0, Tensor::Scalar(std::move(bytes)));
  }
};

class ParseTensorOp : public OpKernel {
 public:
  explicit ParseTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Expected `serialized` to be a scalar, got shape: ",
                    serialized.shape().ToString())));
    const std::string& bytes = serialized.data<std::string>()[0];
    TensorProto proto;
    OP_REQUIRES(ctx, proto.ParseFromString(bytes),
                absl::InvalidArgumentError(absl::StrCat(
                    "Could not parse `serialized` as TensorProto (",
                    bytes.size(), " bytes)")));
    OP_REQUIRES(ctx, proto.dtype() == out_type_,
                absl::InvalidArgumentError(absl::StrCat(
                    "Type mismatch between parsed tensor (",
                    DataTypeName(proto.dtype()), ") and dtype (",
                    DataTypeName(out_type_), ")")));
    absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
    OP_REQUIRES_OK(ctx, t.status());
    ctx->set_output(0, *std::move(t));
  }

 private:
  DataType out_type_ = DT_INVALID;
};

class DecodeCompressedOp : public OpKernel {
 public:
  explicit DecodeCompressedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("compression_type", &compression_));
    OP_REQUIRES(ctx,
                compression_.empty() || compression_ == "ZLIB" ||
                    compression_ == "GZIP",
                absl::InvalidArgumentError(absl::StrCat(
                    "Only ZLIB, GZIP or NONE are supported compressions, "
                    "not '",
                    compression_, "'")));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& bytes = in.data<std::string>()[i];
      if (compression_.empty()) {
        out->data<std::string>()[i] = bytes;
        continue;
      }
      absl::StatusOr<std::string> inflated = Inflate(bytes);
      OP_REQUIRES(ctx, inflated.ok(),
                  absl::Status(inflated.status().code(),
                               absl::StrCat("element ", i, " is not ",
                                            compression_, " data: ",
                                            inflated.status().message())));
      out->data<std::string>()[i] = *std::move(inflated);
    }
  }

 private:
  // One zlib or gzip stream, whole: zlib's inflate directly, so output it
  // holds back when the input is used up is still drained.
  absl::StatusOr<std::string> Inflate(const std::string& bytes) const {
    z_stream z;
    std::memset(&z, 0, sizeof(z));
    // windowBits 15, +16 for the gzip wrapper.
    if (inflateInit2(&z, compression_ == "GZIP" ? 15 + 16 : 15) != Z_OK) {
      return absl::InternalError("cannot start zlib");
    }
    std::string out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    int code = Z_OK;
    while (code == Z_OK) {
      const size_t before = out.size();
      out.resize(before + std::max<size_t>(4096, 2 * bytes.size()));
      z.next_out = reinterpret_cast<Bytef*>(&out[before]);
      z.avail_out = static_cast<uInt>(out.size() - before);
      code = inflate(&z, Z_NO_FLUSH);
      out.resize(out.size() - z.avail_out);
      if (code == Z_BUF_ERROR && z.avail_in == 0) break;  // truncated
    }
    const std::string why = z.msg != nullptr ? z.msg : "";
    inflateEnd(&z);
    if (code == Z_STREAM_END) return out;
    if (code == Z_BUF_ERROR || code == Z_OK) {
      return absl::DataLossError("the compressed stream is truncated");
    }
    return absl::DataLossError(
        absl::StrCat("inflate failed with error ", code, ": ", why));
  }

  std::string compression_;
};

class DecodePaddedRawOp : public OpKernel {
 public:
  explicit DecodePaddedRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("little_endian", &little_endian_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& length = ctx->input(1);
    OP_REQUIRES(ctx, length.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "k must be scalar, got shape ", length.shape().ToString())));
    const int64_t fixed = length.data<int32_t>()[0];
    const int64_t width = static_cast<int64_t>(DataTypeSize(out_type_));
    OP_REQUIRES(ctx, fixed % width == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "fixed_length (", fixed,
                    ") must be a multiple of the size of out_type (", width,
                    ")")));
    OP_REQUIRES(ctx, fixed > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "fixed_length (", fixed, ") must be greater than zero.")));
    TensorShape shape = in.shape();
    shape.AddDim(fixed / width);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t i = 0; i < in.NumElements(); ++i, dst += fixed) {
      const std::string& s = in.data<std::string>()[i];
      const int64_t take = std::min<int64_t>(fixed, s.size());
      std::memcpy(dst, s.data(), take);
      std::memset(dst + take, 0, fixed - take);
      // The host is little-endian (x86-64): big-endian input is swapped.
      if (!little_endian_ && width > 1) {
        for (int64_t at = 0; at < fixed; at += width) {
          std::reverse(dst + at, dst + at + width);
        }
      }
    }
  }

 private:
  DataType out_type_ = DT_INVALID;
  bool little_endian_ = true;
};

class DecodeJsonExampleOp : public OpKernel {
 public:
  explicit DecodeJsonExampleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        resolver_(google::protobuf::util::NewTypeResolverForDescriptorPool(
            "type.googleapis.com",
            google::protobuf::DescriptorPool::generated_pool())),
        type_url_(absl::StrCat("type.googleapis.com/",
                               Example::descriptor()->full_name())) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      std::string binary;
      const auto s = google::protobuf::util::JsonToBinaryString(
          resolver_.get(), type_url_, in.data<std::string>()[i], &binary);
      OP_REQUIRES(ctx, s.ok(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "Error while parsing JSON of element ", i, ": ",
                      std::string(s.message()))));
      out->data<std::string>()[i] = std::move(binary);
    }
  }

 private:
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver_;
  const std::string type_url_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SerializeTensor").Device(kDeviceCpu),
                      SerializeTensorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParseTensor").Device(kDeviceCpu),
                      ParseTensorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeCompressed").Device(kDeviceCpu),
                      DecodeCompressedOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodePaddedRaw").Device(kDeviceCpu),
                      DecodePaddedRawOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeJSONExample").Device(kDeviceCpu),
                      DecodeJsonExampleOp);

}  // namespace
}  // namespace dflow
