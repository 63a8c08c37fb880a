// RecvTensor's wire format (distributed/tensor_wire.h): what the fast
// encoder writes is a RecvTensorResponse protobuf reads, and the decoder
// reads protobuf's own encodings too; bad bytes are an error, not a crash.
#include "distributed/tensor_wire.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proto/worker_service.pb.h"

namespace dflow {
namespace {

grpc::ByteBuffer BufferOf(const std::string& bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

std::string BytesOf(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

Tensor Floats(int n) {
  Tensor t(DT_FLOAT, TensorShape({n / 2, 2}));
  for (int i = 0; i < n; ++i) t.data<float>()[i] = i * 0.25f - 3;
  return t;
}

TEST(TensorWireTest, FastEncodingIsAResponseProtobufReads) {
  const Tensor value = Floats(1 << 16);
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(value, false, &buffer);
  RecvTensorResponse response;
  ASSERT_TRUE(response.ParseFromString(BytesOf(buffer)));
  absl::StatusOr<Tensor> parsed = Tensor::FromProto(response.tensor());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->shape(), value.shape());
  EXPECT_EQ(
      0, std::memcmp(parsed->raw_data(), value.raw_data(), value.TotalBytes()));
}

TEST(TensorWireTest, RoundTripsEveryKindOfValue) {
  Tensor strings(DT_STRING, TensorShape({2}));
  strings.data<std::string>()[0] = "ab";
  strings.data<std::string>()[1] = "";
  for (const Tensor& value : {Floats(6), Tensor::Scalar<int64_t>(-7), strings,
                              Tensor(DT_FLOAT, TensorShape({0, 3}))}) {
    grpc::ByteBuffer buffer;
    EncodeRecvTensorResponse(value, false, &buffer);
    Tensor got;
    bool dead = true;
    ASSERT_TRUE(DecodeRecvTensorResponse(&buffer, &got, &dead).ok());
    EXPECT_FALSE(dead);
    ASSERT_EQ(got.dtype(), value.dtype());
    ASSERT_EQ(got.shape(), value.shape());
    TensorProto a, b;
    got.ToProto(&a);
    value.ToProto(&b);
    EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  }
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(Tensor(), true, &buffer);
  Tensor got;
  bool dead = false;
  ASSERT_TRUE(DecodeRecvTensorResponse(&buffer, &got, &dead).ok());
  EXPECT_TRUE(dead);
}

TEST(TensorWireTest, DecodesProtobufsOwnEncodings) {
  RecvTensorResponse response;
  Floats(8).ToProto(response.mutable_tensor(), /*use_tensor_content=*/false);
  grpc::ByteBuffer buffer = BufferOf(response.SerializeAsString());
  Tensor got;
  bool dead = true;
  ASSERT_TRUE(DecodeRecvTensorResponse(&buffer, &got, &dead).ok());
  EXPECT_EQ(got.data<float>()[7], Floats(8).data<float>()[7]);
}

TEST(TensorWireTest, BadBytesAreAnError) {
  const Tensor value = Floats(64);
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(value, false, &buffer);
  const std::string good = BytesOf(buffer);
  // Cut short at every length, and one byte flipped at every position.
  for (size_t n = 1; n < good.size(); n += 7) {
    grpc::ByteBuffer cut = BufferOf(good.substr(0, n));
    Tensor got;
    bool dead = false;
    (void)DecodeRecvTensorResponse(&cut, &got, &dead);  // no crash
  }
  for (size_t i = 0; i < good.size(); i += 5) {
    std::string bad = good;
    bad[i] ^= 0x5a;
    grpc::ByteBuffer flipped = BufferOf(bad);
    Tensor got;
    bool dead = false;
    absl::Status s = DecodeRecvTensorResponse(&flipped, &got, &dead);
    if (s.ok() && !dead) {
      EXPECT_TRUE(got.dtype() == DT_INVALID || got.NumElements() >= 0);
    }
  }
  grpc::ByteBuffer garbage = BufferOf("\x0a\xff\xff\xff\xff\x0f");
  Tensor got;
  bool dead = false;
  EXPECT_FALSE(DecodeRecvTensorResponse(&garbage, &got, &dead).ok());
}

}  // namespace
}  // namespace dflow
