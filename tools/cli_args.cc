#include "tools/cli_args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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

}  // namespace dflow
