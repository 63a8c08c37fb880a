// A loopback port nothing listens on right now, for tests that start
// servers: the kernel's choice for a socket bound to port 0, closed again
// (another process could take it in between; a test then fails with the
// server's clear "cannot listen" error, not a hang).
#ifndef DFLOW_TESTS_DISTRIBUTED_FREE_PORT_H_
#define DFLOW_TESTS_DISTRIBUTED_FREE_PORT_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace dflow {

inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ADD_FAILURE() << "no free port";
    if (fd >= 0) close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace dflow

#endif  // DFLOW_TESTS_DISTRIBUTED_FREE_PORT_H_
