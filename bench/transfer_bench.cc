// Tensor transfer between tasks over loopback: dflow's gRPC path (a
// `dflow worker`'s WorkerService RecvTensor, the receiver pulling what a
// _Send of a registered graph left in a step) next to a raw TCP socket
// (a request byte, then the payload, between preallocated buffers) and
// memcpy, from 1 KB to 256 MB, in one run; and the latency of a RecvTensor
// of 4 bytes (p50, p99). Prints, per size:
//   metric transfer_gbps_<bytes> grpc=<GB/s> tcp=<GB/s> memcpy=<GB/s>
//          grpc_vs_tcp=<ratio>
// (medians over the repetitions; GB = 1e9 bytes) and
//   metric recv_tensor_latency_us p50=<us> p99=<us>
// The goal: gRPC at least 70% of the raw socket from 1 MB up.
//
//   bazel run //bench:transfer_bench -- [--reps N] [--max_mb M]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "distributed/cluster_spec.h"
#include "distributed/tensor_wire.h"
#include "distributed/worker_server.h"
#include "graph/attr_value_util.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "proto/worker_service.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool SendAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = send(fd, p, n, 0);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool RecvAll(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = recv(fd, p, n, 0);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

// Seconds per transfer of `bytes` over a loopback TCP connection: the
// client sends one byte, the server answers with the payload.
std::vector<double> TcpTimes(size_t bytes, int reps) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  listen(listener, 1);
  std::thread server([listener, bytes, reps] {
    int fd = accept(listener, nullptr, nullptr);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::vector<char> payload(bytes, 7);
    char request;
    for (int r = 0; r < reps; ++r) {
      if (!RecvAll(fd, &request, 1) || !SendAll(fd, payload.data(), bytes)) {
        break;
      }
    }
    close(fd);
  });
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  std::vector<char> buffer(bytes);
  std::vector<double> times;
  const char request = 1;
  for (int r = 0; r < reps; ++r) {
    const auto begin = Clock::now();
    if (!SendAll(fd, &request, 1) || !RecvAll(fd, buffer.data(), bytes)) {
      std::fprintf(stderr, "tcp transfer failed\n");
      std::exit(1);
    }
    times.push_back(Seconds(begin, Clock::now()));
  }
  close(fd);
  server.join();
  close(listener);
  return times;
}

std::vector<double> MemcpyTimes(size_t bytes, int reps) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto begin = Clock::now();
    std::memcpy(b.data(), a.data(), bytes);
    times.push_back(Seconds(begin, Clock::now()));
  }
  if (b[bytes / 2] != 1) std::exit(1);
  return times;
}

constexpr char kSender[] = "/job:worker/replica:0/task:1/device:CPU:0";
constexpr char kReceiver[] = "/job:worker/replica:0/task:0/device:CPU:0";

// A partition for the sender task: Fill of `bytes / 4` floats, sent to
// the receiver as "v:0".
dflow::GraphDef SenderGraph(size_t bytes) {
  dflow::Scope root = dflow::Scope::NewRootScope().WithDevice(kSender);
  dflow::ops::Fill(
      root.WithOpName("v"),
      dflow::ops::Const(root, {static_cast<int64_t>(bytes / 4)}, {1}),
      dflow::ops::Const(root, 1.5f));
  dflow::GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::exit(1);
  dflow::NodeDef* send = def.add_node();
  send->set_name("send_v");
  send->set_op("_Send");
  send->set_device(kSender);
  send->add_input("v");
  auto& attr = *send->mutable_attr();
  attr["T"] = dflow::MakeAttr(dflow::DT_FLOAT);
  attr["tensor_name"] = dflow::MakeAttr("v:0");
  attr["send_device"] = dflow::MakeAttr(kSender);
  attr["send_device_incarnation"] = dflow::MakeAttr(int64_t{0});
  attr["recv_device"] = dflow::MakeAttr(kReceiver);
  attr["client_terminated"] = dflow::MakeAttr(false);
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 9;
  int max_mb = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--max_mb") == 0) max_mb = std::atoi(argv[i + 1]);
  }
  reps = std::max(reps, 3);
  absl::StatusOr<dflow::ClusterSpec> cluster = dflow::ClusterSpec::Parse(
      absl::StrCat("worker=127.0.0.1:", FreePort(), ",127.0.0.1:", FreePort()));
  if (!cluster.ok()) return 1;
  dflow::WorkerServerOptions options;
  options.cluster = *cluster;
  options.job = "worker";
  options.task = 1;
  absl::StatusOr<std::unique_ptr<dflow::WorkerServer>> server =
      dflow::WorkerServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    return 1;
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(
      (*server)->address(), grpc::InsecureChannelCredentials(), args);
  auto stub = dflow::WorkerService::NewStub(channel);
  grpc::GenericStub generic(channel);
  const std::string key = absl::StrCat(kSender, ";", kReceiver, ";v:0");
  int64_t step = 1;

  // RecvTensor of `bytes`: seconds per call, the step's value already sent.
  auto grpc_times = [&](size_t bytes, int n) {
    dflow::RegisterGraphRequest request;
    *request.add_partitions() = SenderGraph(bytes);
    dflow::RegisterGraphResponse registered;
    grpc::ClientContext context;
    if (!stub->RegisterGraph(&context, request, &registered).ok()) {
      std::fprintf(stderr, "RegisterGraph failed\n");
      std::exit(1);
    }
    std::vector<double> times;
    int64_t previous = -1;
    for (int r = 0; r < n; ++r, ++step) {
      dflow::RunGraphRequest run;
      run.set_graph_handle(registered.graph_handle());
      run.set_step_id(step);
      if (previous >= 0) run.add_finished_step_ids(previous);
      dflow::RunGraphResponse ran;
      grpc::ClientContext run_context;
      if (!stub->RunGraph(&run_context, run, &ran).ok()) {
        std::fprintf(stderr, "RunGraph failed\n");
        std::exit(1);
      }
      // As RemoteRendezvous receives: a generic call, the response decoded
      // straight into the tensor (distributed/tensor_wire.h).
      dflow::RecvTensorRequest recv;
      recv.set_step_id(step);
      recv.set_rendezvous_key(key);
      const auto begin = Clock::now();
      grpc::ByteBuffer request_buffer;
      bool own = false;
      (void)grpc::SerializationTraits<dflow::RecvTensorRequest>::Serialize(
          recv, &request_buffer, &own);
      grpc::ByteBuffer response_buffer;
      grpc::ClientContext recv_context;
      std::mutex mu;
      std::condition_variable cv;
      bool finished = false;
      grpc::Status s;
      generic.UnaryCall(&recv_context, "/dflow.WorkerService/RecvTensor",
                        grpc::StubOptions(), &request_buffer, &response_buffer,
                        [&](grpc::Status status) {
                          std::lock_guard<std::mutex> lock(mu);
                          s = status;
                          finished = true;
                          cv.notify_all();
                        });
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return finished; });
      }
      dflow::Tensor value;
      bool dead = false;
      absl::Status decoded =
          dflow::DecodeRecvTensorResponse(&response_buffer, &value, &dead);
      times.push_back(Seconds(begin, Clock::now()));
      if (!s.ok() || !decoded.ok() ||
          value.NumElements() != static_cast<int64_t>(bytes / 4)) {
        std::fprintf(stderr, "RecvTensor failed: %s %s\n",
                     s.error_message().c_str(),
                     std::string(decoded.message()).c_str());
        std::exit(1);
      }
      previous = step;
    }
    return times;
  };

  std::vector<size_t> sizes = {1 << 10, 64 << 10, 1 << 20, 16 << 20};
  for (size_t mb : {64, 256}) {
    if (static_cast<int>(mb) <= max_mb) sizes.push_back(mb << 20);
  }
  std::printf("loopback transfers, medians of %d (GB/s, 1e9 bytes)\n", reps);
  for (size_t bytes : sizes) {
    const double grpc = bytes / Median(grpc_times(bytes, reps)) / 1e9;
    const double tcp = bytes / Median(TcpTimes(bytes, reps)) / 1e9;
    const double copy = bytes / Median(MemcpyTimes(bytes, reps)) / 1e9;
    std::printf(
        "metric transfer_gbps_%zu grpc=%.3f tcp=%.3f memcpy=%.3f "
        "grpc_vs_tcp=%.2f\n",
        bytes, grpc, tcp, copy, grpc / tcp);
    std::fflush(stdout);
  }
  std::vector<double> latency = grpc_times(4, 200);
  std::sort(latency.begin(), latency.end());
  std::printf("metric recv_tensor_latency_us p50=%.1f p99=%.1f\n",
              latency[latency.size() / 2] * 1e6,
              latency[latency.size() * 99 / 100] * 1e6);
  return 0;
}
