// A small parser for the `dflow VERB --flag value` command line.
//
// Each verb declares its flags; `--flag value` and `--flag=value` both work,
// boolean flags take no value, and an unknown flag or a missing value is an
// error that names the flag and points to `--help`. Any flag may be given
// more than once: Get returns the last value, GetAll every value in order
// (for flags meant to repeat, such as `dflow run --feed`).
#ifndef DFLOW_TOOLS_CLI_ARGS_H_
#define DFLOW_TOOLS_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dflow {

struct FlagSpec {
  // A constructor rather than aggregate initialization, so specs may omit
  // the trailing fields without -Wmissing-field-initializers warnings.
  FlagSpec(std::string name, std::string help, bool is_bool = false,
           std::string default_value = "")
      : name(std::move(name)),
        help(std::move(help)),
        is_bool(is_bool),
        default_value(std::move(default_value)) {}

  std::string name;  // without "--"
  std::string help;
  bool is_bool = false;
  std::string default_value;
};

class CliArgs {
 public:
  CliArgs(std::string verb, std::vector<FlagSpec> flags)
      : verb_(std::move(verb)), flags_(std::move(flags)) {}

  // Parses args (after the verb). `--help`/`-h` sets help_requested().
  absl::Status Parse(const std::vector<std::string>& args);

  // How every verb starts: Parse, then on a usage error print it to `err`
  // and return 2; on --help print `usage` and FlagHelp() to `out` and
  // return 0; when --graph is missing say so ("dflow VERB: --graph FILE is
  // required"; a verb with a --saved_model flag accepts that instead) and
  // return 2. nullopt: go on with the verb.
  std::optional<int> ParseVerb(const std::vector<std::string>& args,
                               absl::string_view usage, std::ostream& out,
                               std::ostream& err);

  bool help_requested() const { return help_; }
  bool Has(absl::string_view name) const;
  // The last value given, else the default.
  std::string Get(absl::string_view name) const;
  // Every value given, in command-line order; empty if none (defaults are
  // not included).
  std::vector<std::string> GetAll(absl::string_view name) const;
  bool GetBool(absl::string_view name) const;

  // "Flags:" block listing every flag with its help text.
  std::string FlagHelp() const;

 private:
  std::string verb_;
  std::vector<FlagSpec> flags_;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  bool help_ = false;
};

// A byte count given on the command line (`dflow run --memory_limit`):
// "2GB", "512MiB", "1.5G", "1000000". Decimal units (kB, MB, GB, TB) count
// in 1000s, binary ones (KiB, MiB, GiB, TiB; K, M, G, T alone) in 1024s.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text);

}  // namespace dflow

#endif  // DFLOW_TOOLS_CLI_ARGS_H_
