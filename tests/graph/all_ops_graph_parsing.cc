// The parsing and file-io part of the every-op graph (all_ops_graph.h): CSV
// lines from a text-line reader, serialized tensors, compressed and padded
// raw strings, JSON tf.Examples and the whole-file ops.
#include <string>
#include <vector>

#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildParsingAndFileOps(const Scope& root) {
  const Scope s = root.NewSubScope("parsing");
  const std::vector<DataType> string_type = {DT_STRING};
  Operation files = OpBuilder(s, "FIFOQueueV2")
                        .Attr("component_types", string_type)
                        .Attr("capacity", 4)
                        .Finalize();
  Operation lines = OpBuilder(s, "TextLineReaderV2")
                        .Attr("skip_header_lines", int64_t{1})
                        .Finalize();
  Output line = OpBuilder(s, "ReaderReadV2")
                    .Input(lines.output(0))
                    .Input(files.output(0))
                    .Finalize()
                    .output(1);
  ops::DecodeCSVOptions csv;
  csv.select_cols = {0, 2};
  csv.na_value = "NA";
  std::vector<Output> columns = ops::DecodeCSV(
      s, line,
      {ops::Const(s, Tensor::FromVector<float>({0.5f}, TensorShape({1}))),
       ops::Const(s, Tensor::FromVector<std::string>({}, TensorShape({0})))},
      csv);
  Output serialized = ops::SerializeTensor(s, columns.at(0));
  ops::ParseTensor(s, serialized, DT_FLOAT);
  ops::DecodeCompressed(s, columns.at(1), "GZIP");
  OpBuilder(s, "DecodePaddedRaw")
      .Input(columns.at(1))
      .Input(ops::Const(s, 8))
      .Attr("out_type", DT_INT16)
      .Finalize();
  OpBuilder(s, "DecodeJSONExample").Input(columns.at(1)).Finalize();
  Output name = ops::Const(s, "/tmp/dflow_every_op.txt");
  ops::WriteFile(s, name, ops::ReadFile(s, name));
  ops::MatchingFiles(s, ops::Const(s, "/tmp/*.csv"));
}

}  // namespace dflow
