// CPU kernels of the whole-file ops (graph/ops/io_ops_files.cc): ReadFile,
// WriteFile and MatchingFiles, with TensorFlow's behaviour on a local file
// system: a missing file is NotFound and a directory FailedPrecondition
// ("<path>; <strerror>"), WriteFile creates the file's directory, and
// MatchingFiles globs as TensorFlow's GetMatchingPaths does ('*' and '?'
// stop at '/', '[...]' classes, '\' escapes, hidden files match, a
// pattern without matches gives none) and sorts all matches together.
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "formats/file_util.h"
#include "graph/tensor.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// TensorFlow's wording of a failed file operation: "<path>; <strerror>".
absl::Status FileError(const std::string& path, int err) {
  const std::string message = absl::StrCat(path, "; ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EISDIR:
    case ENOTDIR:
      return absl::FailedPreconditionError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

absl::Status ScalarString(const OpKernelContext* ctx, int i, const char* what,
                          std::string* out) {
  const Tensor& t = ctx->input(i);
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input ", what, " should be a scalar but has shape ",
        t.shape().ToString()));
  }
  *out = t.data<std::string>()[0];
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FileError(path, errno);
  std::string contents;
  char buf[64 << 10];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return FileError(path, err);
    }
    if (n == 0) break;
    contents.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string path;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "filename", &path));
    absl::StatusOr<std::string> contents = ReadWholeFile(path);
    OP_REQUIRES_OK(ctx, contents.status());
    ctx->set_output(0, Tensor::Scalar(*std::move(contents)));
  }
};

class WriteFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string path, contents;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "filename", &path));
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 1, "contents", &contents));
    const std::string dir = file_util::SplitPath(path).first;
    if (!dir.empty()) OP_REQUIRES_OK(ctx, file_util::CreateDirs(dir));
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    OP_REQUIRES(ctx, fd >= 0, FileError(path, errno));
    absl::Status written = file_util::WriteAll(fd, contents, path);
    if (::close(fd) != 0 && written.ok()) written = FileError(path, errno);
    OP_REQUIRES_OK(ctx, written);
  }
};

bool HasWildcard(absl::string_view part) {
  return part.find_first_of("*?[\\") != absl::string_view::npos;
}

// A pattern component without wildcards, its '\' escapes removed.
std::string Unescape(absl::string_view part) {
  std::string out;
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] == '\\' && i + 1 < part.size()) ++i;
    out += part[i];
  }
  return out;
}

// The paths matching `pattern`, component by component: a component with
// wildcards is matched by fnmatch against the directory's entries (every
// entry but "." and "..", hidden ones too), one without is taken as is;
// the paths that exist at the end are the matches.
void Glob(const std::string& pattern, std::vector<std::string>* out) {
  std::vector<std::string> parts = absl::StrSplit(pattern, '/');
  std::vector<std::string> paths = {""};
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::string& part = parts[k];
    std::vector<std::string> next;
    for (const std::string& base : paths) {
      const std::string prefix = k == 0 ? "" : base + "/";
      if (!HasWildcard(part)) {
        next.push_back(prefix + Unescape(part));
        continue;
      }
      DIR* dir = ::opendir(k == 0 ? "." : (base.empty() ? "/" : base).c_str());
      if (dir == nullptr) continue;
      while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        if (::fnmatch(part.c_str(), name.c_str(), 0) == 0) {
          next.push_back(prefix + name);
        }
      }
      ::closedir(dir);
    }
    paths = std::move(next);
  }
  struct stat st;
  for (const std::string& p : paths) {
    if (!p.empty() && ::lstat(p.c_str(), &st) == 0) out->push_back(p);
  }
}

class MatchingFilesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& patterns = ctx->input(0);
    OP_REQUIRES(ctx, patterns.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input patterns tensor must be scalar or vector, but had "
                    "shape: ",
                    patterns.shape().ToString())));
    std::vector<std::string> names;
    for (int64_t i = 0; i < patterns.NumElements(); ++i) {
      Glob(patterns.data<std::string>()[i], &names);
    }
    std::sort(names.begin(), names.end());
    ctx->set_output(0, Tensor::FromVector<std::string>(names));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReadFile").Device(kDeviceCpu),
                      ReadFileOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("WriteFile").Device(kDeviceCpu),
                      WriteFileOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatchingFiles").Device(kDeviceCpu),
                      MatchingFilesOp);

}  // namespace
}  // namespace dflow
