#include "kernels/cpu/summary_ops_util.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/image_ops_codec_io.h"

namespace dflow {
namespace summary_util {
namespace {

// TensorFlow's default bucket limits (tsl/lib/histogram): -DBL_MAX,
// -1e20.. -1e-12, 0, 1e-12 .. 1e20, DBL_MAX, growing by 10%.
const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double>* limits = [] {
    std::vector<double> pos, neg;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) {
      pos.push_back(v);
      neg.push_back(-v);
    }
    pos.push_back(DBL_MAX);
    neg.push_back(-DBL_MAX);
    auto* out = new std::vector<double>(neg.rbegin(), neg.rend());
    out->push_back(0.0);
    out->insert(out->end(), pos.begin(), pos.end());
    return out;
  }();
  return *limits;
}

// One pixel's channels with TensorFlow's arithmetic of type T: scale and
// offset are T, v * scale + offset is computed in T (for half, each step
// rounds to half, as Eigen::half's operators do), then truncated to uint8.
template <typename T>
uint8_t Quantize(T v, T scale, T offset) {
  return static_cast<uint8_t>(v * scale + offset);
}
template <>
uint8_t Quantize<float16>(float16 v, float16 scale, float16 offset) {
  const float16 product = float16::FromFloat(v.ToFloat() * scale.ToFloat());
  const float16 sum = float16::FromFloat(product.ToFloat() + offset.ToFloat());
  return static_cast<uint8_t>(sum.ToFloat());
}

template <typename T>
float AsFloat(T v) {
  return static_cast<float>(v);
}
template <>
float AsFloat<float16>(float16 v) {
  return v.ToFloat();
}

template <typename T>
T FromFloat(float v) {
  return static_cast<T>(v);
}
template <>
float16 FromFloat<float16>(float v) {
  return float16::FromFloat(v);
}

// Image `hw` pixels of `depth` channels at `values` into `out` (hw *
// depth bytes), as TensorFlow's NormalizeFloatImage.
template <typename T>
void NormalizeImage(const T* values, int64_t hw, int64_t depth,
                    const uint8_t* bad_color, uint8_t* out) {
  auto finite_pixel = [&](int64_t i) {
    for (int64_t j = 0; j < depth; ++j) {
      if (!std::isfinite(AsFloat(values[i * depth + j]))) return false;
    }
    return true;
  };
  // The range of the finite pixels, in float (TensorFlow's).
  float image_min = std::numeric_limits<float>::infinity();
  float image_max = -image_min;
  for (int64_t i = 0; i < hw; ++i) {
    if (!finite_pixel(i)) continue;
    for (int64_t j = 0; j < depth; ++j) {
      const float v = AsFloat(values[i * depth + j]);
      image_min = std::min(image_min, v);
      image_max = std::max(image_max, v);
    }
  }
  constexpr float kZeroThreshold = 1e-6f;
  T scale, offset;
  if (image_min < 0) {
    const float max_val = std::max(std::abs(image_min), std::abs(image_max));
    scale = FromFloat<T>(max_val < kZeroThreshold ? 0.0f : 127.0f / max_val);
    offset = FromFloat<T>(128.0f);
  } else {
    scale =
        FromFloat<T>(image_max < kZeroThreshold ? 0.0f : 255.0f / image_max);
    offset = FromFloat<T>(0.0f);
  }
  for (int64_t i = 0; i < hw; ++i) {
    const bool finite = finite_pixel(i);
    for (int64_t j = 0; j < depth; ++j) {
      out[i * depth + j] =
          finite ? Quantize<T>(values[i * depth + j], scale, offset)
                 : bad_color[j];
    }
  }
}

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>(v >> (8 * i)));
  }
}

// TensorFlow's wav::EncodeAudioAsS16LEWav: a 44-byte header, then each
// sample * 32768 rounded and clamped to int16 (NaN as 0).
absl::Status EncodeWav(const float* samples, uint32_t sample_rate,
                       int64_t channels, int64_t frames, std::string* out) {
  const int64_t data_size = 2 * frames * channels;
  if (channels <= 0 || channels >= 65536 ||
      44 + data_size > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "audio of ", frames, " frames of ", channels,
        " channels cannot be a WAV file (1 to 65535 channels, under 4 GiB)"));
  }
  out->clear();
  out->reserve(44 + data_size);
  *out += "RIFF";
  PutLe(out, 36 + data_size, 4);
  *out += "WAVEfmt ";
  PutLe(out, 16, 4);  // the format chunk's size
  PutLe(out, 1, 2);   // PCM
  PutLe(out, channels, 2);
  PutLe(out, sample_rate, 4);
  PutLe(out, uint64_t{2} * channels * sample_rate, 4);  // bytes per second
  PutLe(out, 2 * channels, 2);                          // block align
  PutLe(out, 16, 2);                                    // bits per sample
  *out += "data";
  PutLe(out, data_size, 4);
  for (int64_t i = 0; i < frames * channels; ++i) {
    const float x = samples[i];
    int16_t v = 0;
    if (!std::isnan(x)) {
      v = static_cast<int16_t>(
          std::min(std::max(std::round(x * 32768.0f), -32768.0f), 32767.0f));
    }
    PutLe(out, static_cast<uint16_t>(v), 2);
  }
  return absl::OkStatus();
}

}  // namespace

double ValueAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    case DT_HALF:
      return t.data<float16>()[i].ToFloat();
    case DT_BFLOAT16:
      return t.data<bfloat16>()[i].ToFloat();
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_INT64:
      return static_cast<double>(t.data<int64_t>()[i]);
    case DT_INT16:
      return t.data<int16_t>()[i];
    case DT_INT8:
      return t.data<int8_t>()[i];
    case DT_UINT8:
      return t.data<uint8_t>()[i];
    case DT_UINT16:
      return t.data<uint16_t>()[i];
    case DT_UINT32:
      return t.data<uint32_t>()[i];
    case DT_UINT64:
      return static_cast<double>(t.data<uint64_t>()[i]);
    case DT_BOOL:
      return t.data<bool>()[i] ? 1.0 : 0.0;
    case DT_COMPLEX64:
      return t.data<complex64>()[i].real();
    case DT_COMPLEX128:
      return t.data<complex128>()[i].real();
    default:
      return 0;  // the kernels' type constraints exclude the rest
  }
}

absl::Status AddHistogram(const Tensor& values, const std::string& tag,
                          const std::string& who, Summary* s) {
  const std::vector<double>& limits = DefaultBucketLimits();
  std::vector<double> buckets(limits.size(), 0.0);
  double min = limits.back(), max = -DBL_MAX, num = 0, sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < values.NumElements(); ++i) {
    const double v = ValueAt(values, i);
    if (std::isnan(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Nan in summary histogram for: ", who, " (element ", i, ")"));
    }
    if (std::isinf(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Infinity in summary histogram for: ", who, " (element ", i, ")"));
    }
    const size_t b =
        std::upper_bound(limits.begin(), limits.end(), v) - limits.begin();
    buckets[b] += 1.0;
    min = std::min(min, v);
    max = std::max(max, v);
    num += 1;
    sum += v;
    sum_sq += v * v;
  }
  Summary::Value* value = s->add_value();
  value->set_tag(tag);
  HistogramProto* h = value->mutable_histo();
  h->set_min(min);
  h->set_max(max);
  h->set_num(num);
  h->set_sum(sum);
  h->set_sum_squares(sum_sq);
  for (size_t i = 0; i < buckets.size();) {
    double end = limits[i];
    double count = buckets[i];
    ++i;
    if (count <= 0.0) {
      // A run of empty buckets becomes one, ending at the run's last limit.
      while (i < buckets.size() && buckets[i] <= 0.0) {
        end = limits[i];
        count = buckets[i];
        ++i;
      }
    }
    h->add_bucket_limit(end);
    h->add_bucket(count);
  }
  return absl::OkStatus();
}

absl::Status AddImages(const Tensor& images, const std::string& tag,
                       int64_t max_images, const Tensor& bad_color,
                       Summary* s) {
  const TensorShape& shape = images.shape();
  if (shape.rank() != 4 ||
      (shape.dim(3) != 1 && shape.dim(3) != 3 && shape.dim(3) != 4)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tensor must be 4-D with last dim 1, 3, or 4, not ", shape.ToString(),
        " (images are [batch, height, width, channels]: 1 gray, 3 RGB, 4 "
        "RGBA)"));
  }
  if (shape.dim(0) >= (int64_t{1} << 31) ||
      shape.dim(1) >= (int64_t{1} << 31) ||
      shape.dim(2) >= (int64_t{1} << 31) ||
      shape.dim(1) * shape.dim(2) >= (int64_t{1} << 29)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tensor too large for summary ", shape.ToString()));
  }
  if (max_images < 1 || max_images >= (int64_t{1} << 31)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_images must be in [1, 2^31), got ", max_images));
  }
  const int64_t batch = shape.dim(0), h = shape.dim(1), w = shape.dim(2);
  const int64_t depth = shape.dim(3), hw = h * w;
  if (images.dtype() != DT_UINT8) {
    if (bad_color.dtype() != DT_UINT8 || bad_color.shape().rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad_color must be a uint8 vector, got ",
          DataTypeName(bad_color.dtype()), " ", bad_color.shape().ToString()));
    }
    if (bad_color.NumElements() < depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected depth <= bad_color.size, got depth = ", depth,
          ", bad_color.size = ", bad_color.NumElements()));
    }
  }
  std::vector<uint8_t> pixels(hw * depth);
  const int64_t n = std::min(max_images, batch);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t offset = i * hw * depth;
    switch (images.dtype()) {
      case DT_UINT8:
        std::copy_n(images.data<uint8_t>() + offset, hw * depth,
                    pixels.begin());
        break;
      case DT_HALF:
        NormalizeImage(images.data<float16>() + offset, hw, depth,
                       bad_color.data<uint8_t>(), pixels.data());
        break;
      case DT_FLOAT:
        NormalizeImage(images.data<float>() + offset, hw, depth,
                       bad_color.data<uint8_t>(), pixels.data());
        break;
      case DT_DOUBLE:
        NormalizeImage(images.data<double>() + offset, hw, depth,
                       bad_color.data<uint8_t>(), pixels.data());
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "images must be uint8, half, float or double, got ",
            DataTypeName(images.dtype())));
    }
    Summary::Value* v = s->add_value();
    // The tag depends on how many images were asked for, not made.
    v->set_tag(max_images > 1 ? absl::StrCat(tag, "/image/", i)
                              : absl::StrCat(tag, "/image"));
    Summary::Image* image = v->mutable_image();
    image->set_height(static_cast<int32_t>(h));
    image->set_width(static_cast<int32_t>(w));
    image->set_colorspace(static_cast<int32_t>(depth));
    std::string error;
    // zlib's default compression, as TensorFlow's.
    if (!codec_io::PngEncode(pixels.data(), static_cast<int>(h),
                             static_cast<int>(w), static_cast<int>(depth), 8,
                             -1, image->mutable_encoded_image_string(),
                             &error)) {
      return absl::InternalError(absl::StrCat("PNG encoding failed: ", error));
    }
  }
  return absl::OkStatus();
}

absl::Status AddAudio(const Tensor& audio, const std::string& tag,
                      int64_t max_outputs, float sample_rate, Summary* s) {
  const TensorShape& shape = audio.shape();
  if (shape.rank() != 2 && shape.rank() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tensor must be 3-D or 2-D, got: ", shape.ToString(),
        " (audio is [batch, frames] or [batch, frames, channels])"));
  }
  if (!(sample_rate > 0.0f)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample_rate must be > 0, got ", sample_rate));
  }
  if (max_outputs < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_outputs must be > 0, got ", max_outputs));
  }
  const int64_t batch = shape.dim(0), frames = shape.dim(1);
  const int64_t channels = shape.rank() == 2 ? 1 : shape.dim(2);
  // The header's rate: rounded to an integer, at least 1 (TensorFlow's).
  long rate = std::lrintf(sample_rate);
  if (rate <= 0) rate = 1;
  if (rate > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample_rate ", sample_rate, " is too large for a WAV"));
  }
  const int64_t n = std::min(max_outputs, batch);
  for (int64_t i = 0; i < n; ++i) {
    Summary::Value* v = s->add_value();
    v->set_tag(max_outputs > 1 ? absl::StrCat(tag, "/audio/", i)
                               : absl::StrCat(tag, "/audio"));
    Summary::Audio* a = v->mutable_audio();
    a->set_sample_rate(sample_rate);
    a->set_num_channels(channels);
    a->set_length_frames(frames);
    a->set_content_type("audio/wav");
    if (absl::Status st =
            EncodeWav(audio.data<float>() + i * frames * channels,
                      static_cast<uint32_t>(rate), channels, frames,
                      a->mutable_encoded_audio_string());
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

void TensorToSummaryProto(const Tensor& t, TensorProto* proto) {
  t.ToProto(proto, /*use_tensor_content=*/true);
}

absl::Status SetSummaryOutput(OpKernelContext* ctx, const Summary& s) {
  Tensor* out = nullptr;
  if (absl::Status st = ctx->allocate_output(0, TensorShape(), &out);
      !st.ok()) {
    return st;
  }
  if (!s.SerializeToString(out->data<std::string>())) {
    return absl::InternalError("could not serialize the Summary");
  }
  return absl::OkStatus();
}

}  // namespace summary_util
}  // namespace dflow
