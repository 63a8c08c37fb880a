#include "tools/timeline.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace dflow {
namespace {

// Which track of its device a node's slice goes on. The order is the order
// of the tracks in the viewer.
enum class TrackKind { kThread = 0, kTransfers = 1, kCollectives = 2 };

bool IsTransfer(const std::string& op) {
  return op == "_Send" || op == "_Recv" || op == "_HostSend" ||
         op == "_HostRecv";
}
bool IsSend(const std::string& op) { return absl::EndsWith(op, "Send"); }
// The collective ops and tensor fusion's _FusedCollectiveAllReduce.
bool IsCollective(const std::string& op) {
  return absl::StartsWith(absl::StripPrefix(op, "_Fused"), "Collective");
}

// Copies between host and device memory inside one device (compiler/
// partition.h): transfers too, but with no partner, so no arrow.
bool IsMemoryCopy(const std::string& op) {
  return op == "_HostToDevice" || op == "_DeviceToHost";
}

TrackKind KindOf(const NodeExecStats& s) {
  if (IsTransfer(s.op) || IsMemoryCopy(s.op)) return TrackKind::kTransfers;
  if (IsCollective(s.op)) return TrackKind::kCollectives;
  return TrackKind::kThread;
}

const std::string* Detail(const NodeExecStats& s, const std::string& key) {
  for (const auto& [k, v] : s.details) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<int>(c));
        } else {
          out += c;  // UTF-8 passes through
        }
    }
  }
  out += '"';
  return out;
}

// Whole microseconds print as integers; flow ends may fall in between.
std::string JsonNumber(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(v));
  }
  return absl::StrFormat("%.3f", v);
}

// Builds one JSON object, keys in the order added.
class JsonObject {
 public:
  JsonObject& Str(absl::string_view key, absl::string_view value) {
    return Raw(key, JsonString(value));
  }
  JsonObject& Num(absl::string_view key, double value) {
    return Raw(key, JsonNumber(value));
  }
  JsonObject& Raw(absl::string_view key, absl::string_view json) {
    absl::StrAppend(&body_, body_.empty() ? "" : ",", JsonString(key), ":",
                    json);
    return *this;
  }
  std::string Build() const { return absl::StrCat("{", body_, "}"); }

 private:
  std::string body_;
};

std::string HumanBytes(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  if (bytes < 1024 * 1024) return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  return absl::StrFormat("%.1f MiB", bytes / (1024.0 * 1024.0));
}

// Gives each span [start, end] a lane such that the spans of one lane nest
// or follow each other, as the viewers need on one thread; the first lane
// that fits, so spans that never overlap all land on lane 0.
std::vector<int> AssignLanes(
    const std::vector<std::pair<int64_t, int64_t>>& spans, int* num_lanes) {
  std::vector<int> order(spans.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (spans[a].first != spans[b].first)
      return spans[a].first < spans[b].first;
    return spans[a].second > spans[b].second;  // the enclosing one first
  });
  std::vector<std::vector<int64_t>> open;  // per lane: ends of open spans
  std::vector<int> lane(spans.size(), 0);
  for (int i : order) {
    const auto [start, end] = spans[i];
    size_t l = 0;
    for (; l < open.size(); ++l) {
      std::vector<int64_t>& ends = open[l];
      while (!ends.empty() && ends.back() <= start) ends.pop_back();
      if (ends.empty() || end <= ends.back()) break;
    }
    if (l == open.size()) open.emplace_back();
    open[l].push_back(end);
    lane[i] = static_cast<int>(l);
  }
  *num_lanes = std::max<int>(1, static_cast<int>(open.size()));
  return lane;
}

// Where a flow arrow may attach to a slice: strictly inside it where it has
// a duration, so the viewers bind the arrow to this slice and not to one
// that ends or starts at the same microsecond.
std::pair<double, double> Interior(const NodeExecStats& s) {
  const double start = static_cast<double>(s.start_us);
  const double end = static_cast<double>(std::max(s.end_us, s.start_us));
  const double margin = std::min(0.25, (end - start) / 2);
  return {start + margin, end - margin};
}

}  // namespace

std::string ChromeTraceJson(const RunMetadata& metadata) {
  const std::vector<NodeExecStats>& stats = metadata.step_stats;
  // Devices in the session's order (peak_bytes lists them all), then any
  // others the stats name.
  std::vector<std::string> devices;
  std::map<std::string, int> pid_of;
  auto add_device = [&](const std::string& name) {
    if (pid_of.emplace(name, static_cast<int>(devices.size()) + 1).second) {
      devices.push_back(name);
    }
  };
  for (const auto& [device, bytes] : metadata.peak_bytes) add_device(device);
  for (const NodeExecStats& s : stats) add_device(s.device);

  // Tracks: (pid, kind, executor thread or 0) -> the slices on it.
  using TrackKey = std::tuple<int, TrackKind, int>;
  std::map<TrackKey, std::vector<int>> tracks;
  for (size_t i = 0; i < stats.size(); ++i) {
    const TrackKind kind = KindOf(stats[i]);
    tracks[{pid_of.at(stats[i].device), kind,
            kind == TrackKind::kThread ? stats[i].thread_id : 0}]
        .push_back(static_cast<int>(i));
  }
  std::vector<int> tid(stats.size(), 0);
  std::vector<std::string> events;
  std::map<int, int> next_tid;  // per pid
  for (const auto& [key, members] : tracks) {
    const auto [pid, kind, thread] = key;
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (int i : members) {
      spans.emplace_back(stats[i].start_us,
                         std::max(stats[i].end_us, stats[i].start_us));
    }
    int num_lanes = 1;
    const std::vector<int> lanes = AssignLanes(spans, &num_lanes);
    int& next = next_tid[pid];
    const int first_tid = next + 1;
    for (int l = 0; l < num_lanes; ++l) {
      std::string name = kind == TrackKind::kThread
                             ? absl::StrCat("thread ", thread)
                         : kind == TrackKind::kTransfers ? "transfers"
                                                         : "collectives";
      if (l > 0) absl::StrAppend(&name, " #", l + 1);
      const int t = ++next;
      events.push_back(JsonObject()
                           .Str("name", "thread_name")
                           .Str("ph", "M")
                           .Num("pid", pid)
                           .Num("tid", t)
                           .Raw("args", JsonObject().Str("name", name).Build())
                           .Build());
      events.push_back(
          JsonObject()
              .Str("name", "thread_sort_index")
              .Str("ph", "M")
              .Num("pid", pid)
              .Num("tid", t)
              .Raw("args", JsonObject().Num("sort_index", t).Build())
              .Build());
    }
    for (size_t m = 0; m < members.size(); ++m) {
      tid[members[m]] = first_tid + lanes[m];
    }
  }
  std::vector<std::string> process_events;
  for (size_t d = 0; d < devices.size(); ++d) {
    const int pid = static_cast<int>(d) + 1;
    process_events.push_back(
        JsonObject()
            .Str("name", "process_name")
            .Str("ph", "M")
            .Num("pid", pid)
            .Raw("args", JsonObject().Str("name", devices[d]).Build())
            .Build());
    process_events.push_back(
        JsonObject()
            .Str("name", "process_sort_index")
            .Str("ph", "M")
            .Num("pid", pid)
            .Raw("args", JsonObject().Num("sort_index", pid).Build())
            .Build());
  }
  for (const auto& [device, bytes] : metadata.peak_bytes) {
    process_events.push_back(
        JsonObject()
            .Str("name", "process_labels")
            .Str("ph", "M")
            .Num("pid", pid_of.at(device))
            .Raw("args", JsonObject()
                             .Str("labels", absl::StrCat("peak memory ",
                                                         HumanBytes(bytes)))
                             .Build())
            .Build());
  }
  events.insert(events.begin(), process_events.begin(), process_events.end());

  // The slices, in the order they started.
  std::vector<int> by_start(stats.size());
  for (size_t i = 0; i < by_start.size(); ++i)
    by_start[i] = static_cast<int>(i);
  std::stable_sort(by_start.begin(), by_start.end(), [&](int a, int b) {
    return stats[a].start_us < stats[b].start_us;
  });
  for (int i : by_start) {
    const NodeExecStats& s = stats[i];
    const int pid = pid_of.at(s.device);
    const int64_t end = std::max(s.end_us, s.start_us);
    JsonObject args;
    args.Str("name", s.node).Str("op", s.op);
    if (!s.frame.empty()) {
      args.Str("frame", s.frame)
          .Num("iteration", static_cast<double>(s.iteration));
    }
    for (size_t k = 0; k < s.inputs.size(); ++k) {
      args.Str(absl::StrCat("input", k), s.inputs[k]);
    }
    if (!s.output_shapes.empty()) {
      std::vector<std::string> shapes;
      for (const TensorShape& shape : s.output_shapes) {
        shapes.push_back(shape.ToString());
      }
      args.Str("outputs", absl::StrJoin(shapes, " "));
      args.Num("output_bytes", static_cast<double>(s.output_bytes));
    }
    for (const auto& [key, value] : s.details) args.Str(key, value);
    const char* category = KindOf(s) == TrackKind::kTransfers     ? "transfer"
                           : KindOf(s) == TrackKind::kCollectives ? "collective"
                                                                  : "op";
    // In a loop, the slice says which iteration: "MatMul [while 3]".
    const std::string name =
        s.frame.empty()
            ? s.op
            : absl::StrCat(s.op, " [", s.frame, " ", s.iteration, "]");
    events.push_back(JsonObject()
                         .Str("name", name)
                         .Str("cat", category)
                         .Str("ph", "X")
                         .Num("pid", pid)
                         .Num("tid", tid[i])
                         .Num("ts", static_cast<double>(s.start_us))
                         .Num("dur", static_cast<double>(end - s.start_us))
                         .Raw("args", args.Build())
                         .Build());
    // Phases nest in the node's slice; a phase reported outside it is
    // clipped to it rather than breaking the nesting.
    for (const NodeExecStats::Phase& phase : s.phases) {
      const int64_t p_start = std::clamp(phase.start_us, s.start_us, end);
      const int64_t p_end = std::clamp(phase.end_us, p_start, end);
      events.push_back(
          JsonObject()
              .Str("name", phase.name)
              .Str("cat", "phase")
              .Str("ph", "X")
              .Num("pid", pid)
              .Num("tid", tid[i])
              .Num("ts", static_cast<double>(p_start))
              .Num("dur", static_cast<double>(p_end - p_start))
              .Raw("args",
                   JsonObject().Str("name", s.node).Str("op", s.op).Build())
              .Build());
    }
  }

  // Flow arrows: each Send to the Recv of the same rendezvous key, paired
  // in start order should a key occur more than once.
  using TransferKey = std::tuple<std::string, std::string, std::string>;
  auto key_of = [](const NodeExecStats& s) -> std::optional<TransferKey> {
    const std::string* tensor = Detail(s, "tensor_name");
    const std::string* from = Detail(s, "send_device");
    const std::string* to = Detail(s, "recv_device");
    if (tensor == nullptr || from == nullptr || to == nullptr) {
      return std::nullopt;
    }
    return TransferKey{*tensor, *from, *to};
  };
  std::map<TransferKey, std::deque<int>> sends;
  for (int i : by_start) {
    if (!IsTransfer(stats[i].op) || !IsSend(stats[i].op)) continue;
    if (auto key = key_of(stats[i])) sends[*key].push_back(i);
  }
  int flow_id = 0;
  for (int i : by_start) {
    if (!IsTransfer(stats[i].op) || IsSend(stats[i].op)) continue;
    const std::optional<TransferKey> key = key_of(stats[i]);
    if (!key) continue;
    auto it = sends.find(*key);
    if (it == sends.end() || it->second.empty()) continue;
    const int send = it->second.front();
    it->second.pop_front();
    ++flow_id;
    const auto [send_lo, send_hi] = Interior(stats[send]);
    const auto [recv_lo, recv_hi] = Interior(stats[i]);
    const double out_ts = (send_lo + send_hi) / 2;
    // The arrow lands as soon after it left as the Recv's slice allows.
    const double in_ts = std::clamp(out_ts, recv_lo, recv_hi);
    events.push_back(JsonObject()
                         .Str("name", std::get<0>(*key))
                         .Str("cat", "transfer")
                         .Str("ph", "s")
                         .Num("id", flow_id)
                         .Num("pid", pid_of.at(stats[send].device))
                         .Num("tid", tid[send])
                         .Num("ts", out_ts)
                         .Build());
    events.push_back(JsonObject()
                         .Str("name", std::get<0>(*key))
                         .Str("cat", "transfer")
                         .Str("ph", "f")
                         .Str("bp", "e")
                         .Num("id", flow_id)
                         .Num("pid", pid_of.at(stats[i].device))
                         .Num("tid", tid[i])
                         .Num("ts", in_ts)
                         .Build());
  }

  std::string json = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  absl::StrAppend(&json, absl::StrJoin(events, ",\n"), "\n]}\n");
  return json;
}

absl::Status WriteChromeTrace(const RunMetadata& metadata,
                              const std::string& path) {
  const std::string json = ChromeTraceJson(metadata);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(json.data(), static_cast<std::streamsize>(json.size()));
  if (out) out.close();
  if (!out) {
    return absl::NotFoundError(absl::StrCat(
        "cannot write the timeline to '", path, "': ", std::strerror(errno),
        "; check that its directory exists and is writable"));
  }
  return absl::OkStatus();
}

}  // namespace dflow
