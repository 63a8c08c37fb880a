// The tf.Example feature parsing shared by the Example parsers
// (ParseExampleV2, ParseSingleExample: parsing_ops.cc) and the
// SequenceExample parsers' context features (parsing_ops_sequence.cc). A
// batch is a vector of records' Features (a scalar `serialized` is a batch
// of one with batch rank 0); each function fills the outputs of one
// feature, for every record, as TensorFlow's parsers give them:
// - dense (FixedLenFeature): batch + shape, from the record or the default;
//   a shape [?, d...] (FixedLenSequenceFeature(allow_missing=True)) holds
//   rows of d... values, padded with the default (one element) to the
//   batch's longest;
// - sparse (VarLenFeature): indices [n, batch rank + 1], values [n] and
//   the dense shape (batch..., longest);
// - ragged (RaggedFeature): values [n] and row splits (int32 or int64; one
//   more than the records, empty for a scalar record).
// Errors name the record and the feature.
#ifndef DFLOW_KERNELS_CPU_PARSING_OPS_EXAMPLE_H_
#define DFLOW_KERNELS_CPU_PARSING_OPS_EXAMPLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "proto/example.pb.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace parsing {

// One Features message per record of the batch.
using Records = std::vector<const Features*>;

// "float_list", "int64_list" or "bytes_list": the list that holds `t`.
const char* KindName(DataType t);
// The number of values of `f` if it holds `type`'s list, else -1.
int64_t ValueCount(const Feature& f, DataType type);
// Copies f's values of `type` into `out` from element `at`.
void CopyValues(const Feature& f, DataType type, Tensor* out, int64_t at);
// The feature `key` of `features` with `type`'s kind; null if absent (an
// empty feature counts as absent, as in TensorFlow); an error naming the
// record and the key if it holds another kind.
absl::StatusOr<const Feature*> FindFeature(const Features& features,
                                           const std::string& key,
                                           DataType type, int64_t record);
// The keys of a string input (a vector, or a scalar for one key); `what`
// names the input in the error.
absl::Status ReadKeys(const Tensor& t, const char* what,
                      std::vector<std::string>* keys);
// Writes `at` as element i of a row-splits tensor of int32 or int64.
void SetSplit(Tensor* splits, int64_t i, int64_t at);

void ParseDenseFeature(OpKernelContext* ctx, const std::string& key,
                       DataType type, const TensorShape& shape,
                       const TensorShape& batch_shape, const Records& records,
                       int output, const Tensor& fallback);
void ParseSparseFeature(OpKernelContext* ctx, const std::string& key,
                        DataType type, int batch_rank, const Records& records,
                        int indices_output, int values_output,
                        int shape_output);
void ParseRaggedFeature(OpKernelContext* ctx, const std::string& key,
                        DataType type, DataType split_type, int batch_rank,
                        const Records& records, int values_output,
                        int splits_output);

}  // namespace parsing
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_PARSING_OPS_EXAMPLE_H_
