#include "distributed/tensor_wire.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "graph/types.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/slice.h"
#include "proto/worker_service.pb.h"

namespace dflow {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

// Field numbers: RecvTensorResponse.tensor, .is_dead; TensorProto.dtype,
// .tensor_shape, .tensor_content.
constexpr int kResponseTensor = 1;
constexpr int kResponseIsDead = 2;
constexpr int kTensorDtype = 1;
constexpr int kTensorShape = 2;
constexpr int kTensorContent = 4;

void AppendVarint(uint64_t v, std::string* out) {
  uint8_t bytes[10];
  uint8_t* end = CodedOutputStream::WriteVarint64ToArray(v, bytes);
  out->append(reinterpret_cast<char*>(bytes), end - bytes);
}

void AppendTag(int field, WireFormatLite::WireType type, std::string* out) {
  AppendVarint(WireFormatLite::MakeTag(field, type), out);
}

void ReleaseTensor(void* tensor) { delete static_cast<Tensor*>(tensor); }

// Whether the tensor's bytes are its elements (what tensor_content holds).
bool HasPlainBytes(const Tensor& t) {
  return t.IsInitialized() && t.dtype() != DT_STRING &&
         t.dtype() != DT_VARIANT && t.TotalBytes() > 0;
}

absl::Status SlowDecode(grpc::ByteBuffer* buffer, Tensor* value,
                        bool* is_dead) {
  RecvTensorResponse response;
  if (!grpc::SerializationTraits<RecvTensorResponse>::Deserialize(buffer,
                                                                  &response)
           .ok()) {
    return absl::DataLossError("a RecvTensor response that does not parse");
  }
  *is_dead = response.is_dead();
  if (*is_dead) return absl::OkStatus();
  absl::StatusOr<Tensor> t = Tensor::FromProto(response.tensor());
  if (!t.ok()) return absl::DataLossError(t.status().message());
  *value = *std::move(t);
  return absl::OkStatus();
}

}  // namespace

void EncodeRecvTensorResponse(const Tensor& value, bool is_dead,
                              grpc::ByteBuffer* out) {
  if (is_dead || !HasPlainBytes(value)) {
    RecvTensorResponse response;
    response.set_is_dead(is_dead);
    if (!is_dead) value.ToProto(response.mutable_tensor());
    bool own = false;
    (void)grpc::SerializationTraits<RecvTensorResponse>::Serialize(response,
                                                                   out, &own);
    return;
  }
  // The TensorProto without its content, then the content's tag and length;
  // the content itself is the tensor's memory.
  TensorProto head;
  head.set_dtype(value.dtype());
  value.shape().ToProto(head.mutable_tensor_shape());
  const std::string head_bytes = head.SerializeAsString();
  const uint64_t content = value.TotalBytes();
  std::string content_tag;
  AppendTag(kTensorContent, WireFormatLite::WIRETYPE_LENGTH_DELIMITED,
            &content_tag);
  AppendVarint(content, &content_tag);
  std::string prefix;
  AppendTag(kResponseTensor, WireFormatLite::WIRETYPE_LENGTH_DELIMITED,
            &prefix);
  AppendVarint(head_bytes.size() + content_tag.size() + content, &prefix);
  prefix += head_bytes;
  prefix += content_tag;
  auto* held = new Tensor(value);  // released by gRPC once sent
  grpc::Slice slices[2] = {grpc::Slice(prefix.data(), prefix.size()),
                           grpc::Slice(const_cast<void*>(held->raw_data()),
                                       content, &ReleaseTensor, held)};
  *out = grpc::ByteBuffer(slices, 2);
}

absl::Status DecodeRecvTensorResponse(grpc::ByteBuffer* buffer, Tensor* value,
                                      bool* is_dead) {
  *is_dead = false;
  grpc::ProtoBufferReader reader(buffer);
  if (!reader.status().ok()) return SlowDecode(buffer, value, is_dead);
  CodedInputStream in(&reader);
  in.SetTotalBytesLimit(INT32_MAX);
  bool decoded = false;
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    const auto type = WireFormatLite::GetTagWireType(tag);
    if (field == kResponseIsDead && type == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t dead = 0;
      if (!in.ReadVarint64(&dead)) break;
      *is_dead = dead != 0;
      continue;
    }
    if (field != kResponseTensor ||
        type != WireFormatLite::WIRETYPE_LENGTH_DELIMITED || decoded) {
      return SlowDecode(buffer, value, is_dead);
    }
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) break;
    const CodedInputStream::Limit limit = in.PushLimit(length);
    int dtype = DT_INVALID;
    TensorShapeProto shape;
    bool have_content = false;
    while (true) {
      const uint32_t t = in.ReadTag();
      if (t == 0) break;
      const int f = WireFormatLite::GetTagFieldNumber(t);
      const auto wt = WireFormatLite::GetTagWireType(t);
      if (f == kTensorDtype && wt == WireFormatLite::WIRETYPE_VARINT) {
        uint32_t d = 0;
        if (!in.ReadVarint32(&d)) return SlowDecode(buffer, value, is_dead);
        dtype = static_cast<int>(d);
      } else if (f == kTensorShape &&
                 wt == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
        uint32_t n = 0;
        if (!in.ReadVarint32(&n)) return SlowDecode(buffer, value, is_dead);
        const CodedInputStream::Limit inner = in.PushLimit(n);
        if (!shape.ParseFromCodedStream(&in)) {
          return SlowDecode(buffer, value, is_dead);
        }
        in.PopLimit(inner);
      } else if (f == kTensorContent &&
                 wt == WireFormatLite::WIRETYPE_LENGTH_DELIMITED &&
                 !have_content && DataType_IsValid(dtype)) {
        uint32_t n = 0;
        if (!in.ReadVarint32(&n)) return SlowDecode(buffer, value, is_dead);
        absl::StatusOr<TensorShape> s = TensorShape::FromProto(shape);
        if (!s.ok()) return absl::DataLossError(s.status().message());
        // Checked before allocating: a shape that does not match the bytes
        // that follow must not size an allocation.
        const int element = DataTypeSize(static_cast<DataType>(dtype));
        if (element <= 0 || !s->IsFullyDefined() ||
            s->num_elements() != static_cast<int64_t>(n / element) ||
            n % element != 0) {
          return SlowDecode(buffer, value, is_dead);
        }
        absl::StatusOr<Tensor> t = Tensor::Allocate(
            DefaultCpuAllocator(), static_cast<DataType>(dtype), *s);
        if (!t.ok()) return t.status();
        if (!HasPlainBytes(*t) || t->TotalBytes() != n) {
          return SlowDecode(buffer, value, is_dead);
        }
        if (!in.ReadRaw(t->raw_data(), static_cast<int>(n))) {
          return absl::DataLossError("a RecvTensor response cut short");
        }
        *value = *std::move(t);
        have_content = true;
      } else {
        // float_val and the like, or fields in another order: the whole
        // message, parsed as protobuf would.
        return SlowDecode(buffer, value, is_dead);
      }
    }
    in.PopLimit(limit);
    if (!have_content) return SlowDecode(buffer, value, is_dead);
    decoded = true;
  }
  if (!in.ConsumedEntireMessage() && !decoded) {
    return SlowDecode(buffer, value, is_dead);
  }
  if (!decoded && !*is_dead) return SlowDecode(buffer, value, is_dead);
  return absl::OkStatus();
}

}  // namespace dflow
