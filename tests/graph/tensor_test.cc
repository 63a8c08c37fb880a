#include "graph/tensor.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/variant.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Counts what it hands out, so tests can see buffers being freed.
class CountingAllocator : public Allocator {
 public:
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    last_alignment = alignment;
    outstanding_bytes += bytes;
    ++allocations;
    return DefaultCpuAllocator()->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* ptr, size_t bytes) override {
    outstanding_bytes -= bytes;
    DefaultCpuAllocator()->DeallocateRaw(ptr, bytes);
  }
  std::string Name() const override { return "counting"; }

  size_t last_alignment = 0;
  size_t outstanding_bytes = 0;
  int allocations = 0;
};

class FailingAllocator : public Allocator {
 public:
  void* AllocateRaw(size_t, size_t) override { return nullptr; }
  void DeallocateRaw(void*, size_t) override {}
  std::string Name() const override { return "empty"; }
};

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float FloatFromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(TensorTest, DefaultIsUninitialized) {
  Tensor t;
  EXPECT_EQ(t.dtype(), DT_INVALID);
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_EQ(t.NumElements(), 0);
  EXPECT_EQ(t.raw_data(), nullptr);
  EXPECT_EQ(t.RefCount(), 0);
  EXPECT_THAT(t.DebugString(), HasSubstr("uninitialized"));
}

TEST(TensorTest, AllocationsAreAligned) {
  std::vector<Tensor> keep;  // keep them alive so addresses differ
  for (int64_t n : {1, 3, 17, 1000}) {
    for (DataType dtype : {DT_FLOAT, DT_INT8, DT_DOUBLE, DT_STRING, DT_HALF}) {
      Tensor t(dtype, TensorShape({n}));
      ASSERT_TRUE(t.IsInitialized());
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
      EXPECT_TRUE(t.IsAligned());
      keep.push_back(t);
    }
  }
  CountingAllocator counting;
  Tensor t(&counting, DT_FLOAT, TensorShape({5}));
  EXPECT_EQ(counting.last_alignment, kTensorAlignment);
}

TEST(TensorTest, SizesAndShape) {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  EXPECT_EQ(t.shape(), TensorShape({2, 3}));
  EXPECT_EQ(t.NumElements(), 6);
  EXPECT_EQ(t.TotalBytes(), 24u);
  EXPECT_EQ(t.flat<float>().size(), 6u);
}

TEST(TensorTest, ZeroElements) {
  Tensor t(DT_FLOAT, TensorShape({0, 4}));
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.NumElements(), 0);
  EXPECT_TRUE(t.flat<float>().empty());
  EXPECT_TRUE(t.Slice(0, 0).IsInitialized());
}

TEST(TensorTest, CopiesShareTheBufferAndFreeItOnce) {
  CountingAllocator counting;
  {
    Tensor a(&counting, DT_INT32, TensorShape({4}));
    EXPECT_EQ(a.RefCount(), 1);
    EXPECT_EQ(counting.outstanding_bytes, 16u);
    Tensor b = a;
    EXPECT_EQ(a.RefCount(), 2);
    EXPECT_TRUE(a.SharesBufferWith(b));
    EXPECT_EQ(a.raw_data(), b.raw_data());
    b.flat<int32_t>()[2] = 42;
    EXPECT_EQ(a.flat<int32_t>()[2], 42);
    {
      Tensor c = a.Slice(1, 3);
      EXPECT_EQ(a.RefCount(), 3);
    }
    EXPECT_EQ(a.RefCount(), 2);
    Tensor other(&counting, DT_INT32, TensorShape({4}));
    EXPECT_FALSE(a.SharesBufferWith(other));
    EXPECT_FALSE(Tensor().SharesBufferWith(Tensor()));
  }
  EXPECT_EQ(counting.outstanding_bytes, 0u);
  EXPECT_EQ(counting.allocations, 2);
}

TEST(TensorTest, SliceSharesBufferAndReadsTheRightRows) {
  Tensor t = Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                                       TensorShape({4, 3}));
  Tensor rows = t.Slice(1, 3);
  EXPECT_TRUE(rows.SharesBufferWith(t));
  EXPECT_EQ(rows.shape(), TensorShape({2, 3}));
  EXPECT_THAT(rows.flat<float>(), ElementsAre(3, 4, 5, 6, 7, 8));
  rows.flat<float>()[0] = -1;
  EXPECT_EQ(t.flat<float>()[3], -1);  // a view, not a copy
  // A slice of a slice keeps counting from the original buffer.
  Tensor last = rows.Slice(1, 2);
  EXPECT_THAT(last.flat<float>(), ElementsAre(6, 7, 8));
  EXPECT_TRUE(last.SharesBufferWith(t));
  EXPECT_EQ(t.Slice(4, 4).NumElements(), 0);
}

TEST(TensorTest, SliceAlignment) {
  // Rows of 16 floats are 64 bytes, so every row starts aligned.
  Tensor wide(DT_FLOAT, TensorShape({4, 16}));
  EXPECT_TRUE(wide.Slice(1, 3).IsAligned());
  // Rows of 3 floats are 12 bytes: only rows 0, 16, 32, ... are aligned.
  Tensor narrow(DT_FLOAT, TensorShape({32, 3}));
  EXPECT_TRUE(narrow.Slice(0, 5).IsAligned());
  EXPECT_FALSE(narrow.Slice(1, 5).IsAligned());
  EXPECT_TRUE(narrow.Slice(16, 20).IsAligned());
}

TEST(TensorTest, SliceCheckedErrors) {
  Tensor t(DT_FLOAT, TensorShape({4, 2}));
  for (auto [begin, end] : std::vector<std::pair<int64_t, int64_t>>{
           {-1, 2}, {3, 2}, {0, 5}, {5, 5}}) {
    absl::StatusOr<Tensor> s = t.SliceChecked(begin, end);
    ASSERT_FALSE(s.ok()) << begin << ", " << end;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(s.status().message(), HasSubstr("[4,2]"));
  }
  EXPECT_FALSE(Tensor::Scalar(1.0f).SliceChecked(0, 1).ok());
  EXPECT_FALSE(Tensor().SliceChecked(0, 0).ok());
  EXPECT_TRUE(t.SliceChecked(0, 4).ok());
}

TEST(TensorTest, ScalarsAndVectors) {
  Tensor f = Tensor::Scalar(2.5f);
  EXPECT_EQ(f.dtype(), DT_FLOAT);
  EXPECT_EQ(f.shape(), TensorShape());
  EXPECT_EQ(*f.data<float>(), 2.5f);
  EXPECT_EQ(Tensor::Scalar<int64_t>(7).dtype(), DT_INT64);
  EXPECT_EQ(*Tensor::Scalar(true).data<bool>(), true);
  Tensor s = Tensor::Scalar("hello");
  EXPECT_EQ(s.dtype(), DT_STRING);
  EXPECT_EQ(*s.data<std::string>(), "hello");

  Tensor v = Tensor::FromVector<int32_t>({1, 2, 3});
  EXPECT_EQ(v.shape(), TensorShape({3}));
  EXPECT_THAT(v.flat<int32_t>(), ElementsAre(1, 2, 3));
  Tensor b = Tensor::FromVector<bool>({true, false}, TensorShape({2, 1}));
  EXPECT_THAT(b.flat<bool>(), ElementsAre(true, false));
}

TEST(TensorTest, FromVectorCheckedRejectsSizeMismatch) {
  absl::StatusOr<Tensor> t =
      Tensor::FromVectorChecked<float>({1, 2, 3, 4, 5}, TensorShape({2, 3}));
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("5 values"));
  EXPECT_THAT(t.status().message(), HasSubstr("[2,3]"));
  EXPECT_FALSE(Tensor::FromVectorChecked<float>({1}, TensorShape({-1})).ok());
}

TEST(TensorTest, AllocateValidates) {
  Allocator* cpu = DefaultCpuAllocator();
  absl::StatusOr<Tensor> partial =
      Tensor::Allocate(cpu, DT_FLOAT, TensorShape({2, -1}));
  ASSERT_FALSE(partial.ok());
  EXPECT_THAT(partial.status().message(), HasSubstr("[2,?]"));

  absl::StatusOr<Tensor> resource =
      Tensor::Allocate(cpu, DT_RESOURCE, TensorShape({1}));
  ASSERT_FALSE(resource.ok());
  EXPECT_THAT(resource.status().message(), HasSubstr("resource"));
  EXPECT_FALSE(Tensor::Allocate(cpu, DT_FLOAT_REF, TensorShape({1})).ok());
  EXPECT_FALSE(Tensor::Allocate(cpu, DT_INVALID, TensorShape({1})).ok());
  EXPECT_FALSE(Tensor::Allocate(nullptr, DT_FLOAT, TensorShape({1})).ok());

  const int64_t big = int64_t{1} << 62;
  absl::StatusOr<Tensor> huge =
      Tensor::Allocate(cpu, DT_DOUBLE, TensorShape({big}));
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("too many elements"));
  EXPECT_FALSE(Tensor::Allocate(cpu, DT_INT8, TensorShape({big, 8})).ok());

  FailingAllocator failing;
  absl::StatusOr<Tensor> failed =
      Tensor::Allocate(&failing, DT_FLOAT, TensorShape({10}));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(failed.status().message(), HasSubstr("'empty'"));
  EXPECT_THAT(failed.status().message(), HasSubstr("40 bytes"));
}

TEST(TensorTest, StringTensors) {
  CountingAllocator counting;
  {
    Tensor t(&counting, DT_STRING, TensorShape({3}));
    EXPECT_THAT(t.flat<std::string>(), ElementsAre("", "", ""));
    t.flat<std::string>()[1] = std::string(1000, 'x');  // heap-allocated
    t.flat<std::string>()[2] = "short";
    Tensor copy = t;
    EXPECT_EQ(copy.flat<std::string>()[2], "short");
    Tensor tail = t.Slice(1, 3);
    EXPECT_EQ(tail.flat<std::string>()[0].size(), 1000u);
    EXPECT_EQ(tail.flat<std::string>()[1], "short");
  }
  EXPECT_EQ(counting.outstanding_bytes, 0u);
}

TEST(TensorTest, DebugString) {
  Tensor t = Tensor::FromVector<float>({1, 2.5, 3, 4}, TensorShape({2, 2}));
  EXPECT_EQ(t.DebugString(),
            "Tensor<type: float shape: [2,2] values: 1 2.5 3 4>");
  EXPECT_EQ(t.DebugString(2),
            "Tensor<type: float shape: [2,2] values: 1 2.5 ...>");
  EXPECT_EQ(Tensor::FromVector<int8_t>({-3, 65}).DebugString(),
            "Tensor<type: int8 shape: [2] values: -3 65>");
  EXPECT_EQ(Tensor::Scalar("a\nb").DebugString(),
            "Tensor<type: string shape: [] values: \"a\\nb\">");
  EXPECT_EQ(Tensor::Scalar(float16::FromFloat(1.5f)).DebugString(),
            "Tensor<type: half shape: [] values: 1.5>");
}

// ---------------------------------------------------------------------------
// TensorProto conversion

// A value that exercises the type's corners: extremes, NaN payloads,
// arbitrary half bit patterns, strings with NULs and non-UTF-8 bytes.
template <typename T>
T SampleValue(int64_t i) {
  if constexpr (std::is_same_v<T, float>) {
    if (i == 0) return FloatFromBits(0x7fa00123);  // NaN with a payload
    if (i == 1) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(i) * 1.25f - 3.0f;
  } else if constexpr (std::is_same_v<T, double>) {
    if (i == 0) {
      const uint64_t bits = 0x7ff4000000000abcull;
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    return static_cast<double>(i) / 3.0;
  } else if constexpr (std::is_same_v<T, float16> ||
                       std::is_same_v<T, bfloat16>) {
    return T{static_cast<uint16_t>((i * 9973 + 0x7c01) & 0xffff)};
  } else if constexpr (std::is_same_v<T, bool>) {
    return i % 3 == 0;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return std::string("s\0\xff", 3) + std::to_string(i);
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    return T(static_cast<typename T::value_type>(i),
             -static_cast<typename T::value_type>(i) / 2);
  } else {
    if (i == 0) return std::numeric_limits<T>::min();
    if (i == 1) return std::numeric_limits<T>::max();
    return static_cast<T>(i * 37 - 50);
  }
}

Tensor MakeSample(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  VisitStorageType(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    absl::Span<T> values = t.flat<T>();
    for (size_t i = 0; i < values.size(); ++i) values[i] = SampleValue<T>(i);
  });
  return t;
}

// Bit-exact comparison (NaN payloads included).
void ExpectIdentical(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  if (a.dtype() == DT_STRING) {
    EXPECT_THAT(a.flat<std::string>(),
                ::testing::ElementsAreArray(b.flat<std::string>()));
    return;
  }
  ASSERT_EQ(a.TotalBytes(), b.TotalBytes());
  if (a.TotalBytes() == 0) return;  // raw_data() is null: nothing to compare
  EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()), 0)
      << a.DebugString() << " vs " << b.DebugString();
}

std::vector<DataType> SupportedTypes() {
  std::vector<DataType> types;
  for (int v = 1; v < kDataTypeRefOffset; ++v) {
    if (Tensor::IsSupportedDataType(static_cast<DataType>(v))) {
      types.push_back(static_cast<DataType>(v));
    }
  }
  return types;
}

TEST(TensorProtoTest, SupportsTheExpectedTypes) {
  EXPECT_EQ(SupportedTypes().size(), 24u);  // all but resource and int4s
  EXPECT_FALSE(Tensor::IsSupportedDataType(DT_INT4));
}

TEST(TensorProtoTest, RoundTripsEveryTypeInBothEncodings) {
  for (DataType dtype : SupportedTypes()) {
    if (dtype == DT_VARIANT) continue;  // VariantTensorsHoldSharedValues
    for (bool use_tensor_content : {true, false}) {
      SCOPED_TRACE(DataTypeName(dtype) +
                   (use_tensor_content ? " tensor_content" : " typed"));
      const Tensor original = MakeSample(dtype, TensorShape({2, 3}));
      TensorProto proto;
      original.ToProto(&proto, use_tensor_content);
      EXPECT_EQ(proto.dtype(), dtype);
      EXPECT_EQ(!proto.tensor_content().empty(),
                use_tensor_content && dtype != DT_STRING);
      // Through the wire format too, not only the in-memory message.
      TensorProto reparsed;
      ASSERT_TRUE(reparsed.ParseFromString(proto.SerializeAsString()));
      absl::StatusOr<Tensor> back = Tensor::FromProto(reparsed);
      ASSERT_TRUE(back.ok()) << back.status();
      ExpectIdentical(original, *back);
    }
  }
}

// A value behind a variant, counting its live copies.
struct CountedValue : public VariantValue {
  explicit CountedValue(int* live) : live(live) { ++*live; }
  ~CountedValue() override { --*live; }
  std::string TypeName() const override { return "CountedValue"; }
  std::string DebugString() const override { return "<counted>"; }
  int* live;
};

TEST(TensorProtoTest, VariantTensorsHoldSharedValues) {
  int live = 0;
  {
    Tensor t(DT_VARIANT, TensorShape({2}));
    ASSERT_TRUE(t.IsInitialized());
    EXPECT_TRUE(t.flat<Variant>()[0].empty());
    t.flat<Variant>()[1] = Variant(std::make_shared<CountedValue>(&live));
    EXPECT_EQ(live, 1);
    Tensor copy = t;  // shares the buffer, and so the value
    EXPECT_NE(copy.flat<Variant>()[1].get<CountedValue>(), nullptr);
    EXPECT_EQ(copy.flat<Variant>()[1].get<CountedValue>(),
              t.flat<Variant>()[1].get<CountedValue>());
    EXPECT_THAT(t.DebugString(), HasSubstr("<empty variant> <counted>"));
    // No proto encoding: dtype and shape only, and reading one back is an
    // error that says why.
    TensorProto proto;
    t.ToProto(&proto);
    EXPECT_EQ(proto.dtype(), DT_VARIANT);
    EXPECT_TRUE(proto.tensor_content().empty());
    absl::StatusOr<Tensor> back = Tensor::FromProto(proto);
    EXPECT_EQ(back.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(back.status().message(), HasSubstr("variant"));
  }
  EXPECT_EQ(live, 0);  // the buffer destroyed its variants
}

TEST(TensorProtoTest, ScalarAndEmptyRoundTrip) {
  for (const TensorShape& shape : {TensorShape(), TensorShape({0, 5})}) {
    for (bool use_tensor_content : {true, false}) {
      const Tensor original = MakeSample(DT_INT32, shape);
      TensorProto proto;
      original.ToProto(&proto, use_tensor_content);
      absl::StatusOr<Tensor> back = Tensor::FromProto(proto);
      ASSERT_TRUE(back.ok()) << back.status();
      ExpectIdentical(original, *back);
    }
  }
}

TensorProto MakeProto(DataType dtype, std::initializer_list<int64_t> dims) {
  TensorProto proto;
  proto.set_dtype(dtype);
  for (int64_t d : dims) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  return proto;
}

TEST(TensorProtoTest, FewerValuesRepeatTheLast) {
  TensorProto proto = MakeProto(DT_FLOAT, {2, 3});
  proto.add_float_val(1);
  proto.add_float_val(2);
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->flat<float>(), ElementsAre(1, 2, 2, 2, 2, 2));

  // The common case: one value fills a large Const.
  TensorProto weights = MakeProto(DT_FLOAT, {784, 500});
  weights.add_float_val(0.5f);
  absl::StatusOr<Tensor> w = Tensor::FromProto(weights);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->NumElements(), 784 * 500);
  for (float v : w->flat<float>()) ASSERT_EQ(v, 0.5f);

  TensorProto half = MakeProto(DT_HALF, {3});
  half.add_half_val(0x3c00);
  EXPECT_THAT(Tensor::FromProto(half)->DebugString(), HasSubstr("1 1 1"));

  TensorProto strings = MakeProto(DT_STRING, {3});
  strings.add_string_val("a");
  strings.add_string_val("b");
  EXPECT_THAT(Tensor::FromProto(strings)->flat<std::string>(),
              ElementsAre("a", "b", "b"));

  TensorProto complex = MakeProto(DT_COMPLEX64, {2});
  complex.add_scomplex_val(1);
  complex.add_scomplex_val(-1);
  EXPECT_THAT(Tensor::FromProto(complex)->flat<complex64>(),
              ElementsAre(complex64(1, -1), complex64(1, -1)));
}

TEST(TensorProtoTest, NoValuesMeanZeros) {
  absl::StatusOr<Tensor> ints = Tensor::FromProto(MakeProto(DT_INT32, {3}));
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_THAT(ints->flat<int32_t>(), ElementsAre(0, 0, 0));
  absl::StatusOr<Tensor> strings = Tensor::FromProto(MakeProto(DT_STRING, {2}));
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_THAT(strings->flat<std::string>(), ElementsAre("", ""));
  absl::StatusOr<Tensor> halves = Tensor::FromProto(MakeProto(DT_HALF, {2}));
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_EQ(halves->flat<float16>()[1].bits, 0);
}

// TensorFlow writes `tf.zeros([0], tf.string)` as a Const whose proto holds
// one string_val (the fill value) for zero elements, and runs it.
TEST(TensorProtoTest, EmptyTensorWithAFillValueLoads) {
  TensorProto strings = MakeProto(DT_STRING, {0});
  strings.add_string_val("");
  absl::StatusOr<Tensor> s = Tensor::FromProto(strings);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->NumElements(), 0);
  TensorProto floats = MakeProto(DT_FLOAT, {3, 0});
  floats.add_float_val(0.0f);
  absl::StatusOr<Tensor> f = Tensor::FromProto(floats);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->NumElements(), 0);
}

TEST(TensorProtoTest, MoreValuesThanElementsIsAnError) {
  TensorProto proto = MakeProto(DT_FLOAT, {2});
  for (float v : {1.0f, 2.0f, 3.0f}) proto.add_float_val(v);
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("3 values in float_val"));
  EXPECT_THAT(t.status().message(), HasSubstr("float tensor of shape [2]"));
}

TEST(TensorProtoTest, OutOfRangeTypedValuesAreErrors) {
  TensorProto int8 = MakeProto(DT_INT8, {2});
  int8.add_int_val(5);
  int8.add_int_val(300);
  absl::StatusOr<Tensor> t = Tensor::FromProto(int8);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("int_val[1] = 300"));

  TensorProto half = MakeProto(DT_HALF, {1});
  half.add_half_val(0x10000);
  EXPECT_FALSE(Tensor::FromProto(half).ok());

  TensorProto complex = MakeProto(DT_COMPLEX128, {1});
  complex.add_dcomplex_val(1);  // half a pair
  EXPECT_FALSE(Tensor::FromProto(complex).ok());
}

TEST(TensorProtoTest, TensorContentSizeMismatch) {
  TensorProto proto = MakeProto(DT_FLOAT, {2, 3});
  proto.set_tensor_content(std::string(20, '\0'));
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("20 bytes"));
  EXPECT_THAT(t.status().message(), HasSubstr("expected 24"));
  EXPECT_THAT(t.status().message(), HasSubstr("float tensor of shape [2,3]"));

  TensorProto strings = MakeProto(DT_STRING, {1});
  strings.set_tensor_content("abc");
  EXPECT_FALSE(Tensor::FromProto(strings).ok());
}

TEST(TensorProtoTest, TensorContentWinsOverTypedFields) {
  TensorProto proto = MakeProto(DT_FLOAT, {1});
  const float value = 7.0f;
  proto.set_tensor_content(
      std::string(reinterpret_cast<const char*>(&value), sizeof(value)));
  proto.add_float_val(1.0f);
  EXPECT_EQ(Tensor::FromProto(proto)->flat<float>()[0], 7.0f);
}

TEST(TensorProtoTest, PartialShapeIsAnError) {
  TensorProto proto = MakeProto(DT_FLOAT, {2, -1});
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("partial shape [2,?]"));
  EXPECT_THAT(t.status().message(), HasSubstr("float"));

  TensorProto unknown;
  unknown.set_dtype(DT_INT32);
  unknown.mutable_tensor_shape()->set_unknown_rank(true);
  EXPECT_FALSE(Tensor::FromProto(unknown).ok());
}

TEST(TensorProtoTest, NegativeDimIsAnError) {
  absl::StatusOr<Tensor> t = Tensor::FromProto(MakeProto(DT_FLOAT, {3, -5}));
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("dimension 1"));
  EXPECT_THAT(t.status().message(), HasSubstr("-5"));
}

TEST(TensorProtoTest, UnsupportedDtypeAndHugeShapeAreErrors) {
  EXPECT_FALSE(Tensor::FromProto(MakeProto(DT_RESOURCE, {1})).ok());
  EXPECT_FALSE(Tensor::FromProto(MakeProto(DT_INVALID, {1})).ok());
  const int64_t big = int64_t{1} << 40;
  absl::StatusOr<Tensor> t = Tensor::FromProto(MakeProto(DT_FLOAT, {big, big}));
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("too many elements"));
}

TEST(TensorProtoTest, TypedFloatKeepsNaNPayload) {
  const Tensor original =
      Tensor::FromVector<float>({FloatFromBits(0x7fc0beef)});
  TensorProto proto;
  original.ToProto(&proto, /*use_tensor_content=*/false);
  ASSERT_EQ(proto.float_val_size(), 1);
  absl::StatusOr<Tensor> back = Tensor::FromProto(proto);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(FloatBits(back->flat<float>()[0]), 0x7fc0beefu);
}

}  // namespace
}  // namespace dflow
