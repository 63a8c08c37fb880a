// GIF decoding in memory on giflib (see image_ops_codec_io.h), composed as
// TensorFlow's core/lib/gif/gif_io.cc does: the canvas is as large as the
// largest frame; each frame starts as a copy of the previous one (frame 0
// black where it does not reach), its pixels clipped to the canvas; the
// frame's transparent color index (from its graphics control block) keeps
// what is below. A file giflib reads only partly still decodes, except
// when no frame arrived whole (a frame cut short is left out).
#include <gif_lib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/image_ops_codec_io.h"

namespace dflow {
namespace codec_io {
namespace {

struct GifInput {
  const uint8_t* data;
  int left;
};

int ReadGif(GifFileType* gif, GifByteType* buf, int size) {
  GifInput* in = static_cast<GifInput*>(gif->UserData);
  if (in == nullptr) return 0;
  size = std::min(size, in->left);
  std::memcpy(buf, in->data, size);
  in->data += size;
  in->left -= size;
  return size;
}

const char* Reason(int code) {
  const char* s = GifErrorString(code);
  return s == nullptr ? "unknown error" : s;
}

// Composes the first `count` frames of `gif`.
bool Compose(GifFileType* gif, int count, bool first_only,
             const Allocate& allocate, std::string* error) {
  if (count <= 0) {
    *error = "the GIF file has no image";
    return false;
  }
  int width = 0, height = 0;
  for (int k = 0; k < count; ++k) {
    width = std::max(width, gif->SavedImages[k].ImageDesc.Width);
    height = std::max(height, gif->SavedImages[k].ImageDesc.Height);
  }
  if (width <= 0 || height <= 0) {
    *error = "the GIF file's frames are empty";
    return false;
  }
  const int frames = first_only ? 1 : count;
  uint8_t* out = allocate(frames, height, width, 3);
  if (out == nullptr) return false;
  const int64_t frame_size = int64_t{width} * height * 3;
  for (int k = 0; k < frames; ++k) {
    uint8_t* dst = out + k * frame_size;
    const SavedImage& image = gif->SavedImages[k];
    const GifImageDesc& desc = image.ImageDesc;
    GraphicsControlBlock gcb;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    DGifSavedExtensionToGCB(gif, k, &gcb);
    if (k > 0) std::memcpy(dst, dst - frame_size, frame_size);
    int left = desc.Left, top = desc.Top;
    int right = desc.Left + desc.Width, bottom = desc.Top + desc.Height;
    if (left != 0 || top != 0 || desc.Width != width ||
        desc.Height != height) {
      if (k == 0) std::memset(dst, 0, frame_size);
      left = std::max(left, 0);
      top = std::max(top, 0);
      right = std::min(right, width);
      bottom = std::min(bottom, height);
    }
    const ColorMapObject* map =
        desc.ColorMap != nullptr ? desc.ColorMap : gif->SColorMap;
    if (map == nullptr) {
      *error = absl::StrCat("frame ", k, " has no color map");
      return false;
    }
    if (image.RasterBits == nullptr) {
      *error = absl::StrCat("frame ", k, " has no pixels");
      return false;
    }
    for (int i = top; i < bottom; ++i) {
      uint8_t* row = dst + int64_t{i} * width * 3;
      for (int j = left; j < right; ++j) {
        const GifByteType index =
            image.RasterBits[int64_t{i - desc.Top} * desc.Width +
                             (j - desc.Left)];
        if (index == gcb.TransparentColor) {
          if (k == 0) std::memset(row + 3 * j, 0, 3);
          continue;
        }
        if (index >= map->ColorCount) {
          *error = absl::StrCat("color index ", index,
                                " is outside the color map of ",
                                map->ColorCount, " colors");
          return false;
        }
        row[3 * j] = map->Colors[index].Red;
        row[3 * j + 1] = map->Colors[index].Green;
        row[3 * j + 2] = map->Colors[index].Blue;
      }
    }
  }
  return true;
}

// giflib's DGifSlurp, except that it counts the frames read whole: a file
// cut inside a frame keeps the frames before it (as TensorFlow's giflib
// does), where DGifSlurp would keep the cut frame's unread pixels too.
// Each frame's extension blocks (its graphics control block) are attached
// once its pixels are read.
bool ReadFrames(GifFileType* gif, int* complete) {
  GifRecordType type = UNDEFINED_RECORD_TYPE;
  do {
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) return false;
    if (type == IMAGE_DESC_RECORD_TYPE) {
      if (DGifGetImageDesc(gif) == GIF_ERROR) return false;
      SavedImage* frame = &gif->SavedImages[gif->ImageCount - 1];
      const int w = frame->ImageDesc.Width, h = frame->ImageDesc.Height;
      // (2^29 pixels at most, the bound of the JPEG and PNG decoders, so
      // a small file cannot claim gigabytes.)
      if (w <= 0 || h <= 0 || int64_t{w} * h >= (int64_t{1} << 29)) {
        gif->Error = D_GIF_ERR_DATA_TOO_BIG;
        return false;
      }
      // Freed with the file (DGifCloseFile frees every frame's pixels).
      frame->RasterBits = static_cast<GifByteType*>(
          std::malloc(static_cast<size_t>(w) * h));
      if (frame->RasterBits == nullptr) {
        gif->Error = D_GIF_ERR_NOT_ENOUGH_MEM;
        return false;
      }
      if (frame->ImageDesc.Interlace) {
        static const int kOffset[] = {0, 4, 2, 1}, kJump[] = {8, 8, 4, 2};
        for (int pass = 0; pass < 4; ++pass) {
          for (int y = kOffset[pass]; y < h; y += kJump[pass]) {
            if (DGifGetLine(gif, frame->RasterBits + int64_t{y} * w, w) ==
                GIF_ERROR) {
              return false;
            }
          }
        }
      } else if (DGifGetLine(gif, frame->RasterBits, w * h) == GIF_ERROR) {
        return false;
      }
      frame->ExtensionBlocks = gif->ExtensionBlocks;
      frame->ExtensionBlockCount = gif->ExtensionBlockCount;
      gif->ExtensionBlocks = nullptr;
      gif->ExtensionBlockCount = 0;
      *complete = gif->ImageCount;
    } else if (type == EXTENSION_RECORD_TYPE) {
      int function = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif, &function, &block) == GIF_ERROR) return false;
      if (block != nullptr &&
          GifAddExtensionBlock(&gif->ExtensionBlockCount, &gif->ExtensionBlocks,
                               function, block[0], &block[1]) == GIF_ERROR) {
        return false;
      }
      for (;;) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return false;
        if (block == nullptr) break;
        if (GifAddExtensionBlock(&gif->ExtensionBlockCount,
                                 &gif->ExtensionBlocks, CONTINUE_EXT_FUNC_CODE,
                                 block[0], &block[1]) == GIF_ERROR) {
          return false;
        }
      }
    }
  } while (type != TERMINATE_RECORD_TYPE);
  return true;
}

}  // namespace

bool GifDecode(absl::string_view data, bool first_only,
               const Allocate& allocate, std::string* error) {
  if (data.size() > static_cast<size_t>(INT32_MAX)) {
    *error = "the GIF file is too large";
    return false;
  }
  GifInput in{reinterpret_cast<const uint8_t*>(data.data()),
              static_cast<int>(data.size())};
  int code = D_GIF_SUCCEEDED;
  GifFileType* gif = DGifOpen(&in, ReadGif, &code);
  if (gif == nullptr || code != D_GIF_SUCCEEDED) {
    *error = absl::StrCat("cannot open the GIF file: ", Reason(code));
    if (gif != nullptr) DGifCloseFile(gif, &code);
    return false;
  }
  int complete = 0;
  const bool read = ReadFrames(gif, &complete);
  bool ok = true;
  if (!read && (complete == 0 || gif->Error == D_GIF_ERR_EOF_TOO_SOON)) {
    *error = absl::StrCat("cannot read the GIF file: ", Reason(gif->Error));
    ok = false;
  }
  if (ok) ok = Compose(gif, complete, first_only, allocate, error);
  DGifCloseFile(gif, &code);
  return ok;
}

}  // namespace codec_io
}  // namespace dflow
