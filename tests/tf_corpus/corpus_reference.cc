#include "tests/tf_corpus/corpus_reference.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dflow {
namespace {

absl::StatusOr<CorpusReference> ReadReference(const std::string& dir,
                                              const std::string& name) {
  CorpusReference ref;
  ref.dir = dir + "/" + name;
  ref.name = name;
  const std::string path = ref.dir + "/reference.txt";
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    auto bad = [&] {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", line_number, ": malformed line '", line, "'"));
    };
    const std::string& key = f[0];
    if (key == "model" && f.size() == 2) {
      ref.model = f[1];
    } else if (key == "style" && f.size() == 2) {
      ref.style = f[1];
    } else if (key == "towers" && f.size() == 2) {
      if (!absl::SimpleAtoi(f[1], &ref.towers)) return bad();
    } else if (key == "init" && f.size() == 2) {
      ref.init = f[1];
    } else if (key == "train" && f.size() == 2) {
      ref.train = f[1];
    } else if (key == "loss" && f.size() == 2) {
      ref.loss = f[1];
    } else if (key == "steps" && f.size() == 2) {
      if (!absl::SimpleAtoi(f[1], &ref.steps)) return bad();
    } else if (key == "queue_runners" && f.size() == 2) {
      ref.queue_runners = f[1] == "1";
    } else if (key == "epoch_steps" && f.size() == 2) {
      if (!absl::SimpleAtoi(f[1], &ref.epoch_steps)) return bad();
    } else if (key == "feed" && f.size() == 3) {
      ref.feeds.emplace_back(f[1], ref.dir + "/" + f[2]);
    } else if (key == "loss_value" && f.size() == 3) {
      double v;
      if (!absl::SimpleAtod(f[2], &v)) return bad();
      ref.losses.push_back(v);
    } else if (key == "op" && f.size() == 2) {
      ref.ops.insert(f[1]);
    } else if (key == "placement" && f.size() == 4) {
      ref.placement[f[1]][f[2]] = f[3];
    } else if (key == "fetch_also" && f.size() == 2) {
      // Not used by the tests yet.
    } else {
      return bad();
    }
  }
  if (ref.init.empty() || ref.train.empty() || ref.loss.empty() ||
      static_cast<int>(ref.losses.size()) != ref.steps) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": init, train, loss or loss values missing"));
  }
  return ref;
}

}  // namespace

absl::StatusOr<std::vector<CorpusReference>> ReadCorpus(
    const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return absl::NotFoundError("cannot list " + dir);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::ifstream probe(dir + "/" + name + "/reference.txt");
    if (probe) names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  std::vector<CorpusReference> corpus;
  for (const std::string& name : names) {
    absl::StatusOr<CorpusReference> ref = ReadReference(dir, name);
    if (!ref.ok()) return ref.status();
    corpus.push_back(*std::move(ref));
  }
  if (corpus.empty()) return absl::NotFoundError("no graphs in " + dir);
  return corpus;
}

}  // namespace dflow
