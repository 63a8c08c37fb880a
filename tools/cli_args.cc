#include "tools/cli_args.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace dflow {

absl::Status CliArgs::Parse(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") {
      help_ = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dflow ", verb_, ": unexpected argument '", arg,
          "'; flags look like --name value (see dflow ", verb_, " --help)"));
    }
    arg.remove_prefix(2);
    std::string name(arg), value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != absl::string_view::npos) {
      name = std::string(arg.substr(0, eq));
      value = std::string(arg.substr(eq + 1));
      has_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& f : flags_) {
      if (f.name == name) spec = &f;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("dflow ", verb_, ": unknown flag --", name,
                       " (see dflow ", verb_, " --help)"));
    }
    if (spec->is_bool) {
      values_[name].push_back(has_value ? value : "true");
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("dflow ", verb_, ": flag --", name, " needs a value"));
      }
      value = args[++i];
    }
    values_[name].push_back(std::move(value));
  }
  return absl::OkStatus();
}

bool CliArgs::Has(absl::string_view name) const {
  return values_.find(name) != values_.end();
}

std::string CliArgs::Get(absl::string_view name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second.back();
  for (const FlagSpec& f : flags_) {
    if (f.name == name) return f.default_value;
  }
  return "";
}

std::vector<std::string> CliArgs::GetAll(absl::string_view name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  return {};
}

bool CliArgs::GetBool(absl::string_view name) const {
  const std::string v = Get(name);
  return v == "true" || v == "1" || v == "yes";
}

std::string CliArgs::FlagHelp() const {
  std::string out = "Flags:\n";
  for (const FlagSpec& f : flags_) {
    std::string left = absl::StrCat("  --", f.name, f.is_bool ? "" : " VALUE");
    absl::StrAppendFormat(&out, "%-24s %s", left, f.help);
    if (!f.default_value.empty()) {
      absl::StrAppend(&out, " (default: ", f.default_value, ")");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppendFormat(&out, "%-24s %s\n", "  --help", "this text");
  return out;
}

std::optional<int> CliArgs::ParseVerb(const std::vector<std::string>& args,
                                      absl::string_view usage,
                                      std::ostream& out, std::ostream& err) {
  if (absl::Status s = Parse(args); !s.ok()) {
    err << s.message() << "\n";
    return 2;
  }
  if (help_requested()) {
    out << usage << FlagHelp();
    return 0;
  }
  // A verb that also reads SavedModels (`run --saved_model DIR`) takes
  // either flag.
  bool takes_saved_model = false;
  for (const FlagSpec& f : flags_) takes_saved_model |= f.name == "saved_model";
  if (!Has("graph") && !(takes_saved_model && Has("saved_model"))) {
    err << "dflow " << verb_ << ": --graph FILE "
        << (takes_saved_model ? "or --saved_model DIR " : "")
        << "is required (see dflow " << verb_ << " --help)\n";
    return 2;
  }
  return std::nullopt;
}

// (Units as `ls -h` and TensorFlow's memory limits count them.)
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  const absl::string_view original = text;
  size_t digits = 0;
  while (digits < text.size() &&
         (absl::ascii_isdigit(text[digits]) || text[digits] == '.')) {
    ++digits;
  }
  double number = 0;
  if (digits == 0 || !absl::SimpleAtod(text.substr(0, digits), &number) ||
      !(number >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", original,
        "' is not a size; give bytes (1000000) or a number with a unit "
        "(512MB, 2GiB)"));
  }
  const std::string unit =
      absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text.substr(digits)));
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},
      {"B", 1},
      {"KB", 1e3},
      {"MB", 1e6},
      {"GB", 1e9},
      {"TB", 1e12},
      {"K", 1024.0},
      {"M", 1048576.0},
      {"G", 1073741824.0},
      {"T", 1099511627776.0},
      {"KIB", 1024.0},
      {"MIB", 1048576.0},
      {"GIB", 1073741824.0},
      {"TIB", 1099511627776.0}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = number * scale;
    if (bytes > 9.0e18) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", original, "' is too large a size"));
    }
    return static_cast<int64_t>(bytes);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "'", original, "' has an unknown unit '", unit,
      "'; use B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB "
      "(powers of 1024)"));
}

}  // namespace dflow
