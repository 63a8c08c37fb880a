// JPEG decoding and encoding in memory on libjpeg-turbo (see
// image_ops_codec_io.h), with TensorFlow's choices: IFAST DCT unless asked
// for INTEGER_ACCURATE, CMYK/YCCK files converted to RGB (Adobe's inverted
// CMYK when the file has an Adobe marker), a truncated file read up to a
// fake end-of-image marker only with try_recover_truncated (and then the
// missing rows copied from the last one read), crops through libjpeg's own
// jpeg_crop_scanline / jpeg_skip_scanlines so the pixels are the ones a
// full decode gives.
//
// libjpeg reports fatal errors by calling error_exit, which must not
// return: it longjmps back to the setjmp in the function that started the
// work. Those functions keep their state in structs reached through
// pointers (not in locals changed after setjmp) and own no C++ objects
// between setjmp and the library calls.
#include <algorithm>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>
// ERREXIT / WARNMS and the message codes, after jpeglib.h.
#include <jerror.h>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/image_ops_codec_io.h"

namespace dflow {
namespace codec_io {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void ErrorExit(j_common_ptr cinfo) {
  ErrorManager* e = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  longjmp(e->jump, 1);
}

// Warnings (corrupt data libjpeg works around) are counted, not printed.
void OutputMessage(j_common_ptr) {}

void InstallErrorManager(ErrorManager* e) {
  jpeg_std_error(&e->pub);
  e->pub.error_exit = ErrorExit;
  e->pub.output_message = OutputMessage;
  e->message[0] = '\0';
}

// A source over a memory buffer. When the data runs out: an error, or
// with `recover` once a fake end-of-image marker (as TensorFlow's
// jpeg_handle.cc), so libjpeg finishes the image with what it has.
struct MemorySource {
  jpeg_source_mgr pub;  // first
  const JOCTET* data;
  size_t size;
  bool recover;
  bool eoi_inserted;  // the fake end marker was handed out once already
  const JOCTET* stuck_at;  // where a refill with data left last returned
  uint64_t stuck_calls;    // how many refills in a row returned there
};

const JOCTET kFakeEoi[2] = {0xFF, JPEG_EOI};

void InitSource(j_decompress_ptr cinfo) {
  MemorySource* src = reinterpret_cast<MemorySource*>(cinfo->src);
  src->pub.next_input_byte = src->data;
  src->pub.bytes_in_buffer = src->size;
}

boolean FillInputBuffer(j_decompress_ptr cinfo) {
  MemorySource* src = reinterpret_cast<MemorySource*>(cinfo->src);
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY);
    return FALSE;
  }
  // Asked to refill with data left: only a corrupt stream does that.
  // TensorFlow then answers "go on" every time. The decoder may ask again
  // from the same place while it still makes progress (once per block at
  // most), but some corrupt progressive files make it ask forever (and
  // TensorFlow hang): more calls without progress than the image has
  // blocks is an error here.
  if (src->pub.bytes_in_buffer > 0) {
    if (!src->recover) return FALSE;
    if (src->stuck_at != src->pub.next_input_byte) {
      src->stuck_at = src->pub.next_input_byte;
      src->stuck_calls = 0;
    }
    const uint64_t blocks = (uint64_t{cinfo->image_width} / 8 + 1) *
                            (uint64_t{cinfo->image_height} / 8 + 1) *
                            std::max(cinfo->num_components, 1);
    if (++src->stuck_calls > 64 + 4 * blocks) {
      ERREXIT(cinfo, JERR_FILE_READ);
      return FALSE;
    }
    return TRUE;
  }
  // Once only: TensorFlow compares the read position with its marker's
  // start, which a consumed marker has passed, so a decoder that keeps
  // asking would get end markers forever.
  if (src->recover && !src->eoi_inserted) {
    src->eoi_inserted = true;
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = kFakeEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_FILE_READ);
  return FALSE;
}

void SkipInputData(j_decompress_ptr cinfo, long count) {  // NOLINT(runtime/int)
  MemorySource* src = reinterpret_cast<MemorySource*>(cinfo->src);
  if (count <= 0) return;
  if (static_cast<size_t>(count) > src->pub.bytes_in_buffer) {
    src->pub.bytes_in_buffer = 0;
    FillInputBuffer(cinfo);
  } else {
    src->pub.bytes_in_buffer -= count;
    src->pub.next_input_byte += count;
  }
}

void TermSource(j_decompress_ptr) {}

void SetSource(j_decompress_ptr cinfo, MemorySource* src,
               absl::string_view data, bool recover) {
  src->pub.init_source = InitSource;
  src->pub.fill_input_buffer = FillInputBuffer;
  src->pub.skip_input_data = SkipInputData;
  src->pub.resync_to_restart = jpeg_resync_to_restart;
  src->pub.term_source = TermSource;
  src->pub.bytes_in_buffer = 0;
  src->pub.next_input_byte = nullptr;
  src->data = reinterpret_cast<const JOCTET*>(data.data());
  src->size = data.size();
  src->recover = recover;
  src->eoi_inserted = false;
  src->stuck_at = nullptr;
  src->stuck_calls = 0;
  cinfo->src = &src->pub;
}

// Everything JpegDecode's setjmp frame changes, kept in memory.
struct DecodeState {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  MemorySource src;
  std::vector<JSAMPLE> row;  // sized before setjmp's frame runs
  uint8_t* out = nullptr;
  int height = 0;       // rows wanted
  int rows_read = 0;    // rows decoded before a premature end
  int stride = 0;
  bool created = false;
  std::string error;
};

// The decode proper; returns false on a libjpeg error (longjmp) or a bad
// request. Only plain data lives in this frame.
bool DecodeInto(DecodeState* s, absl::string_view data,
                const JpegDecodeFlags& flags, const Allocate& allocate) {
  jpeg_decompress_struct* cinfo = &s->cinfo;
  InstallErrorManager(&s->err);
  cinfo->err = &s->err.pub;
  if (setjmp(s->err.jump)) {
    s->error = s->err.message;
    return false;
  }
  jpeg_create_decompress(cinfo);
  s->created = true;
  SetSource(cinfo, &s->src, data, flags.try_recover_truncated);
  jpeg_read_header(cinfo, TRUE);
  int components = flags.components;
  if (components == 0) components = std::min(cinfo->num_components, 3);
  const bool cmyk = components == 3 && (cinfo->jpeg_color_space == JCS_CMYK ||
                                        cinfo->jpeg_color_space == JCS_YCCK);
  cinfo->out_color_space =
      components == 1 ? JCS_GRAYSCALE : (cmyk ? JCS_CMYK : JCS_RGB);
  cinfo->do_fancy_upsampling = flags.fancy_upscaling ? TRUE : FALSE;
  cinfo->scale_num = 1;
  cinfo->scale_denom = flags.ratio;
  cinfo->dct_method = flags.integer_accurate ? JDCT_ISLOW : JDCT_IFAST;
  jpeg_calc_output_dimensions(cinfo);
  const int64_t total = int64_t{cinfo->output_height} * cinfo->output_width *
                        cinfo->num_components;
  if (cinfo->output_width == 0 || cinfo->output_height == 0) {
    s->error = "the image is empty";
    return false;
  }
  if (total >= (int64_t{1} << 29)) {
    s->error = absl::StrCat("the image (", total, " samples) is too large");
    return false;
  }
  jpeg_start_decompress(cinfo);
  JDIMENSION width = cinfo->output_width;
  JDIMENSION height = cinfo->output_height;
  JDIMENSION skipped = 0;
  if (flags.crop) {
    if (flags.crop_width <= 0 || flags.crop_height <= 0 || flags.crop_x < 0 ||
        flags.crop_y < 0 ||
        int64_t{flags.crop_y} + flags.crop_height > cinfo->output_height ||
        int64_t{flags.crop_x} + flags.crop_width > cinfo->output_width) {
      s->error = absl::StrCat("crop window [y ", flags.crop_y, ", x ",
                              flags.crop_x, ", height ", flags.crop_height,
                              ", width ", flags.crop_width,
                              "] does not fit in the ", cinfo->output_height,
                              "x", cinfo->output_width, " image");
      return false;
    }
    height = flags.crop_height;
    width = flags.crop_width;
    // The decoded columns start at an iMCU boundary at or left of crop_x.
    JDIMENSION x = flags.crop_x, w = flags.crop_width;
    jpeg_crop_scanline(cinfo, &x, &w);
    skipped = jpeg_skip_scanlines(cinfo, flags.crop_y);
    if (skipped != static_cast<JDIMENSION>(flags.crop_y)) {
      s->error = "could not skip to the crop window's first row";
      return false;
    }
  }
  s->stride = static_cast<int>(width) * components;
  s->height = static_cast<int>(height);
  s->out = allocate(1, static_cast<int>(height), static_cast<int>(width),
                    components);
  if (s->out == nullptr) return false;
  const bool realign = width != cinfo->output_width;
  const int samples = cmyk ? 4 : components;
  // Where the crop's first column sits in a decoded row.
  const int offset =
      static_cast<int>(cinfo->output_width - width) * samples;
  JSAMPLE* temp = s->row.data();
  s->rows_read = static_cast<int>(height);
  uint8_t* line = s->out;
  const JDIMENSION last = skipped + height;
  while (cinfo->output_scanline < last) {
    JSAMPLE* target = (cmyk || realign) ? temp : line;
    const int got = jpeg_read_scanlines(cinfo, &target, 1);
    if (got == 0) {
      if (!flags.try_recover_truncated) {
        s->rows_read = static_cast<int>(cinfo->output_scanline - skipped);
        jpeg_abort(reinterpret_cast<j_common_ptr>(cinfo));
        return true;
      }
      // Missing rows repeat the last row read (black if none was).
      for (JDIMENSION r = cinfo->output_scanline; r < last; ++r) {
        if (r == skipped) {
          std::memset(line, 0, s->stride);
        } else {
          std::memcpy(line, line - s->stride, s->stride);
        }
        line += s->stride;
      }
      cinfo->output_scanline = last;
      break;
    }
    if (cmyk) {
      const int base = realign ? offset : 0;
      for (JDIMENSION i = 0; i < width; ++i) {
        const int c = temp[base + 4 * i], m = temp[base + 4 * i + 1],
                  y = temp[base + 4 * i + 2], k = temp[base + 4 * i + 3];
        if (cinfo->saw_Adobe_marker) {
          line[3 * i] = static_cast<uint8_t>(k * c / 255);
          line[3 * i + 1] = static_cast<uint8_t>(k * m / 255);
          line[3 * i + 2] = static_cast<uint8_t>(k * y / 255);
        } else {
          line[3 * i] = static_cast<uint8_t>((255 - k) * (255 - c) / 255);
          line[3 * i + 1] = static_cast<uint8_t>((255 - k) * (255 - m) / 255);
          line[3 * i + 2] = static_cast<uint8_t>((255 - k) * (255 - y) / 255);
        }
      }
    } else if (realign) {
      std::memcpy(line, temp + offset, s->stride);
    }
    line += s->stride;
  }
  if (flags.crop && cinfo->output_scanline < cinfo->output_height) {
    jpeg_skip_scanlines(cinfo, cinfo->output_height - cinfo->output_scanline);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

}  // namespace

bool JpegDecode(absl::string_view data, const JpegDecodeFlags& flags,
                const Allocate& allocate, std::string* error) {
  if (flags.ratio != 1 && flags.ratio != 2 && flags.ratio != 4 &&
      flags.ratio != 8) {
    *error = absl::StrCat("ratio ", flags.ratio, " must be 1, 2, 4 or 8");
    return false;
  }
  if (flags.components != 0 && flags.components != 1 &&
      flags.components != 3) {
    *error = "JPEG images have 1 or 3 channels";
    return false;
  }
  if (data.empty()) {
    *error = "the file is empty";
    return false;
  }
  DecodeState s;
  // A row of the widest the file may decode to (CMYK samples), so the
  // setjmp frame never resizes a vector: the header is read first by a
  // pass of its own.
  {
    int h = 0, w = 0, c = 0;
    std::string header_error;
    if (!JpegShape(data, &h, &w, &c, &header_error)) {
      *error = header_error;
      return false;
    }
    s.row.resize(static_cast<size_t>(std::max(w, 1)) * 4);
  }
  const bool ok = DecodeInto(&s, data, flags, allocate);
  if (s.created) jpeg_destroy_decompress(&s.cinfo);
  if (!ok) {
    *error = s.error.empty() ? "the decoder stopped" : s.error;
    return false;
  }
  const float fraction =
      s.height == 0 ? 1.0f : static_cast<float>(s.rows_read) / s.height;
  if (fraction < std::min(1.0f, flags.min_acceptable_fraction)) {
    *error = absl::StrCat("only ", s.rows_read, " of ", s.height,
                          " rows could be read (acceptable_fraction ",
                          flags.min_acceptable_fraction, ")");
    return false;
  }
  if (s.rows_read < s.height) {
    std::memset(s.out + int64_t{s.rows_read} * s.stride, 0,
                int64_t{s.height - s.rows_read} * s.stride);
  }
  return true;
}

namespace {

struct ShapeState {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  MemorySource src;
  bool created = false;
};

bool ReadShape(ShapeState* s, absl::string_view data, int* height, int* width,
               int* components) {
  s->cinfo.err = &s->err.pub;
  InstallErrorManager(&s->err);
  if (setjmp(s->err.jump)) return false;
  jpeg_create_decompress(&s->cinfo);
  s->created = true;
  SetSource(&s->cinfo, &s->src, data, false);
  jpeg_read_header(&s->cinfo, TRUE);
  // start_decompress settles the output size and components.
  jpeg_calc_output_dimensions(&s->cinfo);
  *height = static_cast<int>(s->cinfo.output_height);
  *width = static_cast<int>(s->cinfo.output_width);
  *components = s->cinfo.output_components;
  return true;
}

}  // namespace

bool JpegShape(absl::string_view data, int* height, int* width,
               int* components, std::string* error) {
  *height = *width = *components = 0;
  if (data.empty()) {
    *error = "the file is empty";
    return false;
  }
  ShapeState s;
  const bool ok = ReadShape(&s, data, height, width, components);
  if (s.created) jpeg_destroy_decompress(&s.cinfo);
  if (!ok) *error = s.err.message;
  return ok;
}

namespace {

struct EncodeState {
  jpeg_compress_struct cinfo;
  ErrorManager err;
  unsigned char* buffer = nullptr;  // jpeg_mem_dest's, freed by the caller
  unsigned long size = 0;           // NOLINT(runtime/int): libjpeg's type
  bool created = false;
};

bool EncodeInto(EncodeState* s, const uint8_t* pixels, int height, int width,
                const JpegEncodeFlags& flags) {
  jpeg_compress_struct* cinfo = &s->cinfo;
  cinfo->err = &s->err.pub;
  InstallErrorManager(&s->err);
  if (setjmp(s->err.jump)) return false;
  jpeg_create_compress(cinfo);
  s->created = true;
  jpeg_mem_dest(cinfo, &s->buffer, &s->size);
  cinfo->image_width = width;
  cinfo->image_height = height;
  cinfo->input_components = flags.components;
  cinfo->in_color_space = flags.components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  if (flags.optimize_size) cinfo->optimize_coding = TRUE;
  cinfo->density_unit = static_cast<UINT8>(flags.density_unit);
  cinfo->X_density = static_cast<UINT16>(flags.x_density);
  cinfo->Y_density = static_cast<UINT16>(flags.y_density);
  jpeg_set_quality(cinfo, flags.quality, TRUE);
  if (flags.progressive) jpeg_simple_progression(cinfo);
  if (!flags.chroma_downsampling) {
    for (int i = 0; i < cinfo->num_components; ++i) {
      cinfo->comp_info[i].h_samp_factor = 1;
      cinfo->comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(cinfo, TRUE);
  if (!flags.xmp_metadata.empty()) {
    // An XMP packet: its namespace, a NUL, then the metadata (APP1).
    static const char kXmpNamespace[] = "http://ns.adobe.com/xap/1.0/";
    std::string packet(kXmpNamespace, sizeof(kXmpNamespace));
    packet += flags.xmp_metadata;
    jpeg_write_marker(cinfo, JPEG_APP0 + 1,
                      reinterpret_cast<const JOCTET*>(packet.data()),
                      static_cast<unsigned int>(packet.size()));
  }
  const int stride = width * flags.components;
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(pixels + int64_t{cinfo->next_scanline} *
                                                     stride);
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  return true;
}

}  // namespace

bool JpegEncode(const uint8_t* pixels, int height, int width,
                const JpegEncodeFlags& flags, std::string* out,
                std::string* error) {
  if (height <= 0 || width <= 0) {
    *error = absl::StrCat("cannot encode an empty ", height, "x", width,
                          " image");
    return false;
  }
  if (int64_t{height} * width >= (int64_t{1} << 29)) {
    *error = "the image is too large";
    return false;
  }
  EncodeState s;
  const bool ok = EncodeInto(&s, pixels, height, width, flags);
  if (ok) out->assign(reinterpret_cast<const char*>(s.buffer), s.size);
  if (!ok) *error = s.err.message;
  if (s.created) jpeg_destroy_compress(&s.cinfo);
  free(s.buffer);
  return ok;
}

}  // namespace codec_io
}  // namespace dflow
