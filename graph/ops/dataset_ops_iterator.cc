// Schemas and builders of tf.data's iterator ops with TensorFlow 2.21's
// OpDefs: the iterator resources (tf.compat.v1.data.make_one_shot_iterator
// writes OneShotIterator, make_initializable_iterator IteratorV2 +
// MakeIterator; AnonymousIterator* are what iter() makes inside
// functions), the reads (IteratorGetNext and its Sync and Optional forms)
// and feedable iterators' string handles.
#include <string>

#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/dataset_ops.h"
#include "graph/ops/dataset_util.h"
#include "graph/shape_inference.h"

namespace dflow {

DFLOW_REGISTER_OP("OneShotIterator")
    .Output("handle: resource")
    .Attr("dataset_factory: func")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("An iterator over what dataset_factory returns, made on first use.");

DFLOW_REGISTER_OP("Iterator")
    .Output("handle: resource")
    .Attr("shared_name: string")
    .Attr("container: string")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("An iterator for MakeIterator to start.");

DFLOW_REGISTER_OP("IteratorV2")
    .Output("handle: resource")
    .Attr("shared_name: string")
    .Attr("container: string")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("An iterator for MakeIterator to start.");

DFLOW_REGISTER_OP("MakeIterator")
    .Input("dataset: variant")
    .Input("iterator: resource")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::NoOutputs)
    .Doc("Starts the iterator at the beginning of the dataset.");

DFLOW_REGISTER_OP("AnonymousIterator")
    .Output("handle: resource")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A new iterator, for MakeIterator to start.");

DFLOW_REGISTER_OP("AnonymousIteratorV2")
    .Output("handle: resource")
    .Output("deleter: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A new iterator and its deleter.");

DFLOW_REGISTER_OP("AnonymousIteratorV3")
    .Output("handle: resource")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A new iterator.");

DFLOW_REGISTER_OP("DeleteIterator")
    .Input("handle: resource")
    .Input("deleter: variant")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::NoOutputs)
    .Doc("Releases what the iterator holds.");

DFLOW_REGISTER_OP("IteratorGetNext")
    .Input("iterator: resource")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::ElementShapes)
    .Doc("The next element; OutOfRange \"End of sequence\" after the last.");

DFLOW_REGISTER_OP("IteratorGetNextSync")
    .Input("iterator: resource")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::ElementShapes)
    .Doc("The next element; OutOfRange \"End of sequence\" after the last.");

DFLOW_REGISTER_OP("IteratorGetNextAsOptional")
    .Input("iterator: resource")
    .Output("optional: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The next element as an Optional, none after the last.");

DFLOW_REGISTER_OP("IteratorToStringHandle")
    .Input("resource_handle: resource")
    .Output("string_handle: string")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("A string naming the iterator (for IteratorFromStringHandle).");

DFLOW_REGISTER_OP("IteratorFromStringHandle")
    .Input("string_handle: string")
    .Output("resource_handle: resource")
    .Attr("output_types: list(type) >= 0 = []")
    .Attr("output_shapes: list(shape) >= 0 = []")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The iterator a string handle names.");

DFLOW_REGISTER_OP("IteratorFromStringHandleV2")
    .Input("string_handle: string")
    .Output("resource_handle: resource")
    .Attr("output_types: list(type) >= 0 = []")
    .Attr("output_shapes: list(shape) >= 0 = []")
    .SetIsStateful()
    .SetShapeFn(dataset_shape_fns::DatasetHandle)
    .Doc("The iterator a string handle names.");

namespace ops {
namespace {

using dataset_builders::FirstOutput;
using dataset_builders::SetSpec;

Output NamedIterator(const Scope& scope, absl::string_view op,
                     const ElementSpec& out, absl::string_view shared_name,
                     absl::string_view container) {
  OpBuilder b(scope, op);
  b.Attr("shared_name", std::string(shared_name));
  b.Attr("container", std::string(container));
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output IteratorOfSpec(const Scope& scope, absl::string_view op,
                      const ElementSpec& out) {
  OpBuilder b(scope, op);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

OutputList GetNext(const Scope& scope, absl::string_view op, Input iterator,
                   const ElementSpec& out) {
  OpBuilder b(scope, op);
  b.Input(iterator);
  SetSpec(&b, out);
  return dataset_builders::AllOutputs(b.Finalize());
}

Output FromStringHandle(const Scope& scope, absl::string_view op,
                        Input string_handle, const ElementSpec& out) {
  OpBuilder b(scope, op);
  b.Input(string_handle);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

}  // namespace

Output OneShotIterator(const Scope& scope, absl::string_view dataset_factory,
                       const ElementSpec& out) {
  OpBuilder b(scope, "OneShotIterator");
  b.Attr("dataset_factory", dataset_builders::Func(dataset_factory));
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output IteratorV2(const Scope& scope, const ElementSpec& out,
                  absl::string_view shared_name, absl::string_view container) {
  return NamedIterator(scope, "IteratorV2", out, shared_name, container);
}

Output Iterator(const Scope& scope, const ElementSpec& out,
                absl::string_view shared_name, absl::string_view container) {
  return NamedIterator(scope, "Iterator", out, shared_name, container);
}

Operation MakeIterator(const Scope& scope, Input dataset, Input iterator) {
  return OpBuilder(scope, "MakeIterator")
      .Input(dataset)
      .Input(iterator)
      .Finalize();
}

Output AnonymousIterator(const Scope& scope, const ElementSpec& out) {
  return IteratorOfSpec(scope, "AnonymousIterator", out);
}

ResourceAndDeleter AnonymousIteratorV2(const Scope& scope,
                                       const ElementSpec& out) {
  OpBuilder b(scope, "AnonymousIteratorV2");
  SetSpec(&b, out);
  return dataset_builders::TwoOutputs(b.Finalize());
}

Output AnonymousIteratorV3(const Scope& scope, const ElementSpec& out) {
  return IteratorOfSpec(scope, "AnonymousIteratorV3", out);
}

Operation DeleteIterator(const Scope& scope, Input handle, Input deleter) {
  return OpBuilder(scope, "DeleteIterator")
      .Input(handle)
      .Input(deleter)
      .Finalize();
}

OutputList IteratorGetNext(const Scope& scope, Input iterator,
                           const ElementSpec& out) {
  return GetNext(scope, "IteratorGetNext", iterator, out);
}

OutputList IteratorGetNextSync(const Scope& scope, Input iterator,
                               const ElementSpec& out) {
  return GetNext(scope, "IteratorGetNextSync", iterator, out);
}

Output IteratorGetNextAsOptional(const Scope& scope, Input iterator,
                                 const ElementSpec& out) {
  OpBuilder b(scope, "IteratorGetNextAsOptional");
  b.Input(iterator);
  SetSpec(&b, out);
  return FirstOutput(b.Finalize());
}

Output IteratorToStringHandle(const Scope& scope, Input iterator) {
  return FirstOutput(
      OpBuilder(scope, "IteratorToStringHandle").Input(iterator).Finalize());
}

Output IteratorFromStringHandle(const Scope& scope, Input string_handle,
                                const ElementSpec& out) {
  return FromStringHandle(scope, "IteratorFromStringHandle", string_handle,
                          out);
}

Output IteratorFromStringHandleV2(const Scope& scope, Input string_handle,
                                  const ElementSpec& out) {
  return FromStringHandle(scope, "IteratorFromStringHandleV2", string_handle,
                          out);
}

}  // namespace ops
}  // namespace dflow
