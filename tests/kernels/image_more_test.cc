// The image ops of graph/ops/image_ops_nms.cc, image_ops_codecs.cc and
// image_ops_geometry.cc on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_image_more_reference.py):
// NMS V1-V5 (soft, padded, half), with overlaps and combined; JPEG, PNG,
// GIF and BMP decoding with every setting (files written by TensorFlow, or
// Pillow where TensorFlow cannot write the format), crops, header shapes,
// recovered truncated JPEGs; encode/decode round trips; ScaleAndTranslate
// through tf.image.resize's filtered and antialiased methods and its
// gradient; dilation/erosion and their gradients; volume patches; box
// drawing; sampled crops from TensorFlow's random streams. Then codec
// round trips independent of TensorFlow, and bad inputs: corrupt and
// truncated files (every prefix, flipped bytes) are InvalidArgument
// errors, never crashes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_image_more/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

std::string ReadFile(const std::string& name) {
  std::ifstream in(std::string(kDir) + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ImageMoreTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 140u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  ASSERT_GE(fetched.size(), 130u);
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Pixels, indices and counts exactly; filters summed in float in
    // TensorFlow's order, but 1e-5 (relative or absolute) allows for a
    // fused multiply-add in TensorFlow's build.
    const bool exact = want.dtype != "float32" && want.dtype != "float64";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i];
      if (exact) {
        EXPECT_EQ(Element(got, i), w) << "element " << i;
      } else {
        EXPECT_NEAR(Element(got, i), w, 1e-5 * std::max(1.0, std::abs(w)))
            << "element " << i;
      }
    }
  }
}

// --- Runs one node's kernel. ---

absl::StatusOr<std::vector<Tensor>> RunOp(const Output& out,
                                        const std::vector<Tensor>& in) {
  return RunKernel(out.node(), in);
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

Tensor Bytes(const std::string& data) { return Tensor::Scalar(data); }

// --- Codec round trips, independent of TensorFlow. ---

TEST(ImageMoreTest, PngRoundTripsEveryChannelCountAndDepth) {
  Scope root = Scope::NewRootScope();
  for (DataType type : {DT_UINT8, DT_UINT16}) {
    for (int64_t channels = 1; channels <= 4; ++channels) {
      Output image = ops::Placeholder(root, type);
      Output png = ops::EncodePng(root, image, channels == 2 ? 9 : -1);
      Output back = ops::DecodePng(root, ops::Placeholder(root, DT_STRING), 0,
                                   type);
      Tensor pixels(type, TensorShape({5, 7, channels}));
      for (int64_t i = 0; i < pixels.NumElements(); ++i) {
        const uint32_t v = static_cast<uint32_t>(i * 2654435761u >> 7);
        if (type == DT_UINT8) {
          pixels.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        } else {
          pixels.data<uint16_t>()[i] = static_cast<uint16_t>(v);
        }
      }
      absl::StatusOr<std::vector<Tensor>> encoded = RunOp(png, {pixels});
      ASSERT_TRUE(encoded.ok()) << encoded.status();
      absl::StatusOr<std::vector<Tensor>> decoded =
          RunOp(back, {(*encoded)[0]});
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      const Tensor& got = (*decoded)[0];
      ASSERT_EQ(got.shape(), pixels.shape());
      EXPECT_EQ(0, std::memcmp(got.raw_data(), pixels.raw_data(),
                               pixels.TotalBytes()))
          << DataTypeName(type) << " " << channels << " channels";
    }
  }
}

TEST(ImageMoreTest, JpegRoundTripIsCloseAndDecodesTensorFlowsFiles) {
  Scope root = Scope::NewRootScope();
  Output image = ops::Placeholder(root, DT_UINT8);
  ops::EncodeJpegAttrs attrs;
  attrs.quality = 95;
  attrs.chroma_downsampling = false;
  Output jpeg = ops::EncodeJpeg(root, image, attrs);
  Output contents = ops::Placeholder(root, DT_STRING);
  Output decoded = ops::DecodeJpeg(root, contents);
  Output shape = ops::ExtractJpegShape(root, contents);
  Tensor pixels(DT_UINT8, TensorShape({12, 20, 3}));
  for (int64_t y = 0; y < 12; ++y) {
    for (int64_t x = 0; x < 20; ++x) {
      for (int64_t c = 0; c < 3; ++c) {
        pixels.data<uint8_t>()[(y * 20 + x) * 3 + c] =
            static_cast<uint8_t>(100 + 8 * y + 5 * x - 30 * c);
      }
    }
  }
  absl::StatusOr<std::vector<Tensor>> encoded = RunOp(jpeg, {pixels});
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  absl::StatusOr<std::vector<Tensor>> back = RunOp(decoded, {(*encoded)[0]});
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ((*back)[0].shape(), pixels.shape());
  double error = 0;
  for (int64_t i = 0; i < pixels.NumElements(); ++i) {
    error += std::abs(static_cast<int>((*back)[0].data<uint8_t>()[i]) -
                      static_cast<int>(pixels.data<uint8_t>()[i]));
  }
  EXPECT_LT(error / pixels.NumElements(), 3.0);
  absl::StatusOr<std::vector<Tensor>> dims = RunOp(shape, {(*encoded)[0]});
  ASSERT_TRUE(dims.ok()) << dims.status();
  EXPECT_EQ((*dims)[0].data<int32_t>()[0], 12);
  EXPECT_EQ((*dims)[0].data<int32_t>()[1], 20);
  EXPECT_EQ((*dims)[0].data<int32_t>()[2], 3);
}

// --- Bad files. ---

// Every prefix and many one-byte corruptions of each file: each decoder
// returns an image or an InvalidArgument, never anything else (and never
// crashes).
TEST(ImageMoreTest, CorruptAndTruncatedFilesAreErrorsNotCrashes) {
  Scope root = Scope::NewRootScope();
  Output contents = ops::Placeholder(root, DT_STRING);
  ops::DecodeJpegAttrs recover;
  recover.try_recover_truncated = true;
  recover.acceptable_fraction = 0.25f;
  const std::vector<Output> decoders = {
      ops::DecodeImage(root, contents),
      ops::DecodeJpeg(root, contents, recover),
      ops::DecodePng(root, contents, 0, DT_UINT16),
      ops::DecodeGif(root, contents),
      ops::DecodeBmp(root, contents),
      ops::ExtractJpegShape(root, contents),
      ops::DecodeImage(root, contents, 3, DT_FLOAT, false)};
  int errors = 0, images = 0;
  for (const char* name :
       {"img.jpg", "progressive.jpg", "cmyk.jpg", "img.png", "rgba16.png",
        "anim.gif", "img24.bmp", "img32.bmp"}) {
    const std::string file = ReadFile(name);
    std::vector<std::string> bad;
    for (size_t n = 0; n < file.size(); n += 5) bad.push_back(file.substr(0, n));
    for (size_t i = 0; i < file.size(); i += 3) {
      std::string flipped = file;
      flipped[i] = static_cast<char>(flipped[i] ^ (0x5a + i));
      bad.push_back(flipped);
    }
    for (const std::string& data : bad) {
      for (const Output& d : decoders) {
        absl::StatusOr<std::vector<Tensor>> r = RunOp(d, {Bytes(data)});
        if (r.ok()) {
          ++images;
        } else {
          ++errors;
          ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
              << name << ": " << r.status();
        }
      }
    }
  }
  EXPECT_GT(errors, 1000);
  EXPECT_GT(images, 100);
}

TEST(ImageMoreTest, DecoderErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output contents = ops::Placeholder(root, DT_STRING);
  Output jpeg = ops::DecodeJpeg(root, contents);
  const std::string file = ReadFile("img.jpg");
  ExpectInvalid(RunOp(jpeg, {Bytes(file.substr(0, file.size() / 2))}).status(),
                "invalid JPEG data");
  ops::DecodeJpegAttrs recover;
  recover.try_recover_truncated = true;
  recover.acceptable_fraction = 0.5f;
  // TensorFlow fails on this cut too (its fake end marker is not enough).
  ExpectInvalid(RunOp(ops::DecodeJpeg(root, contents, recover),
                    {Bytes(file.substr(0, file.size() / 2))})
                    .status(),
                "invalid JPEG data");
  ExpectInvalid(RunOp(jpeg, {Bytes("")}).status(), "contents is empty");
  ExpectInvalid(RunOp(jpeg, {Bytes("not an image at all")}).status(),
                "unknown image file format");
  ExpectInvalid(RunOp(jpeg, {Tensor::FromVector<std::string>(
                              {file, file}, TensorShape({2}))})
                    .status(),
                "must be a scalar string");
  ops::DecodeJpegAttrs gray;
  gray.channels = 1;
  ExpectInvalid(
      RunOp(ops::DecodeJpeg(root, contents, gray), {Bytes(ReadFile("cmyk.jpg"))})
          .status(),
      "invalid JPEG data");
  Output crop = ops::DecodeAndCropJpeg(root, contents,
                                       ops::Placeholder(root, DT_INT32));
  ExpectInvalid(
      RunOp(crop, {Bytes(file),
                 Tensor::FromVector<int32_t>({10, 10, 8, 8}, TensorShape({4}))})
          .status(),
      "does not fit in the 16x24 image");
  ExpectInvalid(RunOp(crop, {Bytes(ReadFile("img.png")),
                           Tensor::FromVector<int32_t>({0, 0, 2, 2},
                                                       TensorShape({4}))})
                    .status(),
                "JPEG files only");
  const std::string png = ReadFile("img.png");
  std::string bad_crc = png;
  bad_crc[30] = static_cast<char>(bad_crc[30] ^ 1);  // inside IHDR
  ExpectInvalid(RunOp(ops::DecodePng(root, contents), {Bytes(bad_crc)}).status(),
                "invalid PNG data");
  ExpectInvalid(
      RunOp(ops::DecodePng(root, contents), {Bytes(png.substr(0, 40))}).status(),
      "invalid PNG data");
  ExpectInvalid(
      RunOp(ops::DecodeBmp(root, contents), {Bytes(png)}).status(),
      "DecodeBmp got a PNG file");
  const std::string bmp = ReadFile("img24.bmp");
  ExpectInvalid(RunOp(ops::DecodeBmp(root, contents),
                    {Bytes(bmp.substr(0, bmp.size() - 3))})
                    .status(),
                "differ by -3");
  const std::string gif = ReadFile("anim.gif");
  ExpectInvalid(RunOp(jpeg, {Bytes(gif)}).status(), "got 3 frames");
  // Cut inside the first frame (TensorFlow keeps the complete frames of a
  // longer cut, and so does dflow: the graph's values).
  ExpectInvalid(RunOp(ops::DecodeGif(root, contents), {Bytes(gif.substr(0, 100))})
                    .status(),
                "invalid GIF data");
}

TEST(ImageMoreTest, EncoderErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output image = ops::Placeholder(root, DT_UINT8);
  Output png = ops::EncodePng(root, image);
  ExpectInvalid(RunOp(png, {Tensor(DT_UINT8, TensorShape({2, 2, 5}))}).status(),
                "1, 2, 3 or 4 channels");
  ExpectInvalid(RunOp(png, {Tensor(DT_UINT8, TensorShape({0, 2, 3}))}).status(),
                "cannot encode an empty");
  ExpectInvalid(RunOp(png, {Tensor(DT_UINT8, TensorShape({4, 3}))}).status(),
                "must be [..., height, width, channels]");
  // A batch (TensorFlow 2's EncodePng): one file per image.
  Tensor batch(DT_UINT8, TensorShape({2, 1, 2, 2, 3}));
  for (int64_t i = 0; i < batch.NumElements(); ++i) {
    batch.data<uint8_t>()[i] = static_cast<uint8_t>(i);
  }
  absl::StatusOr<std::vector<Tensor>> files = RunOp(png, {batch});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ((*files)[0].shape(), TensorShape({2, 1}));
  EXPECT_NE((*files)[0].data<std::string>()[0],
            (*files)[0].data<std::string>()[1]);
  Output jpeg = ops::EncodeJpeg(root, image);
  ExpectInvalid(RunOp(jpeg, {Tensor(DT_UINT8, TensorShape({2, 2, 2}))}).status(),
                "1 or 3 channels");
  ExpectInvalid(RunOp(jpeg, {Tensor(DT_UINT8, TensorShape({2, 0, 3}))}).status(),
                "cannot encode an empty");
  ops::EncodeJpegAttrs gray;
  gray.format = "grayscale";
  ExpectInvalid(RunOp(ops::EncodeJpeg(root, image, gray),
                    {Tensor(DT_UINT8, TensorShape({2, 2, 3}))})
                    .status(),
                "expects 1 channels");
  ExpectInvalid(RunOp(ops::EncodeJpegVariableQuality(
                        root, image, ops::Placeholder(root, DT_INT32)),
                    {Tensor(DT_UINT8, TensorShape({2, 2, 3})),
                     Tensor::Scalar<int32_t>(101)})
                    .status(),
                "quality must be in [0, 100]");
}

// --- Bad inputs of the other ops. ---

TEST(ImageMoreTest, NmsErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output boxes = ops::Placeholder(root, DT_FLOAT);
  Output scores = ops::Placeholder(root, DT_FLOAT);
  Output size = ops::Placeholder(root, DT_INT32);
  Output iou = ops::Placeholder(root, DT_FLOAT);
  Output nms = ops::NonMaxSuppressionV3(root, boxes, scores, size, iou, iou);
  const Tensor b(DT_FLOAT, TensorShape({3, 4}));
  const Tensor s(DT_FLOAT, TensorShape({3}));
  ExpectInvalid(RunOp(nms, {Tensor(DT_FLOAT, TensorShape({3, 3})), s,
                          Tensor::Scalar<int32_t>(2), Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)})
                    .status(),
                "boxes must be [num_boxes, 4]");
  ExpectInvalid(RunOp(nms, {b, Tensor(DT_FLOAT, TensorShape({2})),
                          Tensor::Scalar<int32_t>(2), Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)})
                    .status(),
                "scores must be a vector of the 3 boxes' scores");
  ExpectInvalid(RunOp(nms, {b, s, Tensor::Scalar<int32_t>(-1),
                          Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)})
                    .status(),
                "max_output_size -1 must be non-negative");
  ExpectInvalid(
      RunOp(nms, {b, s, Tensor::Scalar<int32_t>(2), Tensor::Scalar(1.5f), Tensor::Scalar(0.0f)})
          .status(),
      "iou_threshold 1.5 must be in [0, 1]");
  ExpectInvalid(RunOp(nms, {b, s, Tensor::FromVector<int32_t>({2}, TensorShape({1})),
                          Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)})
                    .status(),
                "max_output_size must be a scalar");
  OutputList soft = ops::NonMaxSuppressionV5(root, boxes, scores, size, iou,
                                             iou, ops::Placeholder(root, DT_FLOAT));
  ExpectInvalid(RunOp(soft[0], {b, s, Tensor::Scalar<int32_t>(2),
                              Tensor::Scalar(0.5f), Tensor::Scalar(0.5f),
                              Tensor::Scalar(-1.0f)})
                    .status(),
                "soft_nms_sigma -1 must be >= 0");
  Output overlaps = ops::NonMaxSuppressionWithOverlaps(root, boxes, scores,
                                                       size, iou, iou);
  ExpectInvalid(RunOp(overlaps, {b, s, Tensor::Scalar<int32_t>(2),
                               Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)})
                    .status(),
                "overlaps must be a square");
  OutputList combined = ops::CombinedNonMaxSuppression(
      root, boxes, scores, size, size, iou, iou);
  ExpectInvalid(
      RunOp(combined[0], {Tensor(DT_FLOAT, TensorShape({1, 3, 2, 4})),
                        Tensor(DT_FLOAT, TensorShape({1, 3, 3})),
                        Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(2),
                        Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)})
          .status(),
      "must be 1 or the 3 classes");
  ExpectInvalid(
      RunOp(combined[0], {Tensor(DT_FLOAT, TensorShape({1, 3, 1, 4})),
                        Tensor(DT_FLOAT, TensorShape({1, 3, 3})),
                        Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(2),
                        Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)})
          .status(),
      "max_output_size_per_class 0 must be positive");
}

TEST(ImageMoreTest, GeometryErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output size = ops::Placeholder(root, DT_INT32);
  Output pair = ops::Placeholder(root, DT_FLOAT);
  Output sat = ops::ScaleAndTranslate(root, x, size, pair, pair);
  const Tensor img(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  const Tensor hw = Tensor::FromVector<int32_t>({2, 2}, TensorShape({2}));
  ExpectInvalid(
      RunOp(sat, {img, hw, Tensor::FromVector<float>({0.0f, 1.0f}, TensorShape({2})),
                Tensor::FromVector<float>({0.0f, 0.0f}, TensorShape({2}))})
          .status(),
      "must be positive");
  ExpectInvalid(RunOp(sat, {img, Tensor::FromVector<int32_t>({2}, TensorShape({1})),
                          hw, hw})
                    .status(),
                "size must be a vector of 2 values");
  ExpectInvalid(RunOp(ops::ScaleAndTranslate(root, x, size, pair, pair, "sinc"),
                    {img, hw, hw, hw})
                    .status(),
                "kernel_type 'sinc'");
  Output filter = ops::Placeholder(root, DT_FLOAT);
  Output dil = ops::Dilation2D(root, x, filter, {1, 1, 1, 1}, {1, 1, 1, 1},
                               "VALID");
  ExpectInvalid(RunOp(dil, {img, Tensor(DT_FLOAT, TensorShape({2, 2, 3}))}).status(),
                "with the input's depth 1");
  ExpectInvalid(RunOp(dil, {img, Tensor(DT_FLOAT, TensorShape({7, 2, 1}))}).status(),
                "larger than the input");
  Output grad = ops::Dilation2DBackpropInput(
      root, x, filter, ops::Placeholder(root, DT_FLOAT), {1, 1, 1, 1},
      {1, 1, 1, 1}, "VALID");
  ExpectInvalid(RunOp(grad, {img, Tensor(DT_FLOAT, TensorShape({2, 2, 1})),
                           Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))})
                    .status(),
                "out_backprop [1,2,2,1] must have the output's shape");
  ExpectInvalid(RunOp(ops::ExtractVolumePatches(root, x, {1, 2, 2, 2, 1},
                                              {1, 1, 1, 1, 1}, "VALID"),
                    {img})
                    .status(),
                "must be 5-D");
  Output boxes = ops::Placeholder(root, DT_FLOAT);
  ExpectInvalid(RunOp(ops::DrawBoundingBoxes(root, x, boxes),
                    {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 2})),
                     Tensor(DT_FLOAT, TensorShape({1, 1, 4}))})
                    .status(),
                "1 (gray), 3 (RGB) or 4 (RGBA) channels");
  OutputList sample = ops::StatelessSampleDistortedBoundingBox(
      root, size, boxes, pair, ops::Placeholder(root, DT_INT32));
  const Tensor image_size =
      Tensor::FromVector<int32_t>({10, 10, 3}, TensorShape({3}));
  const Tensor seed = Tensor::FromVector<int32_t>({1, 2}, TensorShape({2}));
  ExpectInvalid(
      RunOp(sample[0],
          {image_size,
           Tensor::FromVector<float>({0.1f, 0.1f, 1.5f, 0.5f}, TensorShape({1, 1, 4})),
           Tensor::Scalar(0.1f), seed})
          .status(),
      "coordinates must be in [0, 1], got 1.5");
  ExpectInvalid(
      RunOp(sample[0], {image_size, Tensor(DT_FLOAT, TensorShape({1, 0, 4})),
                      Tensor::Scalar(0.1f), seed})
          .status(),
      "no bounding boxes given");
  ExpectInvalid(
      RunOp(sample[0], {image_size, Tensor(DT_FLOAT, TensorShape({1, 1, 4})),
                      Tensor::Scalar(0.1f),
                      Tensor::FromVector<int32_t>({1}, TensorShape({1}))})
          .status(),
      "seed must have shape [2]");
}

}  // namespace
}  // namespace dflow
