#!/usr/bin/env python3
"""Checks dflow's MetaGraph/SavedModel protos against TensorFlow's own.

Run from the repository root (needs TensorFlow and protoc):

    python3 tools/tf_reference/check_meta_graph_protos.py

Compiles proto/*.proto for Python into a temporary directory, then walks
TensorFlow's MetaGraphDef, SavedModel, SaverDef, QueueRunnerDef and
VariableDef descriptors with dflow's side by side and prints every field
whose number, name, type, repetition, oneof or enum values differ. Expected
output with TF 2.21: only `object_graph_def` (7), left out on purpose (see
proto/meta_graph.proto), and the newest DataType values dflow's types.proto
does not list yet.
"""
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tmp = tempfile.mkdtemp()
subprocess.check_call(["protoc", "--proto_path=.", "--python_out=" + tmp] +
                      ["proto/" + f for f in os.listdir("proto")
                       if f.endswith(".proto")])
sys.path.insert(0, tmp)
from tensorflow.core.protobuf import meta_graph_pb2 as tm, saver_pb2 as ts, saved_model_pb2 as tsm, queue_runner_pb2 as tq
from tensorflow.core.framework import variable_pb2 as tv
from proto import meta_graph_pb2 as dm, saver_pb2 as ds, saved_model_pb2 as dsm, queue_runner_pb2 as dq, variable_pb2 as dv
seen=set()
def cmp(a, b, path):
    if a.full_name in seen: return
    seen.add(a.full_name)
    af={f.number:f for f in a.fields}; bf={f.number:f for f in b.fields}
    for n,f in af.items():
        if n not in bf: print("MISSING in dflow", path, f.name, n); continue
        g=bf[n]
        if f.name!=g.name or f.type!=g.type or f.is_repeated!=g.is_repeated:
            print("DIFF", path, f.name, g.name, f.type, g.type, f.is_repeated, g.is_repeated)
        if f.containing_oneof and (not g.containing_oneof or f.containing_oneof.name!=g.containing_oneof.name): print("ONEOF", path, f.name)
        if f.message_type is not None and g.message_type is not None:
            if f.message_type.name!=g.message_type.name: print("TYPENAME", path, f.name, f.message_type.name, g.message_type.name)
            cmp(f.message_type, g.message_type, path+"."+f.name)
        if f.enum_type is not None:
            ev={v.number:v.name for v in f.enum_type.values}; dv_={v.number:v.name for v in g.enum_type.values}
            if ev!=dv_: print("ENUM", path, f.name, set(ev.items())^set(dv_.items()))
    for n in bf:
        if n not in af: print("EXTRA in dflow", path, bf[n].name)
for a,b in [(tm.MetaGraphDef,dm.MetaGraphDef),(tsm.SavedModel,dsm.SavedModel),(ts.SaverDef,ds.SaverDef),(tq.QueueRunnerDef,dq.QueueRunnerDef),(tv.VariableDef,dv.VariableDef),(tm.CollectionDef,dm.CollectionDef),(tm.TensorInfo,dm.TensorInfo),(tm.SignatureDef,dm.SignatureDef),(tm.AssetFileDef,dm.AssetFileDef)]:
    cmp(a.DESCRIPTOR,b.DESCRIPTOR,a.DESCRIPTOR.name)
print("compared", len(seen), "messages")
