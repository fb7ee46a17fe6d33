#include "fusion/svcomp_tasks.h"

#include <fstream>

namespace fusion {

std::vector<SvCompTask> ReadManifest(const std::string& dir) {
  std::ifstream manifest(dir + "/MANIFEST.tsv");
  std::vector<SvCompTask> out;
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    for (size_t start = 0;;) {
      const size_t tab = line.find('\t', start);
      cols.push_back(line.substr(start, tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (cols.size() > 4) out.push_back({cols[0], dir + "/" + cols[0], cols[4]});
  }
  return out;
}

}  // namespace fusion
