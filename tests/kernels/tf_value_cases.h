// The value tests of TensorFlow-written graphs (special_math_ops_test,
// array_ops_more_test): a directory with graph.pb and cases.txt, written by
// tools/tf_reference/make_special_math_reference.py and
// make_array_ops_reference.py, one line per feed or fetch:
//   feed|fetch <name> <NumPy dtype> [<shape>] | v0 v1 ...
// (no shape: a vector; values "%.9g"/"%.17g" or nan, inf, -inf). A complex64
// or complex128 element is two values, its real and imaginary parts
// (re0 im0 re1 im1 ...): Line::values holds them interleaved, and
// FlatValue reads a tensor the same way. String fetches live in a file of
// their own (strings.txt), one per line:
//   fetch <name> string [<shape>] | x<hex> x<hex> ...
// (each string's bytes in hex after an 'x'; "x" alone is empty).
#ifndef DFLOW_TESTS_KERNELS_TF_VALUE_CASES_H_
#define DFLOW_TESTS_KERNELS_TF_VALUE_CASES_H_

#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/graph_def_file.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace testing_tf_values {

struct Line {
  std::string kind, name, dtype;  // dtype: NumPy's name ("float32", ...)
  std::vector<int64_t> shape;     // [n] when the file gives none
  std::vector<double> values;  // complex: re, im per element
};

inline bool IsComplexName(const std::string& numpy_name) {
  return numpy_name == "complex64" || numpy_name == "complex128";
}

inline double ParseValue(absl::string_view v) {
  if (v == "nan") return std::nan("");
  if (v == "inf") return INFINITY;
  if (v == "-inf") return -INFINITY;
  double d = 0;
  EXPECT_TRUE(absl::SimpleAtod(v, &d)) << v;
  return d;
}

inline std::vector<Line> ReadLines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<Line> lines;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> halves = absl::StrSplit(text, " | ");
    std::vector<std::string> head = halves.empty()
                                        ? std::vector<std::string>{}
                                        : absl::StrSplit(halves[0], ' ');
    EXPECT_TRUE(halves.size() == 2 && (head.size() == 3 || head.size() == 4))
        << text;
    if (halves.size() != 2 || head.size() < 3 || head.size() > 4) continue;
    Line line{head[0], head[1], head[2], {}, {}};
    for (absl::string_view v :
         absl::StrSplit(halves[1], ' ', absl::SkipEmpty())) {
      line.values.push_back(ParseValue(v));
    }
    if (head.size() == 3) {
      const size_t per = IsComplexName(line.dtype) ? 2 : 1;
      line.shape = {static_cast<int64_t>(line.values.size() / per)};
    } else {
      absl::string_view dims = head[3];
      absl::ConsumePrefix(&dims, "[");
      absl::ConsumeSuffix(&dims, "]");
      for (absl::string_view d : absl::StrSplit(dims, ',', absl::SkipEmpty())) {
        int64_t v = 0;
        EXPECT_TRUE(absl::SimpleAtoi(d, &v)) << text;
        line.shape.push_back(v);
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

inline DataType DtypeOf(const std::string& numpy_name) {
  if (numpy_name == "float32") return DT_FLOAT;
  if (numpy_name == "float64") return DT_DOUBLE;
  if (numpy_name == "int32") return DT_INT32;
  if (numpy_name == "int64") return DT_INT64;
  if (numpy_name == "bool") return DT_BOOL;
  if (numpy_name == "uint8") return DT_UINT8;
  if (numpy_name == "uint16") return DT_UINT16;
  if (numpy_name == "int8") return DT_INT8;
  if (numpy_name == "complex64") return DT_COMPLEX64;
  if (numpy_name == "complex128") return DT_COMPLEX128;
  ADD_FAILURE() << "unexpected dtype " << numpy_name;
  return DT_INVALID;
}

inline Tensor FeedTensor(const Line& line) {
  Tensor t(DtypeOf(line.dtype), TensorShape(line.shape));
  const int64_t per = IsComplexName(line.dtype) ? 2 : 1;
  EXPECT_EQ(per * t.NumElements(), static_cast<int64_t>(line.values.size()))
      << line.name;
  if (per * t.NumElements() != static_cast<int64_t>(line.values.size())) {
    return t;
  }
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (t.dtype() == DT_COMPLEX64) {
      t.data<complex64>()[i] =
          complex64(static_cast<float>(line.values[2 * i]),
                    static_cast<float>(line.values[2 * i + 1]));
      continue;
    }
    if (t.dtype() == DT_COMPLEX128) {
      t.data<complex128>()[i] =
          complex128(line.values[2 * i], line.values[2 * i + 1]);
      continue;
    }
    const double v = line.values[i];
    switch (t.dtype()) {
      case DT_FLOAT:
        t.data<float>()[i] = static_cast<float>(v);
        break;
      case DT_DOUBLE:
        t.data<double>()[i] = v;
        break;
      case DT_INT32:
        t.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DT_INT64:
        t.data<int64_t>()[i] = static_cast<int64_t>(v);
        break;
      case DT_UINT8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case DT_UINT16:
        t.data<uint16_t>()[i] = static_cast<uint16_t>(v);
        break;
      case DT_INT8:
        t.data<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      default:
        t.data<bool>()[i] = v != 0;
    }
  }
  return t;
}

// Element i of a float, double, int32, int64, bool, uint8, uint16 or int8
// tensor.
inline double Element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_INT64:
      return static_cast<double>(t.data<int64_t>()[i]);
    case DT_BOOL:
      return t.data<bool>()[i] ? 1 : 0;
    case DT_UINT8:
      return t.data<uint8_t>()[i];
    case DT_UINT16:
      return t.data<uint16_t>()[i];
    case DT_INT8:
      return t.data<int8_t>()[i];
    default:
      ADD_FAILURE() << "unexpected dtype " << DataTypeName(t.dtype());
      return 0;
  }
}

// A string fetch of strings.txt: its line (values empty) and its strings.
struct StringFetch {
  Line line;
  std::vector<std::string> values;
};

inline std::vector<StringFetch> ReadStringFetches(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<StringFetch> fetches;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> halves = absl::StrSplit(text, " | ");
    std::vector<std::string> head = absl::StrSplit(halves[0], ' ');
    EXPECT_EQ(head.size(), 4u) << text;
    if (head.size() != 4) continue;
    StringFetch fetch;
    fetch.line = Line{head[0], head[1], head[2], {}, {}};
    absl::string_view dims = head[3];
    absl::ConsumePrefix(&dims, "[");
    absl::ConsumeSuffix(&dims, "]");
    for (absl::string_view d : absl::StrSplit(dims, ',', absl::SkipEmpty())) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(d, &v)) << text;
      fetch.line.shape.push_back(v);
    }
    if (halves.size() > 1) {
      for (absl::string_view v :
           absl::StrSplit(halves[1], ' ', absl::SkipEmpty())) {
        EXPECT_TRUE(absl::ConsumePrefix(&v, "x")) << text;
        fetch.values.push_back(absl::HexStringToBytes(v));
      }
    }
    fetches.push_back(std::move(fetch));
  }
  return fetches;
}

// The number of values a tensor has in the file's format (two per complex
// element), and value j of them: Element(t, j) for real types, for complex
// types the real (j even) or imaginary (j odd) part of element j / 2.
inline int64_t NumValues(const Tensor& t) {
  return (t.dtype() == DT_COMPLEX64 || t.dtype() == DT_COMPLEX128 ? 2 : 1) *
         t.NumElements();
}
inline double FlatValue(const Tensor& t, int64_t j) {
  if (t.dtype() == DT_COMPLEX64) {
    const complex64 z = t.data<complex64>()[j / 2];
    return j % 2 == 0 ? z.real() : z.imag();
  }
  if (t.dtype() == DT_COMPLEX128) {
    const complex128 z = t.data<complex128>()[j / 2];
    return j % 2 == 0 ? z.real() : z.imag();
  }
  return Element(t, j);
}

// A session over `dir`/graph.pb.
inline absl::StatusOr<std::unique_ptr<Session>> OpenGraph(
    const std::string& dir, const SessionOptions& options = SessionOptions()) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(dir + "graph.pb");
  if (!def.ok()) return def.status();
  return Session::Create(*def, options);
}

// The feed lines of `lines` as tensors, and the names of its fetch lines
// with the lines themselves (`fetches` and `fetched` in the same order).
inline void SplitFeedsAndFetches(const std::vector<Line>& lines,
                                 FeedList* feeds,
                                 std::vector<std::string>* fetches,
                                 std::vector<const Line*>* fetched) {
  for (const Line& line : lines) {
    if (line.kind == "feed") {
      feeds->emplace_back(line.name, FeedTensor(line));
    } else {
      fetched->push_back(&line);
      fetches->push_back(line.name);
    }
  }
}

// Runs `dir`/graph.pb with every feed of `lines` and fetches every fetch
// line: `fetched` and `outputs` in the same order. Fails the test (and
// leaves them empty) when the graph does not load or run.
inline void RunGraph(const std::string& dir, const std::vector<Line>& lines,
                     std::vector<const Line*>* fetched,
                     std::vector<Tensor>* outputs) {
  absl::StatusOr<std::unique_ptr<Session>> session = OpenGraph(dir);
  ASSERT_TRUE(session.ok()) << session.status();
  FeedList feeds;
  std::vector<std::string> fetches;
  SplitFeedsAndFetches(lines, &feeds, &fetches, fetched);
  const absl::Status run = (*session)->Run(feeds, fetches, {}, outputs);
  ASSERT_TRUE(run.ok()) << run;
  ASSERT_EQ(outputs->size(), fetched->size());
}

}  // namespace testing_tf_values
}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_TF_VALUE_CASES_H_
