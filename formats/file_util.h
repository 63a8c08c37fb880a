// Small POSIX file helpers shared by the checkpoint formats: path splitting,
// directory creation, whole-file reads, and the atomic replace (temporary
// file in the same directory, fsync, rename, directory fsync) that keeps a
// file either old or complete whenever the process dies.
#ifndef DFLOW_FORMATS_FILE_UTIL_H_
#define DFLOW_FORMATS_FILE_UTIL_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dflow {
namespace file_util {

// "a/b/model-3" -> {"a/b", "model-3"}; "model" -> {"", "model"};
// "/model" -> {"/", "model"}.
std::pair<std::string, std::string> SplitPath(absl::string_view path);
// `name` inside `dir` (`name` itself when it is absolute or `dir` empty).
std::string JoinPath(absl::string_view dir, absl::string_view name);

// An absl::Status from errno: "<what> '<path>': <strerror>".
absl::Status ErrnoError(absl::string_view what, absl::string_view path);

// mkdir -p. FailedPrecondition if a part exists and is not a directory.
absl::Status CreateDirs(const std::string& dir);
// fsync of a directory ("" is the current directory), so renames and
// creations in it survive a power loss.
absl::Status SyncDir(const std::string& dir);

// Writes every byte to `fd`, retrying on EINTR and short writes.
absl::Status WriteAll(int fd, absl::string_view bytes, const std::string& path);

// A name for a temporary file next to `path`, unique in this process and
// across processes ("<path>.tmp.<pid>.<n>").
std::string TempPath(absl::string_view path);

// fsync(fd), close(fd), rename(tmp, path), fsync of the directory. On
// failure removes `tmp`. Closes `fd` in every case.
absl::Status CommitTempFile(int fd, const std::string& tmp,
                            const std::string& path);

// Replaces `path` by `contents` atomically (see the file comment).
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// The whole file. NotFound ("<what> '<path>' does not exist") if absent.
absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     absl::string_view what);

bool FileExists(const std::string& path);

}  // namespace file_util
}  // namespace dflow

#endif  // DFLOW_FORMATS_FILE_UTIL_H_
