#!/usr/bin/env python3
"""TensorFlow 2.21's values for the image ops of graph/ops/image_ops_nms.cc,
image_ops_codecs.cc and image_ops_geometry.cc: non-maximum suppression
(V1-V5, soft-NMS, padded, half, with overlaps, combined), the codecs
(JPEG/PNG/GIF/BMP decoding with each setting, encode-decode round trips,
crops, header shapes), ScaleAndTranslate through tf.image.resize's
lanczos/gaussian/mitchellcubic/antialiased methods and its gradient,
Dilation2D/erosion and their gradients, ExtractVolumePatches,
DrawBoundingBoxes/V2 and the SampleDistortedBoundingBox family.

Writes tests/testdata/tf_image_more/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, the files as string constants, every op
                applied, each result named out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
  img.jpg, gray.jpg, cmyk.jpg, progressive.jpg, img.png, rgba16.png,
  gray_alpha.png, anim.gif, img24.bmp, img32.bmp
                the image files: JPEG and PNG written by TensorFlow
                (cmyk.jpg and anim.gif by Pillow, which TensorFlow cannot
                write; the BMPs by hand), read by the graph (as constants)
                and by the bad-input tests (truncated, corrupted)
Read by tests/kernels/image_more_test.cc.

Run: python3 tools/tf_reference/make_image_more_reference.py
"""
import io
import os
import struct

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from PIL import Image  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_image_more")

rng = np.random.RandomState(23)


def smooth_image(h, w, c):
  """A smooth uint8 image with some edges (JPEG-friendly, not flat)."""
  y, x = np.mgrid[0:h, 0:w].astype(np.float64)
  chans = []
  for k in range(c):
    v = (128 + 90 * np.sin(x / (2.5 + k) + k) * np.cos(y / (3.0 + k)) +
         rng.uniform(-20, 20, (h, w)))
    v[h // 3:h // 2, w // 4:w // 2] += 60 * (k - 1)
    chans.append(v)
  return np.clip(np.stack(chans, -1), 0, 255).astype(np.uint8)


def bmp(pixels, bits, top_down=False):
  """An uncompressed BMP (BGR(A), rows padded to 4 bytes)."""
  h, w, c = pixels.shape
  row = (w * c + 3) // 4 * 4
  data = b""
  rows = range(h) if top_down else range(h - 1, -1, -1)
  for y in rows:
    line = pixels[y][:, [2, 1, 0] + ([3] if c == 4 else [])].tobytes()
    data += line + b"\0" * (row - w * c)
  header_size = 54
  header = b"BM" + struct.pack("<IHHI", header_size + len(data), 0, 0,
                               header_size)
  header += struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bits,
                        0, len(data), 2835, 2835, 0, 0)
  return header + data


def gif_bytes():
  """A 3-frame GIF: a full first frame, a smaller offset second frame with
  a transparent index, a third frame of the full size."""
  pal = []
  for i in range(16):
    pal += [i * 16, 255 - i * 16, (i * 40) % 256]
  frames = []
  f0 = Image.new("P", (10, 8))
  f0.putpalette(pal)
  f0.putdata([(x + y) % 16 for y in range(8) for x in range(10)])
  frames.append(f0)
  f1 = Image.new("P", (10, 8))
  f1.putpalette(pal)
  f1.putdata([5 if (x + y) % 3 else 0 for y in range(8) for x in range(10)])
  frames.append(f1)
  f2 = Image.new("P", (10, 8))
  f2.putpalette(pal)
  f2.putdata([(x * y) % 16 for y in range(8) for x in range(10)])
  frames.append(f2)
  buf = io.BytesIO()
  frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:],
                 transparency=0, disposal=1, duration=50, optimize=False)
  return buf.getvalue()


def cmyk_jpeg():
  img = Image.fromarray(smooth_image(8, 8, 3)).convert("CMYK")
  buf = io.BytesIO()
  img.save(buf, format="JPEG", quality=90)
  return buf.getvalue()


def make_files():
  """Image files made by TensorFlow (where it can) in eager mode."""
  rgb = smooth_image(16, 24, 3)
  rgba16 = (rng.randint(0, 65536, (5, 7, 4))).astype(np.uint16)
  ga = np.stack([smooth_image(6, 9, 1)[..., 0],
                 rng.randint(0, 256, (6, 9)).astype(np.uint8)], -1)
  files = {
      "img.jpg": tf.io.encode_jpeg(rgb, quality=90).numpy(),
      "gray.jpg": tf.io.encode_jpeg(smooth_image(9, 13, 1), quality=80).numpy(),
      "progressive.jpg": tf.io.encode_jpeg(
          rgb[:8, :12], quality=70, progressive=True,
          chroma_downsampling=False).numpy(),
      "cmyk.jpg": cmyk_jpeg(),
      "img.png": tf.io.encode_png(rgb[:7, :9]).numpy(),
      "rgba16.png": tf.io.encode_png(rgba16).numpy(),
      "gray_alpha.png": tf.io.encode_png(ga, compression=9).numpy(),
      "anim.gif": gif_bytes(),
      "img24.bmp": bmp(rgb[:5, :7], 24),
      "img32.bmp": bmp(np.concatenate(
          [rgb[:4, :5], np.full((4, 5, 1), 200, np.uint8)], -1), 32,
          top_down=True),
  }
  return files, rgb


def wave(shape):
  """Loss weights for gradients, computed in the graph (no constant)."""
  n = int(np.prod(shape))
  return tf.reshape(tf.sin(tf.range(n, dtype=tf.float32) * 0.7 + 0.3), shape)


def uniform(*shape, lo=-1.0, hi=1.0):
  return np.round(rng.uniform(lo, hi, shape), 3).astype(np.float32)


def nms_feeds():
  y1 = np.array([0, 0.1, 0.05, 0.6, 0.62, 0.0, 0.3, 0.9, 0.3, 0.1], np.float32)
  x1 = np.array([0, 0.1, 0.0, 0.6, 0.6, 0.5, 0.3, 0.0, 0.3, 0.8], np.float32)
  boxes = np.stack([y1, x1, y1 + 0.3, x1 + 0.3], 1)
  boxes[2] = boxes[2][[2, 3, 0, 1]]  # corners in the other order
  boxes[9] = [0.1, 0.8, 0.1, 1.0]  # empty
  # Ties: boxes 3 and 4 score equal, 6 and 8 equal (8 is a copy of 6).
  scores = np.array([0.9, 0.8, 0.75, 0.7, 0.7, 0.3, 0.2, 0.05, 0.2, 0.6],
                    np.float32)
  return boxes.astype(np.float32), scores


FEEDS = {}


def build(files, rgb):
  p = {}

  def ph(name, value):
    FEEDS[name] = value
    p[name] = tf1.placeholder(tf.as_dtype(value.dtype), value.shape, name=name)
    return p[name]

  R = tf.raw_ops
  cases = {}
  # --- Non-maximum suppression.
  b_np, s_np = nms_feeds()
  boxes, scores = ph("boxes", b_np), ph("scores", s_np)
  cases["Nms_v1"] = R.NonMaxSuppression(boxes=boxes, scores=scores,
                                        max_output_size=6, iou_threshold=0.4)
  cases["Nms_v2"] = R.NonMaxSuppressionV2(boxes=boxes, scores=scores,
                                          max_output_size=10,
                                          iou_threshold=0.2)
  cases["Nms_v3"] = R.NonMaxSuppressionV3(
      boxes=boxes, scores=scores, max_output_size=10, iou_threshold=0.5,
      score_threshold=0.25)
  # (tf.image.non_max_suppression_padded is a Python loop in TF 2, not
  # this op.)
  v4 = R.NonMaxSuppressionV4(boxes=boxes, scores=scores, max_output_size=8,
                             iou_threshold=0.4, score_threshold=0.1,
                             pad_to_max_output_size=True)
  cases["Nms_v4_padded"], cases["Nms_v4_valid"] = v4[0], v4[1]
  v4 = R.NonMaxSuppressionV4(boxes=boxes, scores=scores, max_output_size=3,
                             iou_threshold=0.5, score_threshold=0.0)
  cases["Nms_v4_unpadded"], cases["Nms_v4_unpadded_valid"] = v4[0], v4[1]
  for name, sigma, thr, score in [("soft", 0.5, 1.0, 0.0),
                                  ("soft_thr", 0.3, 0.6, 0.15),
                                  ("hard", 0.0, 0.5, 0.0)]:
    v5 = R.NonMaxSuppressionV5(boxes=boxes, scores=scores, max_output_size=10,
                               iou_threshold=thr, score_threshold=score,
                               soft_nms_sigma=sigma,
                               pad_to_max_output_size=name == "soft_thr")
    cases["Nms_v5_%s_idx" % name] = v5[0]
    cases["Nms_v5_%s_scores" % name] = v5[1]
    cases["Nms_v5_%s_valid" % name] = v5[2]
  hb, hs = tf.cast(boxes, tf.float16), tf.cast(scores, tf.float16)
  cases["Nms_v3_half"] = R.NonMaxSuppressionV3(
      boxes=hb, scores=hs, max_output_size=10,
      iou_threshold=tf.constant(0.5, tf.float16),
      score_threshold=tf.constant(0.25, tf.float16))
  cases["Nms_v4_half_float_thresholds"] = R.NonMaxSuppressionV4(
      boxes=hb, scores=hs, max_output_size=4, iou_threshold=0.3,
      score_threshold=0.1)[0]
  v5h = R.NonMaxSuppressionV5(boxes=hb, scores=hs, max_output_size=10,
                              iou_threshold=tf.constant(0.9, tf.float16),
                              score_threshold=tf.constant(0.1, tf.float16),
                              soft_nms_sigma=tf.constant(0.5, tf.float16))
  cases["Nms_v5_half_idx"] = v5h[0]
  cases["Nms_v5_half_scores"] = tf.cast(v5h[1], tf.float32)
  overlaps = ph("overlaps", uniform(7, 7, lo=0.0, hi=1.0))
  cases["Nms_overlaps"] = R.NonMaxSuppressionWithOverlaps(
      overlaps=overlaps, scores=scores[:7], max_output_size=5,
      overlap_threshold=0.6, score_threshold=0.1)
  cboxes = ph("comb_boxes", uniform(2, 6, 3, 4, lo=-0.2, hi=1.2))
  cscores = ph("comb_scores", uniform(2, 6, 3, lo=0.0, hi=1.0))
  cscores_ties = tf.round(cscores * 4.0) / 4.0
  for name, bx, sc, per, total, pad, clip in [
      ("q3", cboxes, cscores, 3, 5, False, True),
      ("q1_pad", cboxes[:, :, :1], cscores, 2, 10, True, True),
      ("noclip", cboxes, cscores_ties, 4, 7, False, False),
      ("ties", cboxes[:, :, :1], cscores_ties, 6, 12, False, True)]:
    r = tf.image.combined_non_max_suppression(
        bx, sc, per, total, 0.5, 0.2, pad_per_class=pad, clip_boxes=clip)
    cases["Comb_%s_boxes" % name] = r.nmsed_boxes
    cases["Comb_%s_scores" % name] = r.nmsed_scores
    cases["Comb_%s_classes" % name] = r.nmsed_classes
    cases["Comb_%s_valid" % name] = r.valid_detections

  # --- Codecs.
  f = {k: tf.constant(v, name="file_" + k.replace(".", "_"))
       for k, v in files.items()}
  jpg = f["img.jpg"]
  cases["Jpeg_default"] = tf.io.decode_jpeg(jpg)
  cases["Jpeg_gray_out"] = tf.io.decode_jpeg(jpg, channels=1)
  cases["Jpeg_ratio2"] = tf.io.decode_jpeg(jpg, ratio=2)
  cases["Jpeg_ratio4_accurate"] = tf.io.decode_jpeg(
      jpg, ratio=4, dct_method="INTEGER_ACCURATE")
  cases["Jpeg_nofancy"] = tf.io.decode_jpeg(jpg, fancy_upscaling=False)
  cases["Jpeg_accurate"] = tf.io.decode_jpeg(jpg, dct_method="INTEGER_ACCURATE")
  cases["Jpeg_gray_file"] = tf.io.decode_jpeg(f["gray.jpg"])
  cases["Jpeg_gray_to_rgb"] = tf.io.decode_jpeg(f["gray.jpg"], channels=3)
  cases["Jpeg_progressive"] = tf.io.decode_jpeg(f["progressive.jpg"])
  cases["Jpeg_cmyk"] = tf.io.decode_jpeg(f["cmyk.jpg"])
  cases["Jpeg_crop"] = tf.image.decode_and_crop_jpeg(jpg, [3, 5, 9, 11])
  cases["Jpeg_crop_gray"] = tf.image.decode_and_crop_jpeg(
      jpg, [0, 17, 16, 7], channels=1, dct_method="INTEGER_ACCURATE")
  cases["Jpeg_shape"] = tf.image.extract_jpeg_shape(jpg)
  cases["Jpeg_shape_cmyk64"] = tf.image.extract_jpeg_shape(
      f["cmyk.jpg"], output_type=tf.int64)
  # Cut inside the entropy-coded data (where TensorFlow recovers; a cut
  # at half the file fails in TensorFlow too: the bad-input tests).
  for frac in (80, 95):
    truncated = tf.strings.substr(jpg, 0, len(files["img.jpg"]) * frac // 100)
    cases["Jpeg_truncated_%d_recovered" % frac] = tf.io.decode_jpeg(
        truncated, try_recover_truncated=True, acceptable_fraction=0.5)
  cases["Jpeg_as_image_float"] = tf.io.decode_image(jpg, dtype=tf.float32)
  cases["Jpeg_as_image_u16"] = tf.io.decode_image(jpg, dtype=tf.uint16)
  cases["Jpeg_reads_png"] = tf.io.decode_jpeg(f["img.png"])
  png = f["img.png"]
  cases["Png_default"] = tf.io.decode_png(png)
  cases["Png_gray"] = tf.io.decode_png(png, channels=1)
  cases["Png_rgba"] = tf.io.decode_png(png, channels=4)
  cases["Png_u16"] = tf.io.decode_png(png, dtype=tf.uint16)
  cases["Png_rgba16"] = tf.io.decode_png(f["rgba16.png"], dtype=tf.uint16)
  cases["Png_rgba16_to8"] = tf.io.decode_png(f["rgba16.png"], channels=3)
  cases["Png_rgba16_float"] = tf.io.decode_image(f["rgba16.png"],
                                                 dtype=tf.float32)
  cases["Png_gray_alpha"] = tf.io.decode_png(f["gray_alpha.png"])
  cases["Png_gray_alpha_rgb"] = tf.io.decode_png(f["gray_alpha.png"],
                                                 channels=3)
  cases["Png_reads_jpeg"] = tf.io.decode_png(jpg, channels=3)
  gif = f["anim.gif"]
  cases["Gif_frames"] = tf.io.decode_gif(gif)
  cases["Gif_first_frame"] = tf.io.decode_image(gif, expand_animations=False)
  cases["Gif_as_image"] = tf.io.decode_image(gif, dtype=tf.float32)
  cases["Bmp_24"] = tf.io.decode_bmp(f["img24.bmp"])
  cases["Bmp_24_rgba"] = tf.io.decode_bmp(f["img24.bmp"], channels=4)
  cases["Bmp_32"] = tf.io.decode_bmp(f["img32.bmp"])
  cases["Bmp_32_rgb"] = tf.io.decode_image(f["img32.bmp"], channels=3)
  pix = ph("pixels", rgb[:6, :8])
  pix16 = ph("pixels16", (rng.randint(0, 65536, (3, 4, 2))).astype(np.uint16))
  cases["Png_roundtrip"] = tf.io.decode_png(tf.io.encode_png(pix, 3))
  cases["Png_roundtrip16"] = tf.io.decode_png(tf.io.encode_png(pix16),
                                              dtype=tf.uint16)
  # JPEG round trips: TensorFlow's pixels of TensorFlow's encoding.
  cases["Jpeg_roundtrip_q90"] = tf.io.decode_jpeg(
      tf.io.encode_jpeg(pix, quality=90))
  cases["Jpeg_roundtrip_q50_444"] = tf.io.decode_jpeg(
      tf.io.encode_jpeg(pix, quality=50, chroma_downsampling=False,
                        optimize_size=True))
  cases["Jpeg_roundtrip_progressive"] = tf.io.decode_jpeg(
      tf.io.encode_jpeg(pix, quality=75, progressive=True))
  cases["Jpeg_roundtrip_gray"] = tf.io.decode_jpeg(
      tf.io.encode_jpeg(pix[..., :1], format="grayscale", quality=85))
  cases["Jpeg_roundtrip_variable"] = tf.io.decode_jpeg(
      R.EncodeJpegVariableQuality(images=pix, quality=60))

  # --- ScaleAndTranslate: tf.image.resize's filtered methods.
  img = ph("img", uniform(1, 7, 9, 2, lo=0.0, hi=1.0))
  for name, size, method, aa in [
      ("lanczos3_up", [11, 13], "lanczos3", False),
      ("lanczos3_down_aa", [4, 5], "lanczos3", True),
      ("lanczos5", [5, 12], "lanczos5", False),
      ("gaussian_aa", [3, 4], "gaussian", True),
      ("mitchell", [9, 6], "mitchellcubic", True),
      ("bilinear_aa", [4, 5], "bilinear", True),
      ("bicubic_aa", [3, 7], "bicubic", True),
  ]:
    y = tf.image.resize(img, size, method=method, antialias=aa)
    cases["Resize_" + name] = y
    w = wave(y.shape.as_list())
    cases["Resize_%s_grad" % name] = tf.gradients(tf.reduce_sum(y * w), img)[0]
  for kernel in ["box", "triangle", "keyscubic", "lanczos1"]:
    cases["Sat_" + kernel] = R.ScaleAndTranslate(
        images=img, size=[5, 6], scale=[0.7, 0.6], translation=[0.4, -0.3],
        kernel_type=kernel, antialias=True)
  cases["Sat_u8"] = R.ScaleAndTranslate(
      images=tf.constant(rgb[:5, :6][None]), size=[8, 3], scale=[1.6, 0.5],
      translation=[0.0, 0.0], kernel_type="lanczos3", antialias=False)
  cases["Sat_grad_shifted"] = R.ScaleAndTranslateGrad(
      grads=wave([1, 5, 6, 2]), original_image=img,
      scale=[0.7, 0.6], translation=[0.4, -0.3], kernel_type="keyscubic",
      antialias=False)

  # --- Dilation and erosion.
  x = ph("morph_x", uniform(1, 6, 7, 2))
  k = ph("morph_k", uniform(3, 2, 2))
  for name, fn, strides, rates, pad in [
      ("dil_same", tf.nn.dilation2d, [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
      ("dil_valid_rate", tf.nn.dilation2d, [1, 1, 1, 1], [1, 2, 2, 1], "VALID"),
      ("dil_stride_same", tf.nn.dilation2d, [1, 2, 3, 1], [1, 1, 2, 1], "SAME"),
      ("ero_same", tf.nn.erosion2d, [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
      ("ero_stride", tf.nn.erosion2d, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")]:
    y = fn(x, k, strides, pad, "NHWC", rates)
    cases["Morph_" + name] = y
    w = wave(y.shape.as_list())
    gx, gk = tf.gradients(tf.reduce_sum(y * w), [x, k])
    cases["Morph_%s_dx" % name] = gx
    cases["Morph_%s_dk" % name] = gk
  cases["Morph_dil_i32"] = R.Dilation2D(
      input=tf.cast(x * 50, tf.int32), filter=tf.cast(k * 50, tf.int32),
      strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="SAME")
  cases["Morph_dil_f64"] = R.Dilation2D(
      input=tf.cast(x, tf.float64), filter=tf.cast(k, tf.float64),
      strides=[1, 2, 1, 1], rates=[1, 1, 1, 1], padding="VALID")

  # --- Volume patches.
  vol = ph("vol", uniform(1, 4, 5, 3, 2))
  for name, ks, st, pad in [("valid", [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "VALID"),
                            ("same", [1, 3, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
                            ("same1", [1, 1, 3, 1, 1], [1, 1, 1, 1, 1], "SAME")]:
    cases["VolPatches_" + name] = tf.extract_volume_patches(vol, ks, st, pad)
  cases["VolPatches_i32"] = tf.extract_volume_patches(
      tf.cast(vol * 100, tf.int32), [1, 2, 1, 2, 1], [1, 1, 1, 1, 1], "VALID")

  # --- Bounding boxes.
  canvas = ph("canvas", uniform(2, 7, 8, 3, lo=0.0, hi=0.5))
  dboxes = ph("draw_boxes", np.array(
      [[[0.1, 0.2, 0.6, 0.7], [0.5, 0.5, 1.3, 1.2], [-0.3, -0.2, 0.4, 0.3]],
       [[0.0, 0.0, 1.0, 1.0], [0.8, 0.6, 0.2, 0.9], [1.5, 0.1, 1.9, 0.5]]],
      np.float32))
  cases["Draw_v1"] = R.DrawBoundingBoxes(images=canvas, boxes=dboxes)
  cases["Draw_v1_rgba"] = R.DrawBoundingBoxes(
      images=tf.concat([canvas, canvas[..., :1]], -1), boxes=dboxes)
  cases["Draw_v1_gray"] = R.DrawBoundingBoxes(images=canvas[..., :1],
                                              boxes=dboxes)
  cases["Draw_v2"] = tf.image.draw_bounding_boxes(
      canvas, dboxes, tf.constant([[0.2, 0.4, 0.6, 1.0], [0.9, 0.1, 0.3, 1.0]]))
  cases["Draw_v2_half"] = tf.cast(R.DrawBoundingBoxesV2(
      images=tf.cast(canvas, tf.float16), boxes=dboxes,
      colors=tf.zeros([0, 3])), tf.float32)

  # --- Sampled crops (TensorFlow's Philox streams).
  size = ph("image_size", np.array([40, 60, 3], np.int32))
  objs = ph("objects", np.array([[[0.1, 0.2, 0.5, 0.6], [0.4, 0.3, 0.9, 0.8]]],
                                np.float32))
  for name, seed in [("s1", [1, 2]), ("s2", [-7, 123456789])]:
    r = tf.image.stateless_sample_distorted_bounding_box(
        size, objs, seed=seed, min_object_covered=0.3,
        aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.9])
    for i, part in enumerate(["begin", "size", "bbox"]):
      cases["Sdbb_stateless_%s_%s" % (name, part)] = r[i]
  r = R.StatelessSampleDistortedBoundingBox(
      image_size=tf.cast(size, tf.int64), bounding_boxes=tf.zeros([1, 0, 4]),
      min_object_covered=0.1, seed=tf.constant([5, 6], tf.int64),
      use_image_if_no_bounding_boxes=True, max_attempts=3)
  cases["Sdbb_stateless_noboxes_begin"], cases["Sdbb_stateless_noboxes_size"] = (
      r[0], r[1])
  r = R.SampleDistortedBoundingBox(
      image_size=size, bounding_boxes=objs, seed=11, seed2=22,
      min_object_covered=0.2, area_range=[0.2, 1.0])
  cases["Sdbb_v1_begin"], cases["Sdbb_v1_size"], cases["Sdbb_v1_bbox"] = r
  r = R.SampleDistortedBoundingBoxV2(
      image_size=size, bounding_boxes=objs, min_object_covered=0.5, seed=3,
      seed2=4, aspect_ratio_range=[0.9, 1.1], max_attempts=50)
  cases["Sdbb_v2_begin"], cases["Sdbb_v2_size"], cases["Sdbb_v2_bbox"] = r
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


def main():
  os.makedirs(OUT, exist_ok=True)
  files, rgb = make_files()
  for name, data in files.items():
    with open(os.path.join(OUT, name), "wb") as fh:
      fh.write(data)
  g = tf.Graph()
  with g.as_default():
    outs = build(files, rgb)
    with tf1.Session() as s:
      values = s.run(outs, {g.get_tensor_by_name(k + ":0"): v
                            for k, v in FEEDS.items()})
  with open(os.path.join(OUT, "graph.pb"), "wb") as fh:
    fh.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_image_more_reference.py "
           "with TensorFlow %s." % tf.__version__]
  for k, v in FEEDS.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    lines.append("%s | %s" % (head("fetch", "out_" + k, values[k]),
                              fmt(values[k])))
  with open(os.path.join(OUT, "cases.txt"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
