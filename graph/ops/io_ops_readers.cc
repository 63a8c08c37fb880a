// Schemas of TensorFlow's reader ops (core/ops/io_ops.cc), with TensorFlow
// 2.21's OpDefs: a TFRecord, text-line or fixed-length-record reader takes file names from
// a queue (the string_input_producer's) and returns one record (or up to N) per
// call, with its key "<file>:<record number>".
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status ScalarOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, TensorShape({}));
  return absl::OkStatus();
}

absl::Status VectorOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i)
    c->set_output(i, TensorShape({-1}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("TFRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("compression_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc("A reader of TFRecord files ('', 'ZLIB' or 'GZIP' compressed).");

DFLOW_REGISTER_OP("TextLineReaderV2")
    .Output("reader_handle: resource")
    .Attr("skip_header_lines: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc(
        "A reader of text files: one record per line, without its \\n (and "
        "a \\r before it), after skip_header_lines lines of each file.");

DFLOW_REGISTER_OP("FixedLengthRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("header_bytes: int = 0")
    .Attr("record_bytes: int")
    .Attr("footer_bytes: int = 0")
    .Attr("hop_bytes: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("encoding: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc(
        "A reader of files of fixed-length records (CIFAR-10's binary "
        "files): after header_bytes, a record of record_bytes every "
        "hop_bytes (record_bytes when 0), ending footer_bytes before the "
        "end; encoding '', 'ZLIB' or 'GZIP'.");

DFLOW_REGISTER_OP("ReaderReadV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Output("key: string")
    .Output("value: string")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc("The next record, opening the queue's next file when one ends.");

DFLOW_REGISTER_OP("ReaderReadUpToV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Input("num_records: int64")
    .Output("keys: string")
    .Output("values: string")
    .SetIsStateful()
    .SetShapeFn(VectorOutputs)
    .Doc("Up to num_records records (fewer at the end of the last file).");

}  // namespace
}  // namespace dflow
