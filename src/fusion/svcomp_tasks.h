// The list of SV-COMP tasks in a MANIFEST.tsv (as in ../shared/data/fusion/svcomp), for the benchmark
// and the tests.
#pragma once

#include <string>
#include <vector>

namespace fusion {

// One task: its name as listed, its C file (full path) and its expected verdict ("true"/"false").
struct SvCompTask {
  std::string name;
  std::string file;
  std::string expected;
};

// The tasks listed in dir/MANIFEST.tsv (tab-separated: file, upstream path, commits, verdict, ...);
// empty when there is no such file.
std::vector<SvCompTask> ReadManifest(const std::string& dir);

}  // namespace fusion
