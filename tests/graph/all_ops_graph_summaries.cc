// The summary part of the graph with every op (all_ops_graph.h): TF1's
// image, audio and tensor summaries, and TF2's writer with each Write op.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildSummaryOps(const Scope& root) {
  Scope s = root.NewSubScope("summaries_more");
  Output images = ops::Fill(s, {2, 4, 4, 3}, 0.5f);
  Output clips = ops::Fill(s, {2, 16}, 0.25f);
  Output rate = ops::Const(s, 8000.0f);
  Output image_sum = ops::ImageSummary(s, Tensor::Scalar("images"), images);
  Output audio_sum =
      ops::AudioSummaryV2(s, Tensor::Scalar("clips"), clips, rate, 2);
  ops::AudioSummary(s, Tensor::Scalar("old_clips"), clips, 8000.0f, 1);
  Output text_sum = ops::TensorSummaryV2(s, Tensor::Scalar("text"),
                                         Tensor::Scalar("hello"),
                                         Tensor::Scalar(std::string()));
  ops::TensorSummary(s, clips);
  ops::MergeSummary(s, {image_sum, audio_sum, text_sum});

  Output writer = ops::SummaryWriter(s, "all_ops_writer");
  ops::CreateSummaryFileWriter(s, writer, Tensor::Scalar("/tmp/all_ops_logs"),
                               Tensor::Scalar(10), Tensor::Scalar(120000),
                               Tensor::Scalar(".v2"));
  Output step = ops::Const(s, int64_t{1});
  ops::WriteSummary(s, writer, step, Tensor::Scalar(1.5f),
                    Tensor::Scalar("loss"), Tensor::Scalar(std::string()));
  ops::WriteScalarSummary(s, writer, step, Tensor::Scalar("scalar"), rate);
  ops::WriteHistogramSummary(s, writer, step, Tensor::Scalar("histogram"),
                             clips);
  ops::WriteImageSummary(s, writer, step, Tensor::Scalar("image"), images,
                         Tensor::FromVector<uint8_t>({255, 0, 0, 255}));
  ops::WriteAudioSummary(s, writer, step, Tensor::Scalar("audio"), clips,
                         rate);
  ops::WriteRawProtoSummary(s, writer, step, image_sum);
  ops::WriteGraphSummary(s, writer, step, Tensor::Scalar(std::string()));
  ops::FlushSummaryWriter(s, writer);
  ops::CloseSummaryWriter(s, writer);
}

}  // namespace dflow
