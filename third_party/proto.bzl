"""Compiles .proto files with the system protoc into a cc_library."""

def dflow_proto_library(name, srcs, deps = [], visibility = None):
    """A cc_library holding the C++ code protoc generates for `srcs`.

    Imports are resolved from the workspace root, so a proto file imports
    another as "proto/graph.proto".
    """
    hdrs = [s.replace(".proto", ".pb.h") for s in srcs]
    ccs = [s.replace(".proto", ".pb.cc") for s in srcs]
    native.genrule(
        name = name + "_gen",
        srcs = srcs + [d + "_srcs" for d in deps],
        outs = hdrs + ccs,
        tools = ["@system//:bin/protoc"],
        cmd = ("$(location @system//:bin/protoc) --proto_path=. " +
               "--cpp_out=$(GENDIR) " +
               " ".join(["$(location %s)" % s for s in srcs])),
    )
    native.filegroup(name = name + "_srcs", srcs = srcs + [d + "_srcs" for d in deps])
    native.cc_library(
        name = name,
        srcs = ccs,
        hdrs = hdrs,
        copts = ["-Wno-unused-parameter"],
        deps = deps + ["@system//:protobuf"],
        visibility = visibility,
    )

def dflow_grpc_library(name, srcs, deps):
    """A cc_library holding the gRPC service code (`*.grpc.pb.{h,cc}`) that
    the system grpc_cpp_plugin generates for `srcs`, whose messages are in
    the dflow_proto_library `deps`."""
    hdrs = [s.replace(".proto", ".grpc.pb.h") for s in srcs]
    ccs = [s.replace(".proto", ".grpc.pb.cc") for s in srcs]
    native.genrule(
        name = name + "_gen",
        srcs = srcs + [d + "_srcs" for d in deps],
        outs = hdrs + ccs,
        tools = ["@system//:bin/protoc", "@system//:bin/grpc_cpp_plugin"],
        cmd = ("$(location @system//:bin/protoc) --proto_path=. " +
               "--plugin=protoc-gen-grpc=$(location @system//:bin/grpc_cpp_plugin) " +
               "--grpc_out=$(GENDIR) " +
               " ".join(["$(location %s)" % s for s in srcs])),
    )
    native.cc_library(
        name = name,
        srcs = ccs,
        hdrs = hdrs,
        copts = ["-Wno-unused-parameter"],
        deps = deps + ["@system//:grpc"],
    )
