// The list of SV-COMP tasks in a MANIFEST.tsv (as in ../shared/data/fusion/svcomp), for the benchmark
// and the tests.
#pragma once

#include <string>
#include <vector>

#include "fusion/parser.h"

namespace fusion {

// One task: its name as listed, its C file (full path), its expected verdict ("true"/"false") and the data
// model of its task file.
struct SvCompTask {
  std::string name;
  std::string file;
  std::string expected;
  DataModel data_model = DataModel::kLP64;
};

// What an SV-COMP task file (.yml) says of how to read its program: the C file (`input_files`, relative to
// the task file) and `data_model` (ILP32 or LP64; LP64 when absent, as in format 1.0 files).
struct TaskFile {
  std::string file;
  DataModel data_model = DataModel::kLP64;
};

// Reads a task file. Throws common::InputError when it cannot be read, names no input file, or names a
// data model other than ILP32 and LP64.
TaskFile ReadTaskFile(const std::string& yml);

// The tasks listed in dir/MANIFEST.tsv (tab-separated: file, upstream path, commits, verdict, ...), each
// with the data model of the task file beside it (same name, .yml); empty when there is no such file.
std::vector<SvCompTask> ReadManifest(const std::string& dir);

}  // namespace fusion
