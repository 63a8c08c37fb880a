// What the TF1 summary kernels (summary_ops*.cc) and TF2's summary-writer
// kernels (summary_ops_writer.cc) both put into a Summary proto, as
// TensorFlow's summary_*_op.cc and core/summary/summary_converter.cc do:
// a histogram with TensorFlow's default buckets, PNG images scaled into
// uint8, 16-bit WAV clips, and a tensor as a TensorProto.
#ifndef DFLOW_KERNELS_CPU_SUMMARY_OPS_UTIL_H_
#define DFLOW_KERNELS_CPU_SUMMARY_OPS_UTIL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "proto/summary.pb.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace summary_util {

// Element i of a real-number or bool tensor (half, bfloat16 too) as a
// double; the real part of a complex one.
double ValueAt(const Tensor& t, int64_t i);

// A value `tag` with a histogram of every element (TensorFlow's default
// buckets, empty runs collapsed). NaN or infinity is an error naming `who`
// (the TF1 op names its node, the TF2 writer the tag, as TensorFlow does).
absl::Status AddHistogram(const Tensor& values, const std::string& tag,
                          const std::string& who, Summary* s);

// Up to max_images values "<tag>/image/<i>" ("<tag>/image" when
// max_images is 1), each the PNG of one image of a [batch, height, width,
// 1|3|4] uint8, half, float or double tensor. Non-uint8 images are scaled:
// by 255 / max when no finite value is negative, else by 127 / max|v|
// around 128; pixels with a non-finite channel become bad_color (a uint8
// vector of at least `depth` colors).
absl::Status AddImages(const Tensor& images, const std::string& tag,
                       int64_t max_images, const Tensor& bad_color,
                       Summary* s);

// Up to max_outputs values "<tag>/audio/<i>" ("<tag>/audio"), each the
// 16-bit PCM WAV of one clip of a float [batch, frames] or [batch, frames,
// channels] tensor (samples in [-1, 1]) at sample_rate Hz (> 0).
absl::Status AddAudio(const Tensor& audio, const std::string& tag,
                      int64_t max_outputs, float sample_rate, Summary* s);

// `t` as TensorFlow writes a summary's tensor: numbers in tensor_content,
// strings in string_val.
void TensorToSummaryProto(const Tensor& t, TensorProto* proto);

// A scalar DT_STRING output 0 holding `s` serialized.
absl::Status SetSummaryOutput(OpKernelContext* ctx, const Summary& s);

}  // namespace summary_util
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_SUMMARY_OPS_UTIL_H_
