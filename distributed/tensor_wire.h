// RecvTensor's response on the wire without the copies protobuf would make
// of a large tensor: the sender's bytes go to gRPC as a slice of the
// tensor's own memory (held until sent), and the receiver reads them from
// gRPC's buffers straight into the new tensor, one copy. The format is
// RecvTensorResponse's (proto/worker_service.proto), so any protobuf
// client reads it and any encoding of it decodes (what the fast path does
// not expect is parsed as a whole message).
#ifndef DFLOW_DISTRIBUTED_TENSOR_WIRE_H_
#define DFLOW_DISTRIBUTED_TENSOR_WIRE_H_

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "grpcpp/support/byte_buffer.h"

namespace dflow {

// `value` (ignored when `is_dead`) as a serialized RecvTensorResponse.
void EncodeRecvTensorResponse(const Tensor& value, bool is_dead,
                              grpc::ByteBuffer* out);

// The tensor (or deadness) of a serialized RecvTensorResponse. DataLoss for
// bytes that are not one, or a tensor that is not valid.
absl::Status DecodeRecvTensorResponse(grpc::ByteBuffer* buffer, Tensor* value,
                                      bool* is_dead);

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_TENSOR_WIRE_H_
