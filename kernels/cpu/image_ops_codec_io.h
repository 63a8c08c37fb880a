// JPEG, PNG and GIF in memory, on Debian's libjpeg-turbo, libpng and
// giflib, with the settings and conversions TensorFlow 2.21's image codec
// kernels use (core/lib/jpeg, core/lib/png, core/lib/gif), so a decoded
// image has TensorFlow's pixels. The kernels of image_ops_codecs.cc call
// these. Every function reports a bad file as a message, never by
// aborting: the libraries' fatal errors are caught (setjmp/longjmp in C
// frames that own no C++ objects).
#ifndef DFLOW_KERNELS_CPU_IMAGE_OPS_CODEC_IO_H_
#define DFLOW_KERNELS_CPU_IMAGE_OPS_CODEC_IO_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"

namespace dflow {
namespace codec_io {

// Gives the buffer for a decoded image (frames x height x width x
// channels bytes, or twice that for 16-bit samples), or null to stop
// (after recording why).
using Allocate =
    std::function<uint8_t*(int frames, int height, int width, int channels)>;

// --- JPEG. ---

struct JpegDecodeFlags {
  int components = 0;  // 0: the file's (CMYK becomes RGB), 1 or 3
  int ratio = 1;       // 1, 2, 4 or 8: the downscale libjpeg does
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float min_acceptable_fraction = 1.0f;
  bool integer_accurate = false;  // JDCT_ISLOW, else TF's JDCT_IFAST
  bool crop = false;
  int crop_y = 0, crop_x = 0, crop_height = 0, crop_width = 0;
};

// Decodes `data` into the buffer `allocate` gives (one frame); false with
// `error` set when the file is not a JPEG libjpeg can read, too much is
// missing, or the crop window does not fit.
bool JpegDecode(absl::string_view data, const JpegDecodeFlags& flags,
                const Allocate& allocate, std::string* error);

// The size libjpeg reports for the file: height, width and its output
// components (1 gray, 3 YCbCr/RGB, 4 CMYK).
bool JpegShape(absl::string_view data, int* height, int* width,
               int* components, std::string* error);

struct JpegEncodeFlags {
  int components = 3;  // 1 grayscale, 3 RGB
  int quality = 95;
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;  // 1 dots per inch, 2 per cm
  int x_density = 300, y_density = 300;
  std::string xmp_metadata;  // an APP1 XMP packet when not empty
};

bool JpegEncode(const uint8_t* pixels, int height, int width,
                const JpegEncodeFlags& flags, std::string* out,
                std::string* error);

// --- PNG. ---

// Reads the header and sets the conversions to `channels` (0: the file's;
// palettes to RGB(A); gray <-> RGB with TF's 0.299/0.587 weights; alpha
// added or dropped) at `bits` (8 or 16) per sample; then decodes into the
// buffer `allocate` gives (native-endian 16-bit samples).
bool PngDecode(absl::string_view data, int channels, int bits,
               const Allocate& allocate, std::string* error);

// `channels` 1-4 of `bits` 8 or 16 (native-endian); compression -1 (zlib's
// default) to 9.
bool PngEncode(const void* pixels, int height, int width, int channels,
               int bits, int compression, std::string* out,
               std::string* error);

// --- GIF. ---

// Every frame composed as TensorFlow does (each frame drawn over the
// previous one, transparent pixels keep it), RGB; with `first_only` only
// frame 0.
bool GifDecode(absl::string_view data, bool first_only,
               const Allocate& allocate, std::string* error);

}  // namespace codec_io
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_IMAGE_OPS_CODEC_IO_H_
