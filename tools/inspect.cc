#include "tools/inspect.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "formats/graph_file.h"
#include "formats/saved_model.h"
#include "graph/attr_value_util.h"
#include "graph/device_spec.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "tools/cli_args.h"

namespace dflow {
namespace {

// Node counts per name-scope prefix, to two levels ("tower_0", then
// "tower_0/layer1").
void PrintScopeTree(const GraphDef& def, std::ostream& out) {
  std::map<std::string, int> top;
  std::map<std::string, std::map<std::string, int>> second;
  int at_root = 0;
  for (const NodeDef& n : def.node()) {
    std::vector<std::string> parts = absl::StrSplit(n.name(), '/');
    if (parts.size() == 1) {
      ++at_root;
      continue;
    }
    ++top[parts[0]];
    if (parts.size() > 2) ++second[parts[0]][parts[1]];
  }
  out << "name scopes:\n";
  if (at_root) out << absl::StrFormat("  %-40s %6d nodes\n", "(root)", at_root);
  for (const auto& [scope, count] : top) {
    out << absl::StrFormat("  %-40s %6d nodes\n", scope + "/", count);
    const auto& children = second[scope];
    int shown = 0;
    for (const auto& [child, c] : children) {
      if (++shown > 8) {
        out << absl::StrFormat("    ... %d more sub-scopes\n",
                               children.size() - 8);
        break;
      }
      out << absl::StrFormat("    %-38s %6d nodes\n", scope + "/" + child + "/",
                             c);
    }
  }
}

std::string PlaceholderShape(const NodeDef& n) {
  auto it = n.attr().find("shape");
  if (it == n.attr().end() || !it->second.has_shape()) return "<unknown>";
  absl::StatusOr<TensorShape> s = TensorShape::FromProto(it->second.shape());
  return s.ok() ? s->ToString() : "<malformed shape>";
}

std::string PlaceholderDtype(const NodeDef& n) {
  auto it = n.attr().find("dtype");
  if (it == n.attr().end()) return "<no dtype>";
  return DataTypeName(it->second.type());
}

// Lists the stand-ins (ops or attrs dflow lacks) by op, with how many
// nodes have each and why one of them cannot run; returns their count.
int PrintUnsupported(const Graph& graph, std::ostream& out) {
  struct PerOp {
    int count = 0;
    const Node* example = nullptr;
  };
  std::map<std::string, PerOp> by_op;
  int total = 0;
  for (const Node* n : graph.nodes()) {
    if (!n->IsUnsupported()) continue;
    PerOp& entry = by_op[n->op()];
    if (entry.count++ == 0) entry.example = n;
    ++total;
  }
  if (total == 0) {
    out << "unsupported ops: none\n";
    return 0;
  }
  out << "unsupported ops: " << by_op.size() << " (" << total
      << " nodes); the graph loads and runs whatever does not reach them:\n";
  for (const auto& [op, entry] : by_op) {
    out << absl::StrFormat("  %-32s %6d   %s\n", op, entry.count,
                           entry.example->unsupported().message());
  }
  return total;
}

void PrintVariables(const char* key, const std::vector<VariableInfo>& vars,
                    std::ostream& out) {
  if (vars.empty()) return;
  out << "  " << key << " (" << vars.size() << "):\n";
  for (const VariableInfo& v : vars) {
    out << absl::StrFormat(
        "    %-32s %s init %s read %s\n", v.variable_name,
        v.is_resource ? "resource" : "ref",
        v.initializer_name.empty() ? "-" : v.initializer_name,
        v.snapshot_name.empty() ? "-" : v.snapshot_name);
  }
}

// What a MetaGraphDef adds to its graph: tags, saver, collections,
// signatures.
void PrintMetaGraph(const MetaGraphInfo& info, std::ostream& out) {
  const MetaGraphDef& m = info.meta_graph;
  if (m.meta_info_def().tags_size() > 0) {
    out << "tags: "
        << TagSetString({m.meta_info_def().tags().begin(),
                         m.meta_info_def().tags().end()})
        << "\n";
  }
  if (!m.meta_info_def().tensorflow_version().empty()) {
    out << "written by: TensorFlow " << m.meta_info_def().tensorflow_version()
        << "\n";
  }
  if (info.saver_def) {
    const SaverDef& s = *info.saver_def;
    out << "saver: restore op " << s.restore_op_name() << ", filename tensor "
        << s.filename_tensor_name() << ", save tensor " << s.save_tensor_name()
        << ", format " << SaverDef::CheckpointFormatVersion_Name(s.version())
        << (s.sharded() ? ", sharded" : "") << ", max_to_keep "
        << s.max_to_keep() << "\n";
  } else {
    out << "saver: (none)\n";
  }
  out << "collections (" << m.collection_def_size() << "):\n";
  PrintVariables("variables", info.variables, out);
  PrintVariables("trainable_variables", info.trainable_variables, out);
  PrintVariables("local_variables", info.local_variables, out);
  PrintVariables("model_variables", info.model_variables, out);
  PrintVariables("moving_average_variables", info.moving_average_variables,
                 out);
  PrintVariables("global_step", info.global_step, out);
  for (const auto& [key, names] : info.node_lists) {
    out << "  " << key << ": " << absl::StrJoin(names, ", ") << "\n";
  }
  for (const QueueRunnerDef& q : info.queue_runners) {
    out << "  queue_runner " << q.queue_name() << ": "
        << q.enqueue_op_name_size() << " enqueue op(s)\n";
  }
  for (const std::string& key : info.unknown_collections) {
    const CollectionDef& c = m.collection_def().at(key);
    const int n = c.has_node_list()    ? c.node_list().value_size()
                  : c.has_bytes_list() ? c.bytes_list().value_size()
                  : c.has_int64_list() ? c.int64_list().value_size()
                  : c.has_float_list() ? c.float_list().value_size()
                  : c.has_any_list()   ? c.any_list().value_size()
                                       : 0;
    out << "  " << key << ": " << n << " entries (not a TensorFlow "
        << "collection dflow knows; kept as is)\n";
  }
  if (m.signature_def_size() > 0) {
    out << "signatures:\n";
    std::map<std::string, const SignatureDef*> sorted;
    for (const auto& [key, sig] : m.signature_def()) sorted[key] = &sig;
    for (const auto& [key, sig] : sorted) {
      out << "  " << key << " (" << sig->method_name() << ")\n";
      for (const auto* io : {&sig->inputs(), &sig->outputs()}) {
        std::map<std::string, const TensorInfo*> entries;
        for (const auto& [k, t] : *io) entries[k] = &t;
        for (const auto& [k, t] : entries) {
          std::string shape = "<unknown>";
          if (t->has_tensor_shape()) {
            absl::StatusOr<TensorShape> s =
                TensorShape::FromProto(t->tensor_shape());
            if (s.ok()) shape = s->ToString();
          }
          out << absl::StrFormat("    %-6s %-16s %-24s %-8s %s\n",
                                 io == &sig->inputs() ? "input" : "output", k,
                                 t->name(), DataTypeName(t->dtype()), shape);
        }
      }
    }
  }
}

}  // namespace

int InspectGraphFile(const std::string& path, const InspectOptions& options,
                     std::ostream& out) {
  absl::StatusOr<GraphFile> file = ReadGraphFile(path);
  if (!file.ok()) {
    out << "error: " << file.status().message() << "\n";
    return 1;
  }
  const GraphDefFormat format = file->format;
  const GraphDef* def = &file->graph_def;
  Graph graph;
  std::vector<absl::Status> errors =
      ValidateGraphDef(*def, ImportOptions(), &graph);

  out << "graph: " << path << " ("
      << (format == GraphDefFormat::kText ? "text" : "binary") << " "
      << GraphFileKindName(file->kind) << ", producer "
      << def->versions().producer() << ")\n";
  out << "nodes: " << def->node_size() << "\n";
  if (!options.brief) {
    std::map<std::string, int> ops;
    for (const NodeDef& n : def->node()) ++ops[n.op()];
    std::vector<std::pair<std::string, int>> hist(ops.begin(), ops.end());
    std::stable_sort(
        hist.begin(), hist.end(),
        [](const auto& a, const auto& b) { return a.second > b.second; });
    out << "ops (" << hist.size() << " kinds):\n";
    for (const auto& [op, count] : hist) {
      out << absl::StrFormat("  %-40s %6d\n", op, count);
    }

    out << "placeholders:\n";
    int placeholders = 0;
    for (const NodeDef& n : def->node()) {
      if (n.op() != "Placeholder" && n.op() != "PlaceholderWithDefault")
        continue;
      ++placeholders;
      out << absl::StrFormat("  %-40s %-8s %s\n", n.name(), PlaceholderDtype(n),
                             PlaceholderShape(n));
    }
    if (placeholders == 0) out << "  (none)\n";

    out << "requested devices:\n";
    std::map<std::string, int> devices;
    for (const NodeDef& n : def->node()) {
      std::string d = n.device();
      if (!d.empty()) {
        absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(d);
        d = spec.ok() ? spec->ToString() : absl::StrCat(d, " (malformed)");
      } else {
        d = "(none)";
      }
      ++devices[d];
    }
    for (const auto& [d, count] : devices) {
      out << absl::StrFormat("  %-56s %6d nodes\n", d, count);
    }
    PrintScopeTree(*def, out);
    if (def->library().function_size() > 0) {
      out << "library: " << def->library().function_size()
          << " function(s) (kept, not run)\n";
    }
  }
  if (file->meta_graph) PrintMetaGraph(*file->meta_graph, out);

  const int unsupported = PrintUnsupported(graph, out);
  if (errors.empty()) {
    if (unsupported > 0 && options.strict) {
      out << "validation: OK, but --strict: " << unsupported
          << " node(s) dflow cannot run\n";
      return 1;
    }
    out << "validation: OK\n";
    return 0;
  }
  out << "validation: " << errors.size() << " error(s)\n";
  int shown = 0;
  for (const absl::Status& e : errors) {
    if (shown++ >= options.max_errors) {
      out << "  ... " << errors.size() - options.max_errors << " more\n";
      break;
    }
    out << "  " << e.message() << "\n";
  }
  return 1;
}

int RunInspect(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  CliArgs cli(
      "inspect",
      {{"graph",
        "GraphDef (.pb/.pbtxt), MetaGraphDef (.meta) or SavedModel "
        "(saved_model.pb or its directory); kind and encoding are "
        "read from the content"},
       {"brief", "only the summary and the validation result", true},
       {"strict", "exit 1 when a node's op (or attrs) dflow cannot run", true},
       {"max_errors", "validation errors to print", false, "100"}});
  if (std::optional<int> done = cli.ParseVerb(
          args,
          "Usage: dflow inspect --graph FILE [--brief] [--strict]\n\n"
          "Summarizes a GraphDef, validates it and lists every op (or attr)\n"
          "dflow cannot run yet, with its node count. Such nodes do not make\n"
          "the graph invalid: only a run that reaches them fails.\n"
          "For a MetaGraphDef (.meta) or SavedModel it also prints the tags,\n"
          "the saver, the collections (variables, train_op, summaries, ...\n"
          "and any unknown key) and the signatures.\n"
          "Exit code 0 if valid (with --strict: and every node runnable), "
          "1 if not.\n\n",
          out, err)) {
    return *done;
  }
  InspectOptions options;
  options.brief = cli.GetBool("brief");
  options.strict = cli.GetBool("strict");
  if (!absl::SimpleAtoi(cli.Get("max_errors"), &options.max_errors) ||
      options.max_errors < 0) {
    err << "dflow inspect: --max_errors must be a non-negative integer\n";
    return 2;
  }
  return InspectGraphFile(cli.Get("graph"), options, out);
}

}  // namespace dflow
