// .npy reading and writing: files written by NumPy itself
// (tests/testdata/npy/make_npy.py), round trips of every dtype and shape
// kind, headers spelled every way Python allows, and each kind of broken
// file.
#include "graph/npy.h"

#include <dirent.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kTestdata[] = "tests/testdata/npy/";

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

std::string TempPath(const std::string& name) { return TempDir() + "/" + name; }

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

Tensor ReadTestdata(const std::string& name) {
  absl::StatusOr<Tensor> t = ReadNpyFile(kTestdata + name);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  absl::Span<const T> flat = t.flat<T>();
  return std::vector<T>(flat.begin(), flat.end());
}

// A .npy file with the given header dict text, padded as NumPy pads it.
std::string MakeNpy(const std::string& dict, const std::string& data,
                    int major_version = 1) {
  std::string header = dict;
  const size_t length_bytes = major_version == 1 ? 2 : 4;
  while ((10 + (length_bytes - 2) + header.size() + 1) % 64 != 0) {
    header.push_back(' ');
  }
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major_version));
  out.push_back('\0');
  for (size_t i = 0; i < length_bytes; ++i) {
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  return out + header + data;
}

std::string FloatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char*>(values.data()),
                     values.size() * sizeof(float));
}

// Reads `bytes` both from a file and from memory; the two must agree.
absl::StatusOr<Tensor> ReadBoth(const std::string& bytes,
                                const std::string& name) {
  const std::string path = TempPath(name);
  WriteBytes(path, bytes);
  absl::StatusOr<Tensor> from_file = ReadNpyFile(path);
  absl::StatusOr<Tensor> from_memory = ParseNpy(bytes, path);
  EXPECT_EQ(from_file.status(), from_memory.status()) << name;
  if (from_file.ok() && from_memory.ok()) {
    EXPECT_EQ(from_file->DebugString(100), from_memory->DebugString(100));
  }
  return from_file;
}

// ---------------------------------------------------------------------------
// Files written by NumPy

TEST(NpyNumpyFilesTest, Floats) {
  Tensor f32 = ReadTestdata("float32.npy");
  EXPECT_EQ(f32.dtype(), DT_FLOAT);
  EXPECT_EQ(f32.shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<float>(f32),
            (std::vector<float>{0.0f, 1.5f, -2.25f, 1e-3f,
                                std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::infinity()}));

  Tensor f64 = ReadTestdata("float64.npy");
  EXPECT_EQ(f64.dtype(), DT_DOUBLE);
  EXPECT_EQ(f64.shape(), TensorShape({3}));
  EXPECT_EQ(Values<double>(f64), (std::vector<double>{M_PI, -0.0, 1e300}));
  EXPECT_TRUE(std::signbit(f64.flat<double>()[1]));

  Tensor f16 = ReadTestdata("float16.npy");
  EXPECT_EQ(f16.dtype(), DT_HALF);
  EXPECT_EQ(f16.shape(), TensorShape({4}));
  std::vector<float> halves;
  for (float16 h : f16.flat<float16>()) halves.push_back(h.ToFloat());
  EXPECT_EQ(halves, (std::vector<float>{0.5f, -2.0f, 65504.0f, 1.0f / 1024}));
}

template <typename T>
void ExpectSignedFile(const std::string& name, DataType dtype) {
  Tensor t = ReadTestdata(name);
  EXPECT_EQ(t.dtype(), dtype) << name;
  EXPECT_EQ(t.shape(), TensorShape({2, 2})) << name;
  EXPECT_EQ(Values<T>(t), (std::vector<T>{std::numeric_limits<T>::min(), -1, 0,
                                          std::numeric_limits<T>::max()}))
      << name;
}

template <typename T>
void ExpectUnsignedFile(const std::string& name, DataType dtype) {
  Tensor t = ReadTestdata(name);
  EXPECT_EQ(t.dtype(), dtype) << name;
  EXPECT_EQ(t.shape(), TensorShape({3})) << name;
  EXPECT_EQ(Values<T>(t), (std::vector<T>{0, 1, std::numeric_limits<T>::max()}))
      << name;
}

TEST(NpyNumpyFilesTest, Integers) {
  ExpectSignedFile<int8_t>("int8.npy", DT_INT8);
  ExpectSignedFile<int16_t>("int16.npy", DT_INT16);
  ExpectSignedFile<int32_t>("int32.npy", DT_INT32);
  ExpectSignedFile<int64_t>("int64.npy", DT_INT64);
  ExpectUnsignedFile<uint8_t>("uint8.npy", DT_UINT8);
  ExpectUnsignedFile<uint16_t>("uint16.npy", DT_UINT16);
  ExpectUnsignedFile<uint32_t>("uint32.npy", DT_UINT32);
  ExpectUnsignedFile<uint64_t>("uint64.npy", DT_UINT64);
}

TEST(NpyNumpyFilesTest, BoolAndComplex) {
  Tensor b = ReadTestdata("bool.npy");
  EXPECT_EQ(b.dtype(), DT_BOOL);
  EXPECT_EQ(b.shape(), TensorShape({2, 2}));
  EXPECT_EQ(Values<bool>(b), (std::vector<bool>{true, false, false, true}));

  Tensor c64 = ReadTestdata("complex64.npy");
  EXPECT_EQ(c64.dtype(), DT_COMPLEX64);
  EXPECT_EQ(Values<complex64>(c64),
            (std::vector<complex64>{{1, 2}, {-3.5f, -0.25f}}));
  Tensor c128 = ReadTestdata("complex128.npy");
  EXPECT_EQ(c128.dtype(), DT_COMPLEX128);
  EXPECT_EQ(Values<complex128>(c128),
            (std::vector<complex128>{{1, 2}, {-3.5, -0.25}}));
}

TEST(NpyNumpyFilesTest, ScalarEmptyAndRank3) {
  Tensor scalar = ReadTestdata("scalar_float64.npy");
  EXPECT_EQ(scalar.dtype(), DT_DOUBLE);
  EXPECT_EQ(scalar.shape(), TensorShape());
  EXPECT_EQ(Values<double>(scalar), std::vector<double>{2.5});

  Tensor empty = ReadTestdata("empty_float32.npy");
  EXPECT_EQ(empty.dtype(), DT_FLOAT);
  EXPECT_EQ(empty.shape(), TensorShape({0, 3}));
  EXPECT_EQ(empty.NumElements(), 0);

  Tensor rank3 = ReadTestdata("rank3_int32.npy");
  EXPECT_EQ(rank3.shape(), TensorShape({2, 3, 4}));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(rank3.flat<int32_t>()[i], i);
}

TEST(NpyNumpyFilesTest, Versions2And3) {
  const std::string v2 = ReadBytes(absl::StrCat(kTestdata, "v2_int32.npy"));
  absl::StatusOr<NpyHeader> h2 = ParseNpyHeader(v2, "v2");
  ASSERT_TRUE(h2.ok()) << h2.status();
  EXPECT_EQ(h2->major_version, 2);
  EXPECT_EQ(h2->data_offset % 64, 0u);
  Tensor t2 = ReadTestdata("v2_int32.npy");
  EXPECT_EQ(t2.shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<int32_t>(t2), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));

  const std::string v3 = ReadBytes(absl::StrCat(kTestdata, "v3_float32.npy"));
  absl::StatusOr<NpyHeader> h3 = ParseNpyHeader(v3, "v3");
  ASSERT_TRUE(h3.ok()) << h3.status();
  EXPECT_EQ(h3->major_version, 3);
  EXPECT_EQ(Values<float>(ReadTestdata("v3_float32.npy")),
            (std::vector<float>{1, 2, 3}));
}

// dflow writes exactly what numpy.save writes, padding included.
TEST(NpyNumpyFilesTest, WritesTheSameBytesAsNumpy) {
  for (const char* name :
       {"float32.npy", "float64.npy", "float16.npy", "int8.npy", "int16.npy",
        "int32.npy", "int64.npy", "uint8.npy", "uint16.npy", "uint32.npy",
        "uint64.npy", "bool.npy", "complex64.npy", "complex128.npy",
        "scalar_float64.npy", "empty_float32.npy", "rank3_int32.npy"}) {
    const std::string numpy_bytes = ReadBytes(absl::StrCat(kTestdata, name));
    absl::StatusOr<Tensor> t = ParseNpy(numpy_bytes, name);
    ASSERT_TRUE(t.ok()) << t.status();
    absl::StatusOr<std::string> ours = SerializeNpy(*t);
    ASSERT_TRUE(ours.ok()) << ours.status();
    EXPECT_EQ(*ours, numpy_bytes) << name;
  }
}

// Strings as `dflow run --feed` takes them from np.save of a bytes or str
// array, and back (NumPy writes bytes.npy's '|S3' as dflow does).
TEST(NpyNumpyFilesTest, FixedWidthStrings) {
  Tensor bytes = ReadTestdata("bytes.npy");
  ASSERT_EQ(bytes.dtype(), DT_STRING);
  EXPECT_EQ(bytes.shape(), TensorShape({2, 2}));
  EXPECT_EQ(Values<std::string>(bytes),
            (std::vector<std::string>{"a", "", "xyz", std::string("q\0r", 3)}));
  Tensor unicode = ReadTestdata("unicode.npy");
  EXPECT_EQ(Values<std::string>(unicode),
            (std::vector<std::string>{"ab", "c\xc3\xa9",
                                      "\xe2\x82\xac\xf0\x9d\x84\x9e"}));
  absl::StatusOr<std::string> ours = SerializeNpy(bytes);
  ASSERT_TRUE(ours.ok()) << ours.status();
  EXPECT_EQ(*ours, ReadBytes(absl::StrCat(kTestdata, "bytes.npy")));
  // Written and read back: the UTF-8 bytes as they were.
  absl::StatusOr<Tensor> back = ReadBoth(*SerializeNpy(unicode), "utf8.npy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Values<std::string>(*back), Values<std::string>(unicode));
  // A trailing NUL would not survive NumPy's reading: refused.
  absl::StatusOr<std::string> nul =
      SerializeNpy(Tensor::FromVector<std::string>({std::string("a\0", 2)}));
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(std::string(nul.status().message()),
              HasSubstr("element 0 ends in a NUL byte"));
}

TEST(NpyNumpyFilesTest, RefusesWhatDflowCannotHold) {
  struct Case {
    const char* file;
    const char* problem;
  };
  for (const Case& c : std::vector<Case>{
           {"big_endian.npy", "big-endian data (descr '>f4')"},
           {"fortran_order.npy", "Fortran (column-major) order"},
           {"big_endian_unicode.npy",
            "big-endian unicode strings (descr '>U3')"},
           {"object.npy", "Python objects (descr '|O')"},
           {"structured.npy", "structured dtype"},
       }) {
    const std::string path = absl::StrCat(kTestdata, c.file);
    absl::StatusOr<Tensor> t = ReadNpyFile(path);
    ASSERT_FALSE(t.ok()) << c.file;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(path));
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(c.problem));
  }
}

// ---------------------------------------------------------------------------
// Round trips

// A tensor of `dtype` and `shape` whose bytes follow a pattern (bools 0/1).
Tensor Patterned(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  const size_t n = t.NumElements() > 0 ? t.TotalBytes() : 0;
  for (size_t i = 0; i < n; ++i) {
    bytes[i] = dtype == DT_BOOL
                   ? i % 3 == 0
                   : static_cast<unsigned char>((i * 37 + 11) & 0xff);
  }
  return t;
}

std::string Bytes(const Tensor& t) {
  if (t.NumElements() == 0) return "";
  return std::string(static_cast<const char*>(t.raw_data()), t.TotalBytes());
}

TEST(NpyRoundTripTest, EveryDtypeAndShapeKind) {
  const std::vector<DataType> dtypes = {
      DT_BOOL,  DT_INT8,   DT_INT16,     DT_INT32,     DT_INT64,
      DT_UINT8, DT_UINT16, DT_UINT32,    DT_UINT64,    DT_HALF,
      DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128};
  const std::vector<TensorShape> shapes = {
      TensorShape(), TensorShape({0}), TensorShape({2, 0, 3}), TensorShape({7}),
      TensorShape({2, 3, 5})};
  int file = 0;
  for (DataType dtype : dtypes) {
    for (const TensorShape& shape : shapes) {
      const Tensor t = Patterned(dtype, shape);
      const std::string path = TempPath(absl::StrCat("rt_", file++, ".npy"));
      ASSERT_TRUE(WriteNpyFile(path, t).ok()) << DataTypeName(dtype) << shape;
      absl::StatusOr<Tensor> back = ReadNpyFile(path);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->dtype(), dtype);
      EXPECT_EQ(back->shape(), shape);
      EXPECT_EQ(Bytes(*back), Bytes(t)) << DataTypeName(dtype) << shape;
      // Version 1.0, data aligned to 64 bytes as NumPy does.
      absl::StatusOr<NpyHeader> header = ParseNpyHeader(ReadBytes(path), path);
      ASSERT_TRUE(header.ok());
      EXPECT_EQ(header->major_version, 1);
      EXPECT_EQ(header->data_offset % 64, 0u);
    }
  }
}

TEST(NpyRoundTripTest, HugeHeaderUsesVersion2) {
  // 30000 dimensions of size 1 need a header over 64 KB.
  std::vector<int64_t> dims(30000, 1);
  Tensor t = Tensor::FromVector<float>({42.0f},
                                       TensorShape(absl::MakeConstSpan(dims)));
  absl::StatusOr<std::string> bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<NpyHeader> header = ParseNpyHeader(*bytes, "big");
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->major_version, 2);
  EXPECT_GT(header->data_offset, 65535u);
  EXPECT_EQ(header->data_offset % 64, 0u);
  absl::StatusOr<Tensor> back = ReadBoth(*bytes, "huge_header.npy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape().rank(), 30000);
  EXPECT_EQ(back->flat<float>()[0], 42.0f);
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  return names;
}

TEST(NpyRoundTripTest, WritesAtomicallyAndReplaces) {
  const std::string dir = TempPath("atomic");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  const std::string path = dir + "/x.npy";
  ASSERT_TRUE(WriteNpyFile(path, Tensor::FromVector<int32_t>({1, 2})).ok());
  ASSERT_TRUE(WriteNpyFile(path, Tensor::FromVector<float>({3, 4, 5})).ok());
  // Only the final file: no temporary left behind.
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"x.npy"});
  absl::StatusOr<Tensor> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(Values<float>(*back), (std::vector<float>{3, 4, 5}));

  absl::Status s = WriteNpyFile(dir + "/missing/y.npy", *back);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("missing/y.npy"));
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"x.npy"});
}

TEST(NpyRoundTripTest, TypesNumpyLacksAreErrors) {
  absl::Status s =
      WriteNpyFile(TempPath("bf16.npy"), Tensor(DT_BFLOAT16, TensorShape({2})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("bfloat16"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("bf16.npy"));
  EXPECT_FALSE(SerializeNpy(Tensor(DT_RESOURCE, TensorShape({1}))).ok());
  EXPECT_FALSE(ReadNpyFile(TempPath("bf16.npy")).ok());  // nothing written
}

TEST(NpyTest, NumpyTypeNames) {
  EXPECT_EQ(NumpyTypeName(DT_FLOAT), "float32");
  EXPECT_EQ(NumpyTypeName(DT_DOUBLE), "float64");
  EXPECT_EQ(NumpyTypeName(DT_HALF), "float16");
  EXPECT_EQ(NumpyTypeName(DT_INT64), "int64");
  EXPECT_EQ(NumpyTypeName(DT_BOOL), "bool");
  EXPECT_THAT(NumpyTypeName(DT_BFLOAT16), HasSubstr("no NumPy equivalent"));
}

// ---------------------------------------------------------------------------
// Header spellings Python accepts

TEST(NpyHeaderTest, AcceptsAnyPythonSpelling) {
  const std::string data = FloatBytes({1, 2, 3, 4, 5, 6});
  for (const char* dict : {
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
           "{'descr':'<f4','fortran_order':False,'shape':(2,3)}",
           "{ 'shape' : ( 2 , 3 , ) , 'fortran_order' : False ,"
           " 'descr' : '<f4' , }",
           "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}",
           "{'descr': '<f4',\n 'fortran_order': False,\t'shape': (2, 3),\n}",
           "{'descr': '=f4', 'fortran_order': False, 'shape': (2L, 3L), }",
       }) {
    absl::StatusOr<Tensor> t = ParseNpy(MakeNpy(dict, data), "spelling");
    ASSERT_TRUE(t.ok()) << dict << ": " << t.status();
    EXPECT_EQ(t->shape(), TensorShape({2, 3})) << dict;
    EXPECT_EQ(Values<float>(*t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
  // Python 2's longs are only filtered for format versions before 3.0.
  EXPECT_FALSE(ParseNpy(MakeNpy("{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (2L, 3L), }",
                                data, 3),
                        "v3")
                   .ok());
  absl::StatusOr<Tensor> scalar = ParseNpy(
      MakeNpy("{'descr': '|u1', 'fortran_order': False, 'shape': ()}", "\x07"),
      "scalar");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape(), TensorShape());
  EXPECT_EQ(scalar->flat<uint8_t>()[0], 7);
}

// ---------------------------------------------------------------------------
// Broken files: each is an error naming the file and the problem.

struct BadCase {
  const char* name;
  std::string bytes;
  const char* problem;
};

TEST(NpyMalformedTest, EachProblemIsNamed) {
  const std::string good_dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string good = MakeNpy(good_dict, FloatBytes({1, 2}));
  std::string absurd_v2 = MakeNpy(good_dict, FloatBytes({1, 2}), 2);
  absurd_v2[8] = absurd_v2[9] = absurd_v2[10] = absurd_v2[11] = '\xff';
  std::string absurd_v1 = good;
  absurd_v1[8] = absurd_v1[9] = '\xff';  // 65535 bytes, in a 136-byte file
  std::string version4 = good;
  version4[6] = 4;
  auto with = [](const std::string& dict, const std::string& data = "") {
    return MakeNpy(dict, data);
  };
  const std::vector<BadCase> cases = {
      {"empty.npy", "", "truncated: only 0 bytes"},
      {"magic_prefix.npy", "\x93NUM", "truncated: only 4 bytes"},
      {"bad_magic.npy", "hello world, this is not numpy",
       "not a .npy file: it does not start with the magic string"},
      {"zip.npy", std::string("PK\x03\x04rest of a zip", 18),
       "perhaps an .npz"},
      {"short_preamble.npy", good.substr(0, 9),
       "shorter than the .npy preamble"},
      {"version4.npy", version4, "format version 4.0 is not one dflow reads"},
      {"truncated_header.npy", good.substr(0, 40),
       "truncated header: it is 118 bytes but only 30 follow the preamble"},
      {"absurd_header_v2.npy", absurd_v2,
       "the header claims to be 4294967295 bytes, over the 1048576-byte limit"},
      {"absurd_header_v1.npy", absurd_v1,
       "truncated header: it is 65535 bytes"},
      {"truncated_data.npy", good.substr(0, good.size() - 3),
       "truncated data: shape [2] of float32 needs 8 bytes but only 5 follow"},
      {"extra_data.npy", good + "xyz",
       "needs 8 bytes but 11 follow the header (3 extra); the shape does not "
       "match the data"},
      {"shape_mismatch.npy",
       with("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }",
            FloatBytes({1, 2})),
       "truncated data: shape [3,4] of float32 needs 48 bytes but only 8"},
      {"big_endian.npy",
       with("{'descr': '>i8', 'fortran_order': False, 'shape': (0,), }"),
       "big-endian data (descr '>i8'); dflow reads little-endian only: save "
       "a.astype('<i8')"},
      {"unicode.npy",
       with("{'descr': '>U5', 'fortran_order': False, 'shape': (0,), }"),
       "big-endian unicode strings (descr '>U5')"},
      {"bad_string.npy",
       with("{'descr': '|Sx', 'fortran_order': False, 'shape': (0,), }"),
       "descr '|Sx' is not a fixed-width string type"},
      {"bad_code_point.npy",
       with("{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }",
            std::string("\x00\xd8\x00\x00", 4)),
       "element 0 holds 55296 at character 0, which is not a Unicode code "
       "point"},
      {"object.npy",
       with("{'descr': '|O', 'fortran_order': False, 'shape': (0,), }"),
       "Python objects (descr '|O')"},
      {"longdouble.npy",
       with("{'descr': '<f16', 'fortran_order': False, 'shape': (0,), }"),
       "descr '<f16' is not a type dflow can load"},
      {"no_order.npy",
       with("{'descr': '|f4', 'fortran_order': False, 'shape': (0,), }"),
       "gives no byte order for a 4-byte type"},
      {"fortran.npy",
       with("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
            FloatBytes({1, 2, 3, 4})),
       "Fortran (column-major) order"},
      {"missing_key.npy", with("{'descr': '<f4', 'shape': (2,), }"),
       "the header lacks 'fortran_order'"},
      {"extra_key.npy",
       with("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), "
            "'endian': 'little'}"),
       "unexpected key 'endian'"},
      {"duplicate_key.npy",
       with("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, "
            "'shape': (0,)}"),
       "the header has 'descr' twice"},
      {"int_shape.npy",
       with("{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
            FloatBytes({1, 2})),
       "a 1-d shape is written (n,)"},
      {"negative_dim.npy",
       with("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}"),
       "'shape' has a negative dimension"},
      {"huge_dim.npy",
       with("{'descr': '<f4', 'fortran_order': False, "
            "'shape': (99999999999999999999,)}"),
       "does not fit in 64 bits"},
      {"huge_shape.npy",
       with("{'descr': '<f4', 'fortran_order': False, "
            "'shape': (4294967296, 4294967296)}"),
       "more elements than fit in 64 bits"},
      {"not_a_dict.npy", with("[1, 2, 3]"),
       "expected '{' starting the header dict at byte 0"},
      {"unterminated.npy",
       with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,"),
       "expected an integer dimension in 'shape'"},
      {"junk_after.npy",
       with("{'descr': '<f4', 'fortran_order': False, 'shape': (0,)} x"),
       "expected only padding after the '}'"},
      {"bad_bool_literal.npy",
       with("{'descr': '<f4', 'fortran_order': 0, 'shape': (0,)}"),
       "expected True or False for 'fortran_order'"},
      {"bad_bool_value.npy",
       with("{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}",
            std::string("\x01\x00\x07", 3)),
       "bool element 2 is the byte 7; .npy bools must be 0 or 1"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<Tensor> t = ReadBoth(c.bytes, c.name);
    ASSERT_FALSE(t.ok()) << c.name;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(TempPath(c.name)))
        << c.name;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(c.problem))
        << c.name;
  }
}

TEST(NpyMalformedTest, HeaderProblemsQuoteTheHeader) {
  absl::StatusOr<Tensor> t = ParseNpy(
      MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': 2}", ""),
      "quoted.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("expected a tuple such as (3, 4) for 'shape' at byte "
                        "50 of the header, found '2}"));
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("header: \"{'descr': '<f4', 'fortran_order': False, "
                        "'shape': 2}\""));
}

// Every truncation and every single-byte change of the preamble and header
// gives a tensor or an error, never a crash or a huge allocation.
TEST(NpyMalformedTest, AnyTruncationOrHeaderByteChangeIsHandled) {
  for (const char* name : {"float32.npy", "v2_int32.npy", "bool.npy"}) {
    const std::string bytes = ReadBytes(absl::StrCat(kTestdata, name));
    for (size_t n = 0; n < bytes.size(); ++n) {
      EXPECT_FALSE(ParseNpy(bytes.substr(0, n), name).ok()) << name << n;
    }
    absl::StatusOr<NpyHeader> header = ParseNpyHeader(bytes, name);
    ASSERT_TRUE(header.ok());
    for (size_t i = 0; i < header->data_offset; ++i) {
      for (int value : {0x00, 0x01, 0x20, 0x27, 0x28, 0x2c, 0x39, 0x7f, 0xff}) {
        std::string changed = bytes;
        changed[i] = static_cast<char>(value);
        absl::StatusOr<Tensor> t = ParseNpy(changed, name);
        if (t.ok()) {
          EXPECT_LE(t->TotalBytes(), bytes.size());
        }
      }
    }
  }
}

TEST(NpyMalformedTest, MissingFileAndDirectory) {
  absl::StatusOr<Tensor> t = ReadNpyFile(TempPath("nope.npy"));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("nope.npy"));
  t = ReadNpyFile(TempDir());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("is a directory"));
}

}  // namespace
}  // namespace dflow
