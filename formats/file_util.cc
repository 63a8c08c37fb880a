#include "formats/file_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace dflow {
namespace file_util {

std::pair<std::string, std::string> SplitPath(absl::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return {"", std::string(path)};
  std::string dir(path.substr(0, slash));
  if (dir.empty()) dir = "/";
  return {dir, std::string(path.substr(slash + 1))};
}

std::string JoinPath(absl::string_view dir, absl::string_view name) {
  if (dir.empty() || absl::StartsWith(name, "/")) return std::string(name);
  if (absl::EndsWith(dir, "/")) return absl::StrCat(dir, name);
  return absl::StrCat(dir, "/", name);
}

absl::Status ErrnoError(absl::string_view what, absl::string_view path) {
  return absl::ErrnoToStatus(errno, absl::StrCat(what, " '", path, "'"));
}

absl::Status CreateDirs(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot write checkpoint files in '", dir,
        "': it exists and is not a directory; choose another directory"));
  }
  absl::Status parent = CreateDirs(SplitPath(dir).first);
  if (!parent.ok()) return parent;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoError("cannot create directory", dir);
  }
  return absl::OkStatus();
}

absl::Status SyncDir(const std::string& dir) {
  const std::string name = dir.empty() ? "." : dir;
  int fd = open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open directory", name);
  absl::Status status = absl::OkStatus();
  if (fsync(fd) != 0) status = ErrnoError("cannot sync directory", name);
  close(fd);
  return status;
}

absl::Status WriteAll(int fd, absl::string_view bytes,
                      const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("cannot write", path);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

std::string TempPath(absl::string_view path) {
  static std::atomic<int64_t> counter{0};
  return absl::StrCat(path, ".tmp.", getpid(), ".", counter.fetch_add(1));
}

absl::Status CommitTempFile(int fd, const std::string& tmp,
                            const std::string& path) {
  absl::Status status = absl::OkStatus();
  if (fsync(fd) != 0) status = ErrnoError("cannot sync", tmp);
  if (close(fd) != 0 && status.ok()) status = ErrnoError("cannot close", tmp);
  if (status.ok() && rename(tmp.c_str(), path.c_str()) != 0) {
    status = ErrnoError(absl::StrCat("cannot rename '", tmp, "' to"), path);
  }
  if (!status.ok()) {
    unlink(tmp.c_str());
    return status;
  }
  return SyncDir(SplitPath(path).first);
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  const std::string tmp = TempPath(path);
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot create", tmp);
  absl::Status status = WriteAll(fd, contents, tmp);
  if (!status.ok()) {
    close(fd);
    unlink(tmp.c_str());
    return status;
  }
  return CommitTempFile(fd, tmp, path);
}

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     absl::string_view what) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat(what, " '", path, "' does not exist"));
    }
    return ErrnoError(absl::StrCat("cannot open ", what), path);
  }
  std::string contents;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    contents.reserve(static_cast<size_t>(st.st_size));
  }
  char buffer[1 << 16];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status status =
          ErrnoError(absl::StrCat("cannot read ", what), path);
      close(fd);
      return status;
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return contents;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace file_util
}  // namespace dflow
