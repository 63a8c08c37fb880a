#include "bench/loopback_port.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dflow {
namespace bench {

absl::StatusOr<int> BindLoopback(sockaddr_in* addr) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  *addr = sockaddr_in{};
  addr->sin_family = AF_INET;
  addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(*addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(addr), len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(addr), &len) != 0) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot bind a loopback socket: ", std::strerror(errno)));
  }
  return fd;
}

absl::StatusOr<int> FreePort() {
  sockaddr_in addr;
  absl::StatusOr<int> fd = BindLoopback(&addr);
  if (!fd.ok()) return fd.status();
  close(*fd);
  return ntohs(addr.sin_port);
}

}  // namespace bench
}  // namespace dflow
