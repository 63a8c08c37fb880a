// PNG decoding and encoding in memory on libpng 1.6 (see
// image_ops_codec_io.h), with the transformations TensorFlow's
// core/lib/png/png_io.cc asks libpng for, in the same order, so libpng
// computes the same samples: alpha from tRNS or added opaque or stripped,
// 16-bit samples cut to 8 (or 8-bit ones widened by repeating the byte),
// sub-byte samples unpacked, palettes expanded, gray widened to RGB or RGB
// reduced to gray with weights 0.299 / 0.587 (libpng's fixed-point
// arithmetic), interlaced files read in all their passes.
//
// libpng reports errors through a handler that must not return; it
// longjmps to png_jmpbuf. The functions doing so keep their state in
// structs reached through pointers.
#include <png.h>
#include <zlib.h>

#include <csetjmp>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/image_ops_codec_io.h"

namespace dflow {
namespace codec_io {
namespace {

struct PngReader {
  const uint8_t* data = nullptr;
  size_t left = 0;
  char message[256] = {0};
};

void OnError(png_structp png, png_const_charp msg) {
  PngReader* r = static_cast<PngReader*>(png_get_error_ptr(png));
  if (r != nullptr) std::snprintf(r->message, sizeof(r->message), "%s", msg);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}

void Read(png_structp png, png_bytep out, png_size_t length) {
  PngReader* r = static_cast<PngReader*>(png_get_io_ptr(png));
  if (r->left < length) {
    png_error(png, "the file ends early (more bytes asked for than are left)");
  }
  std::memcpy(out, r->data, length);
  r->data += length;
  r->left -= length;
}

struct DecodeState {
  PngReader reader;
  png_structp png = nullptr;
  png_infop info = nullptr;
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, channels = 0, passes = 1;
  bool widen_to_16 = false;
  uint8_t* out = nullptr;
};

bool DecodeInto(DecodeState* s, int channels, int bits,
                const Allocate& allocate, std::string* error) {
  if (setjmp(png_jmpbuf(s->png))) {
    *error = s->reader.message;
    return false;
  }
  png_set_read_fn(s->png, &s->reader, Read);
  png_read_info(s->png, s->info);
  png_get_IHDR(s->png, s->info, &s->width, &s->height, &s->bit_depth,
               &s->color_type, nullptr, nullptr, nullptr);
  if (s->width == 0 || s->height == 0 || s->width >= (1u << 27) ||
      s->height >= (1u << 27) ||
      uint64_t{s->width} * s->height >= (uint64_t{1} << 29)) {
    *error = absl::StrCat("the image size ", s->height, "x", s->width,
                          " is empty or too large");
    return false;
  }
  const bool trns = png_get_valid(s->png, s->info, PNG_INFO_tRNS) != 0;
  s->channels = channels;
  if (s->channels == 0) {
    s->channels = s->color_type == PNG_COLOR_TYPE_PALETTE
                      ? (trns ? 4 : 3)
                      : png_get_channels(s->png, s->info);
  }
  const bool has_alpha = (s->color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (s->channels % 2 == 0) {  // alpha wanted
    if (!has_alpha) {
      if (trns) {
        png_set_tRNS_to_alpha(s->png);
      } else {
        png_set_add_alpha(s->png, (1u << s->bit_depth) - 1, PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || trns) {
    png_set_strip_alpha(s->png);
  }
  if (s->bit_depth > 8 && bits <= 8) png_set_strip_16(s->png);
  s->widen_to_16 = s->bit_depth <= 8 && bits == 16;
  png_set_packing(s->png);
  s->passes = png_set_interlace_handling(s->png);
  // 16-bit samples in the machine's order (PNG stores them big-endian).
  const uint16_t probe = 1;
  if (bits > 8 && *reinterpret_cast<const uint8_t*>(&probe) == 1) {
    png_set_swap(s->png);
  }
  if (s->color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s->png);
  const bool is_gray = (s->color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && s->bit_depth < 8) png_set_expand_gray_1_2_4_to_8(s->png);
  if (s->channels < 3) {
    if (!is_gray) png_set_rgb_to_gray(s->png, 1, 0.299, 0.587);
  } else if (is_gray) {
    png_set_gray_to_rgb(s->png);
  }
  png_read_update_info(s->png, s->info);
  s->out = allocate(1, static_cast<int>(s->height), static_cast<int>(s->width),
                    s->channels);
  if (s->out == nullptr) return false;
  const size_t row_bytes = size_t{s->width} * s->channels * (bits / 8);
  for (int p = 0; p < s->passes; ++p) {
    png_bytep row = s->out;
    for (png_uint_32 h = 0; h < s->height; ++h, row += row_bytes) {
      png_read_row(s->png, row, nullptr);
    }
  }
  png_read_end(s->png, s->info);
  return true;
}

}  // namespace

bool PngDecode(absl::string_view data, int channels, int bits,
               const Allocate& allocate, std::string* error) {
  if (channels < 0 || channels > 4 || (bits != 8 && bits != 16)) {
    *error = "PNG images have 0 to 4 channels of 8 or 16 bits";
    return false;
  }
  DecodeState s;
  s.reader.data = reinterpret_cast<const uint8_t*>(data.data());
  s.reader.left = data.size();
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s.reader, OnError,
                                 OnWarning);
  if (s.png == nullptr) {
    *error = "libpng could not start";
    return false;
  }
  s.info = png_create_info_struct(s.png);
  bool ok = s.info != nullptr;
  if (ok) {
    ok = DecodeInto(&s, channels, bits, allocate, error);
  } else {
    *error = "libpng could not start";
  }
  png_destroy_read_struct(&s.png, s.info ? &s.info : nullptr, nullptr);
  if (!ok) return false;
  if (s.widen_to_16) {
    // Each row's 8-bit samples fill the first half of its 16-bit row;
    // widened back to front in place (v -> v * 257).
    const int64_t n = int64_t{s.width} * s.channels;
    for (int64_t r = 0; r < s.height; ++r) {
      uint8_t* narrow = s.out + r * n * 2;
      uint16_t* wide = reinterpret_cast<uint16_t*>(narrow);
      for (int64_t i = n - 1; i >= 0; --i) {
        const uint16_t v = narrow[i];
        wide[i] = static_cast<uint16_t>(v | (v << 8));
      }
    }
  }
  return true;
}

namespace {

void Write(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))
      ->append(reinterpret_cast<const char*>(data), length);
}

void Flush(png_structp) {}

struct EncodeState {
  PngReader errors;  // only its message
  png_structp png = nullptr;
  png_infop info = nullptr;
};

bool EncodeInto(EncodeState* s, const void* pixels, int height, int width,
                int channels, int bits, int compression, std::string* out) {
  if (setjmp(png_jmpbuf(s->png))) return false;
  static const int kColorTypes[] = {PNG_COLOR_TYPE_GRAY,
                                    PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB,
                                    PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(s->png, out, Write, Flush);
  png_set_compression_level(s->png,
                            compression < 0 ? Z_DEFAULT_COMPRESSION : compression);
  png_set_compression_mem_level(s->png, MAX_MEM_LEVEL);
  png_set_IHDR(s->png, s->info, width, height, bits, kColorTypes[channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(s->png, s->info);
  const uint16_t probe = 1;
  if (bits > 8 && *reinterpret_cast<const uint8_t*>(&probe) == 1) {
    png_set_swap(s->png);
  }
  const size_t row_bytes = size_t(width) * channels * (bits / 8);
  const png_byte* row = static_cast<const png_byte*>(pixels);
  for (int h = 0; h < height; ++h, row += row_bytes) {
    png_write_row(s->png, row);
  }
  png_write_end(s->png, nullptr);
  return true;
}

}  // namespace

bool PngEncode(const void* pixels, int height, int width, int channels,
               int bits, int compression, std::string* out,
               std::string* error) {
  if (height <= 0 || width <= 0) {
    *error = absl::StrCat("cannot encode an empty ", height, "x", width,
                          " image");
    return false;
  }
  if (channels < 1 || channels > 4 || (bits != 8 && bits != 16)) {
    *error = "PNG images have 1 to 4 channels of 8 or 16 bits";
    return false;
  }
  out->clear();
  EncodeState s;
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s.errors, OnError,
                                  OnWarning);
  if (s.png == nullptr) {
    *error = "libpng could not start";
    return false;
  }
  s.info = png_create_info_struct(s.png);
  const bool ok =
      s.info != nullptr &&
      EncodeInto(&s, pixels, height, width, channels, bits, compression, out);
  png_destroy_write_struct(&s.png, s.info ? &s.info : nullptr);
  if (!ok) *error = absl::StrCat("PNG encoding failed: ", s.errors.message);
  return ok;
}

}  // namespace codec_io
}  // namespace dflow
