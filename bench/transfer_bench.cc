// Tensor transfer between tasks over loopback: dflow's gRPC path (a
// `dflow worker`'s WorkerService RecvTensor, the receiver pulling what a
// _Send of a registered graph left in a step) next to a raw TCP socket
// (a request byte, then the payload, between preallocated buffers) and
// memcpy, from 1 KB to 256 MB, in one run, gRPC's and TCP's transfers
// alternating; and the latency of a RecvTensor
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
#include <cerrno>
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

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bench/loopback_port.h"
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

using dflow::bench::BindLoopback;
using dflow::bench::FreePort;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
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

// A loopback TCP connection that answers a request byte with `bytes` of
// payload (a server thread); Transfer() times one round. It stays open for
// all the repetitions of a size, so that its transfers alternate with
// gRPC's and both see the same moments of a noisy machine.
class TcpLink {
 public:
  static absl::StatusOr<std::unique_ptr<TcpLink>> Open(size_t bytes) {
    auto link = std::unique_ptr<TcpLink>(new TcpLink(bytes));
    sockaddr_in addr;
    absl::StatusOr<int> bound = BindLoopback(&addr);
    if (!bound.ok()) return bound.status();
    link->listener_ = *bound;
    listen(link->listener_, 1);
    link->server_ = std::thread([l = link.get()] { l->Serve(); });
    link->fd_ = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(link->fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) !=
        0) {
      return absl::UnavailableError(
          absl::StrCat("cannot connect: ", std::strerror(errno)));
    }
    int one = 1;
    setsockopt(link->fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return link;
  }

  ~TcpLink() {
    if (fd_ >= 0) close(fd_);  // ends the server's loop
    if (listener_ >= 0) shutdown(listener_, SHUT_RDWR);  // or its accept
    if (server_.joinable()) server_.join();
    if (listener_ >= 0) close(listener_);
  }

  // Seconds for one request and its payload.
  absl::StatusOr<double> Transfer() {
    const char request = 1;
    const auto begin = Clock::now();
    if (!SendAll(fd_, &request, 1) ||
        !RecvAll(fd_, buffer_.data(), buffer_.size())) {
      return absl::UnavailableError(
          absl::StrCat("a TCP transfer of ", buffer_.size(),
                       " bytes failed: ", std::strerror(errno)));
    }
    return Seconds(begin, Clock::now());
  }

 private:
  explicit TcpLink(size_t bytes) : buffer_(bytes) {}

  void Serve() {
    const int fd = accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::vector<char> payload(buffer_.size(), 7);
    char request;
    while (RecvAll(fd, &request, 1) &&
           SendAll(fd, payload.data(), payload.size())) {
    }
    close(fd);
  }

  std::vector<char> buffer_;
  int listener_ = -1;
  int fd_ = -1;
  std::thread server_;
};

absl::StatusOr<std::vector<double>> MemcpyTimes(size_t bytes, int reps) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto begin = Clock::now();
    std::memcpy(b.data(), a.data(), bytes);
    times.push_back(Seconds(begin, Clock::now()));
  }
  // Reading the copy keeps the compiler from dropping it.
  if (b[bytes / 2] != 1) return absl::InternalError("memcpy copied wrongly");
  return times;
}

constexpr char kSender[] = "/job:worker/replica:0/task:1/device:CPU:0";
constexpr char kReceiver[] = "/job:worker/replica:0/task:0/device:CPU:0";

// A partition for the sender task: Fill of `bytes / 4` floats, sent to
// the receiver as "v:0".
absl::StatusOr<dflow::GraphDef> SenderGraph(size_t bytes) {
  dflow::Scope root = dflow::Scope::NewRootScope().WithDevice(kSender);
  dflow::ops::Fill(
      root.WithOpName("v"),
      dflow::ops::Const(root, {static_cast<int64_t>(bytes / 4)}, {1}),
      dflow::ops::Const(root, 1.5f));
  dflow::GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) return s;
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

// Runs every size and prints the figures (the header comment's lines).
absl::Status RunBench(int reps, int max_mb) {
  absl::StatusOr<int> port0 = FreePort();
  if (!port0.ok()) return port0.status();
  absl::StatusOr<int> port1 = FreePort();
  if (!port1.ok()) return port1.status();
  absl::StatusOr<dflow::ClusterSpec> cluster = dflow::ClusterSpec::Parse(
      absl::StrCat("worker=127.0.0.1:", *port0, ",127.0.0.1:", *port1));
  if (!cluster.ok()) return cluster.status();
  dflow::WorkerServerOptions options;
  options.cluster = *cluster;
  options.job = "worker";
  options.task = 1;
  absl::StatusOr<std::unique_ptr<dflow::WorkerServer>> server =
      dflow::WorkerServer::Start(options);
  if (!server.ok()) return server.status();
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
  // With a `tcp` link, each call is followed by one TCP transfer, timed
  // into `tcp_times`.
  auto grpc_times = [&](size_t bytes, int n, TcpLink* tcp,
                        std::vector<double>* tcp_times)
      -> absl::StatusOr<std::vector<double>> {
    absl::StatusOr<dflow::GraphDef> sender = SenderGraph(bytes);
    if (!sender.ok()) return sender.status();
    dflow::RegisterGraphRequest request;
    *request.add_partitions() = *std::move(sender);
    dflow::RegisterGraphResponse registered;
    grpc::ClientContext context;
    if (grpc::Status s = stub->RegisterGraph(&context, request, &registered);
        !s.ok()) {
      return absl::UnavailableError("RegisterGraph: " + s.error_message());
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
      if (grpc::Status s = stub->RunGraph(&run_context, run, &ran); !s.ok()) {
        return absl::UnavailableError("RunGraph: " + s.error_message());
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
      if (!s.ok())
        return absl::UnavailableError("RecvTensor: " + s.error_message());
      if (!decoded.ok()) return decoded;
      if (value.NumElements() != static_cast<int64_t>(bytes / 4)) {
        return absl::InternalError(absl::StrCat("RecvTensor gave ",
                                                value.NumElements(),
                                                " floats, not ", bytes / 4));
      }
      previous = step;
      if (tcp != nullptr) {
        absl::StatusOr<double> t = tcp->Transfer();
        if (!t.ok()) return t.status();
        tcp_times->push_back(*t);
      }
    }
    return times;
  };

  std::vector<size_t> sizes = {1 << 10, 64 << 10, 1 << 20, 16 << 20};
  for (size_t mb : {64, 256}) {
    if (static_cast<int>(mb) <= max_mb) sizes.push_back(mb << 20);
  }
  std::printf("loopback transfers, medians of %d (GB/s, 1e9 bytes)\n", reps);
  for (size_t bytes : sizes) {
    absl::StatusOr<std::unique_ptr<TcpLink>> link = TcpLink::Open(bytes);
    if (!link.ok()) return link.status();
    // A warm-up round of each, then the timed rounds alternating.
    if (absl::StatusOr<std::vector<double>> warm = grpc_times(bytes, 1, nullptr,
                                                               nullptr);
        !warm.ok()) {
      return warm.status();
    }
    if (absl::StatusOr<double> warm = (*link)->Transfer(); !warm.ok()) {
      return warm.status();
    }
    std::vector<double> tcp;
    absl::StatusOr<std::vector<double>> grpc =
        grpc_times(bytes, reps, link->get(), &tcp);
    if (!grpc.ok()) return grpc.status();
    absl::StatusOr<std::vector<double>> copy = MemcpyTimes(bytes, reps);
    if (!copy.ok()) return copy.status();
    const double grpc_gbps = bytes / Median(*grpc) / 1e9;
    const double tcp_gbps = bytes / Median(tcp) / 1e9;
    std::printf(
        "metric transfer_gbps_%zu grpc=%.3f tcp=%.3f memcpy=%.3f "
        "grpc_vs_tcp=%.2f\n",
        bytes, grpc_gbps, tcp_gbps, bytes / Median(*copy) / 1e9,
        grpc_gbps / tcp_gbps);
    std::fflush(stdout);
  }
  absl::StatusOr<std::vector<double>> latency = grpc_times(4, 200, nullptr, nullptr);
  if (!latency.ok()) return latency.status();
  std::sort(latency->begin(), latency->end());
  std::printf("metric recv_tensor_latency_us p50=%.1f p99=%.1f\n",
              (*latency)[latency->size() / 2] * 1e6,
              (*latency)[latency->size() * 99 / 100] * 1e6);
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 9;
  int max_mb = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--max_mb") == 0) max_mb = std::atoi(argv[i + 1]);
  }
  absl::Status s = RunBench(std::max(reps, 3), max_mb);
  if (!s.ok()) {
    std::fprintf(stderr, "transfer_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
