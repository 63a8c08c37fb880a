// DecodeWav and EncodeWav on the CPU: 16-bit little-endian PCM WAV files,
// read and written as TensorFlow 2.21's wav_io does, so the same files
// decode to the same samples and the same samples encode to the same bytes:
//   - decoding accepts RIFF/WAVE with a "fmt " chunk of 16 or 18 bytes
//     (padding chunks JUNK, bext, iXML, qlty, mext, levl, link and axml may
//     come before it), PCM format 1, 16 bits, a consistent block align and
//     byte rate, and exactly one "data" chunk (other chunks after the
//     format are skipped); samples become s / 32768;
//   - encoding writes the 44-byte canonical header and round(x * 32768)
//     clamped to [-32768, 32767] (NaN becomes 0).
// A file that breaks these rules is an InvalidArgument error that says
// where (the node and op are added by the executor).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// A bounds-checked little-endian reader over the file's bytes.
class WavReader {
 public:
  explicit WavReader(absl::string_view data) : data_(data) {}

  int64_t offset() const { return offset_; }
  bool AtEnd() const { return offset_ >= static_cast<int64_t>(data_.size()); }

  absl::Status Skip(int64_t n, absl::string_view what) {
    if (n > Remaining()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "malformed WAV: the file ends inside ", what, " (", n,
          " bytes needed at offset ", offset_, ", ", Remaining(), " left)"));
    }
    offset_ += n;
    return absl::OkStatus();
  }
  absl::Status Text(std::string* out, absl::string_view what) {
    const int64_t at = offset_;
    if (absl::Status s = Skip(4, what); !s.ok()) return s;
    *out = std::string(data_.substr(at, 4));
    return absl::OkStatus();
  }
  absl::Status Expect(absl::string_view text, absl::string_view what) {
    std::string found;
    if (absl::Status s = Text(&found, what); !s.ok()) return s;
    if (found != text) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed WAV: expected '", text, "' (", what,
                       ") but found '", absl::CEscape(found), "'"));
    }
    return absl::OkStatus();
  }
  template <typename T>
  absl::Status Read(T* out, absl::string_view what) {
    const int64_t at = offset_;
    if (absl::Status s = Skip(sizeof(T), what); !s.ok()) return s;
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      v |= uint64_t{static_cast<uint8_t>(data_[at + i])} << (8 * i);
    }
    *out = static_cast<T>(v);
    return absl::OkStatus();
  }

 private:
  int64_t Remaining() const {
    return static_cast<int64_t>(data_.size()) - offset_;
  }

  absl::string_view data_;
  int64_t offset_ = 0;
};

struct DecodedWav {
  std::vector<float> samples;  // interleaved, frames * channels
  int64_t frames = 0;
  int channels = 0;
  uint32_t sample_rate = 0;
};

absl::Status DecodeWavFile(absl::string_view data, DecodedWav* wav) {
  WavReader r(data);
  uint32_t riff_size = 0;
  if (absl::Status s = r.Expect("RIFF", "the RIFF chunk id"); !s.ok()) {
    return s;
  }
  if (absl::Status s = r.Read(&riff_size, "the RIFF size"); !s.ok()) return s;
  if (absl::Status s = r.Expect("WAVE", "the RIFF type"); !s.ok()) return s;
  std::string id;
  if (absl::Status s = r.Text(&id, "a chunk id"); !s.ok()) return s;
  // Padding and metadata chunks may precede the format chunk.
  static constexpr absl::string_view kSkippable[] = {
      "JUNK", "bext", "iXML", "qlty", "mext", "levl", "link", "axml"};
  while (id != "fmt ") {
    if (std::find(std::begin(kSkippable), std::end(kSkippable), id) ==
        std::end(kSkippable)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "malformed WAV: unexpected chunk '", absl::CEscape(id),
          "' before the 'fmt ' chunk (offset ", r.offset() - 4, ")"));
    }
    uint32_t size = 0;
    if (absl::Status s = r.Read(&size, "a chunk size"); !s.ok()) return s;
    if (absl::Status s = r.Skip(size, absl::StrCat("chunk '", id, "'"));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = r.Text(&id, "a chunk id"); !s.ok()) return s;
  }
  uint32_t format_size = 0, byte_rate = 0;
  uint16_t format = 0, channels = 0, block_align = 0, bits = 0;
  if (absl::Status s = r.Read(&format_size, "the format chunk size");
      !s.ok()) {
    return s;
  }
  if (format_size != 16 && format_size != 18) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed WAV: the format chunk has ", format_size,
        " bytes; expected 16 or 18"));
  }
  if (absl::Status s = r.Read(&format, "the audio format"); !s.ok()) return s;
  if (format != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported WAV: audio format ", format,
                     "; only PCM (format 1) can be decoded"));
  }
  if (absl::Status s = r.Read(&channels, "the channel count"); !s.ok()) {
    return s;
  }
  if (channels < 1) {
    return absl::InvalidArgumentError(
        "malformed WAV: the channel count is 0; expected at least 1");
  }
  if (absl::Status s = r.Read(&wav->sample_rate, "the sample rate"); !s.ok()) {
    return s;
  }
  if (absl::Status s = r.Read(&byte_rate, "the byte rate"); !s.ok()) return s;
  if (absl::Status s = r.Read(&block_align, "the block align"); !s.ok()) {
    return s;
  }
  if (absl::Status s = r.Read(&bits, "the bits per sample"); !s.ok()) return s;
  if (bits != 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unsupported WAV: ", bits,
        " bits per sample; only 16-bit files can be decoded"));
  }
  const uint32_t expected_align = (16u * channels + 7) / 8;
  if (block_align != expected_align) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed WAV: block align ", block_align, " but ", channels,
        " channels of 16 bits need ", expected_align));
  }
  const uint64_t expected_rate = uint64_t{block_align} * wav->sample_rate;
  if (byte_rate != expected_rate) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed WAV: byte rate ", byte_rate, " but sample rate ",
        wav->sample_rate, " times block align ", block_align, " is ",
        expected_rate));
  }
  // The 18-byte form's extension size, unused for PCM. (TensorFlow skips
  // it without a bounds check; a file ending here then has no data chunk.)
  if (format_size == 18 && !r.AtEnd()) {
    if (absl::Status s = r.Skip(std::min<int64_t>(2, data.size() - r.offset()),
                                "the format extension");
        !s.ok()) {
      return s;
    }
  }
  bool found_data = false;
  while (!r.AtEnd()) {
    uint32_t size = 0;
    if (absl::Status s = r.Text(&id, "a chunk id"); !s.ok()) return s;
    if (absl::Status s = r.Read(&size, "a chunk size"); !s.ok()) return s;
    if (size > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed WAV: chunk '", absl::CEscape(id), "' has ",
                       size, " bytes, more than 2^31 - 1"));
    }
    if (id != "data") {
      // Other chunks are skipped even when they run past the end (the loop
      // then stops), as TensorFlow does.
      const int64_t next = r.offset() + size;
      (void)r.Skip(std::min<int64_t>(size, data.size() - r.offset()),
                   "a chunk");
      if (next > r.offset()) break;
      continue;
    }
    if (found_data) {
      return absl::InvalidArgumentError(
          "malformed WAV: more than one 'data' chunk");
    }
    found_data = true;
    wav->channels = channels;
    wav->frames = size / block_align;
    const int64_t count = wav->frames * channels;
    const int64_t at = r.offset();
    if (absl::Status s = r.Skip(2 * count, "the 'data' chunk"); !s.ok()) {
      return s;
    }
    wav->samples.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      const uint16_t bits16 =
          static_cast<uint16_t>(static_cast<uint8_t>(data[at + 2 * i])) |
          static_cast<uint16_t>(static_cast<uint8_t>(data[at + 2 * i + 1]))
              << 8;
      wav->samples[i] = static_cast<int16_t>(bits16) * (1.0f / 32768);
    }
  }
  if (!found_data) {
    return absl::InvalidArgumentError("malformed WAV: no 'data' chunk");
  }
  return absl::OkStatus();
}

class DecodeWavOp : public OpKernel {
 public:
  explicit DecodeWavOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("desired_channels", &desired_channels_));
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("desired_samples", &desired_samples_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    OP_REQUIRES(ctx, contents.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "contents must be a scalar (one WAV file), got shape ",
                    contents.shape().ToString())));
    const std::string& file = contents.data<std::string>()[0];
    OP_REQUIRES(ctx, file.size() <= std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError(absl::StrCat(
                    "WAV contents are too large: ", file.size(), " bytes")));
    DecodedWav wav;
    OP_REQUIRES_OK(ctx, DecodeWavFile(file, &wav));
    OP_REQUIRES(ctx, desired_channels_ >= -1,
                absl::InvalidArgumentError(absl::StrCat(
                    "desired_channels must be >= -1, got ", desired_channels_)));
    OP_REQUIRES(ctx, desired_samples_ >= -1,
                absl::InvalidArgumentError(absl::StrCat(
                    "desired_samples must be >= -1, got ", desired_samples_)));
    const int64_t frames =
        desired_samples_ == -1 ? wav.frames : desired_samples_;
    const int64_t channels =
        desired_channels_ == -1 ? wav.channels : desired_channels_;
    Tensor* audio = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({frames, channels}),
                                        &audio));
    float* o = audio->data<float>();
    for (int64_t t = 0; t < frames; ++t) {
      for (int64_t c = 0; c < channels; ++c) {
        // Missing samples are silence; missing channels repeat the last.
        o[t * channels + c] =
            t < wav.frames
                ? wav.samples[t * wav.channels +
                              std::min<int64_t>(c, wav.channels - 1)]
                : 0.0f;
      }
    }
    Tensor* rate = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({}), &rate));
    rate->data<int32_t>()[0] = static_cast<int32_t>(wav.sample_rate);
  }

 private:
  int64_t desired_channels_ = -1;
  int64_t desired_samples_ = -1;
};

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

int16_t ToPcm16(float x) {
  if (std::isnan(x)) return 0;
  const float scaled = std::round(x * 32768.0f);
  return static_cast<int16_t>(std::min(std::max(scaled, -32768.0f), 32767.0f));
}

class EncodeWavOp : public OpKernel {
 public:
  explicit EncodeWavOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& audio = ctx->input(0);
    const Tensor& rate = ctx->input(1);
    OP_REQUIRES(ctx, audio.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "audio must be 2-dimensional [samples, channels], got ",
                    audio.shape().ToString())));
    OP_REQUIRES(ctx, rate.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "sample_rate must be a scalar, got shape ",
                    rate.shape().ToString())));
    OP_REQUIRES(ctx,
                audio.NumElements() < std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError(
                    "Cannot encode audio with >= max int32 elements"));
    const int32_t sample_rate = rate.data<int32_t>()[0];
    const int64_t frames = audio.shape().dim(0);
    const int64_t channels = audio.shape().dim(1);
    OP_REQUIRES(ctx, sample_rate > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "sample_rate must be in (0, 2^31), got ", sample_rate)));
    OP_REQUIRES(ctx, channels > 0 && channels < 65536,
                absl::InvalidArgumentError(absl::StrCat(
                    "the channel count (audio's dimension 1) must be in "
                    "(0, 2^16), got ",
                    channels)));
    constexpr int64_t kHeader = 44;
    const int64_t data_size = 2 * frames * channels;
    OP_REQUIRES(
        ctx, kHeader + data_size <= std::numeric_limits<uint32_t>::max(),
        absl::InvalidArgumentError(
            "Provided channels and frames cannot be encoded as a WAV "
            "(over 4 GiB)"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    std::string& file = out->data<std::string>()[0];
    file.clear();
    file.reserve(kHeader + data_size);
    file += "RIFF";
    PutLe(&file, kHeader + data_size - 8, 4);
    file += "WAVEfmt ";
    PutLe(&file, 16, 4);                                  // format size
    PutLe(&file, 1, 2);                                   // PCM
    PutLe(&file, channels, 2);
    PutLe(&file, sample_rate, 4);
    PutLe(&file, uint64_t{2} * channels * sample_rate, 4);  // byte rate
    PutLe(&file, 2 * channels, 2);                        // block align
    PutLe(&file, 16, 2);                                  // bits per sample
    file += "data";
    PutLe(&file, data_size, 4);
    const float* x = audio.data<float>();
    for (int64_t i = 0; i < frames * channels; ++i) {
      PutLe(&file, static_cast<uint16_t>(ToPcm16(x[i])), 2);
    }
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeWav").Device(kDeviceCpu),
                      DecodeWavOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("EncodeWav").Device(kDeviceCpu),
                      EncodeWavOp);

}  // namespace
}  // namespace dflow
