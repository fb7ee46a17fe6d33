// loopfuse: proves or refutes the assertions of a small C program by fusing consecutive loops and solving
// constrained Horn clauses with Z3. A thin front end over src/fusion.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/exit_codes.h"
#include "common/progress.h"
#include "fusion/affine.h"
#include "fusion/cells.h"
#include "fusion/errors.h"
#include "fusion/fuse.h"
#include "fusion/horn.h"
#include "fusion/lift.h"
#include "fusion/normalize.h"
#include "fusion/parser.h"
#include "fusion/polynomial.h"
#include "fusion/printer.h"
#include "fusion/svcomp_tasks.h"
#include "fusion/verifier.h"
#include "fusion/wrap_checks.h"
#include "tools/cli_checks.h"

namespace {

// Exit statuses of `loopfuse verify` (documented in the README): the verdict, or a failure.
constexpr int kExitTrue = 0;
constexpr int kExitFalse = 1;
constexpr int kExitUnknown = 4;

// Time for each kind of invariant of `horn --affine` (a program with no time limit of its own; milliseconds
// on the benchmark's programs).
constexpr double kAffineSeconds = 60;

// The data model a --data-model value names.
fusion::DataModel ModelNamed(const std::string& name) {
  return name == "ILP32" ? fusion::DataModel::kILP32 : fusion::DataModel::kLP64;
}

// Options of `loopfuse verify`.
struct VerifyArgs {
  std::string file;
  std::string yml;
  std::string data_model;  // ILP32, LP64, or empty: the task file's, else LP64
  double timeout = 10;
  bool no_fusion = false;
  bool no_affine = false;
  bool invariants = false;
  bool json = false;
  bool quiet = false;
};

// Runs the verifier on the file with a progress line, redrawn at each of its calls (every 0.2 s): the line says
// which file and how long it has been running against the time-out.
fusion::Verdict VerifyWithProgress(const VerifyArgs& a, const std::string& file, fusion::DataModel model) {
  const bool wanted = common::ProgressWanted(a.quiet || a.json);
  common::Progress progress(wanted);
  fusion::VerifyOptions options{a.timeout, !a.no_fusion, 0, !a.no_affine};
  if (wanted) {
    options.on_progress = [&](double) {
      progress.Show("loopfuse verify", fmt::format("{}: no verdict yet (time-out {} s)", file, a.timeout));
    };
  }
  return fusion::VerifyFile(file, model, options);
}

int RunVerify(const VerifyArgs& a) {
  fusion::TaskFile task;
  task.file = a.file;
  if (!a.yml.empty()) task = fusion::ReadTaskFile(a.yml);
  if (!a.data_model.empty()) task.data_model = ModelNamed(a.data_model);
  const std::string& file = task.file;
  const fusion::Verdict v = VerifyWithProgress(a, file, task.data_model);
  if (a.json) {
    nlohmann::json j;
    j["file"] = file;
    j["verdict"] = v.verdict;
    j["reason"] = v.reason;
    j["seconds"] = v.seconds;
    j["transformations"] = v.transformations;
    j["solved_by"] = v.solved_by;
    if (v.verdict == "false") {
      std::vector<nlohmann::json> inputs, sites;
      for (auto x : v.inputs) inputs.push_back(nlohmann::json::parse(fusion::DecimalText(x)));
      for (const fusion::InputSite& site : v.input_sites) {
        sites.push_back(site.name.empty() ? nlohmann::json{{"line", site.loc.line}, {"column", site.loc.col}}
                                          : nlohmann::json{{"variable", site.name}});
      }
      j["counterexample"] = {{"inputs", inputs}, {"sites", sites}};
    }
    if (a.invariants) j["invariants"] = v.invariants;
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{}: {} ({}; {:.2f} s)\n", file, v.verdict, v.reason, v.seconds);
    for (const auto& t : v.transformations) fmt::print("  transformation: {}\n", t);
    if (!v.solved_by.empty()) fmt::print("  solved by: {}\n", v.solved_by);
    if (v.verdict == "false") {
      // A run through a large array reads hundreds of thousands of inputs: the line shows the first ones, and
      // --json has them all. The values of the __VERIFIER_nondet_* calls are bare, in the order of the calls, as
      // a replay feeds them; an uninitialised variable's or array cell's is `name=value`.
      constexpr size_t kShownInputs = 64;
      std::string in;
      for (size_t k = 0; k < std::min(v.inputs.size(), kShownInputs); ++k) {
        const std::string& name = k < v.input_sites.size() ? v.input_sites[k].name : "";
        in += (in.empty() ? "" : " ") + (name.empty() ? "" : name + "=") + fusion::DecimalText(v.inputs[k]);
      }
      if (v.inputs.size() > kShownInputs) {
        in += fmt::format(" ... ({} more: --json lists all)", v.inputs.size() - kShownInputs);
      }
      fmt::print("  nondeterministic inputs ({}): {}\n", v.inputs.size(), in);
    }
    if (a.invariants) {
      for (size_t k = 0; k < v.invariants.size(); ++k) fmt::print("  invariant L{}: {}\n", k, v.invariants[k]);
    }
  }
  return v.verdict == "true" ? kExitTrue : v.verdict == "false" ? kExitFalse : kExitUnknown;
}

// Adds --half: which program of the unsigned wrap-around split (wrap_checks.h) to show instead of the
// program itself, as the verifier's portfolio sees it.
// --data-model: the sizes of long, size_t and pointers, as an SV-COMP task file's data_model gives them.
void AddDataModelOption(CLI::App& cmd, std::string& model, const std::string& fallback) {
  cmd.add_option("--data-model", model, "ILP32 or LP64: 32- or 64-bit long, size_t and pointers (default: " +
                                            fallback + ")")
      ->check(CLI::IsMember({"ILP32", "LP64"}));
}

void AddHalfOption(CLI::App& cmd, std::string& half) {
  cmd.add_option("--half", half, "none, no-wrap or under-no-wrap: a half of the wrap-around split")
      ->check(CLI::IsMember({"none", "no-wrap", "under-no-wrap"}));
}

// The program, or the half of its wrap-around split that half names (the program when it has no split).
fusion::Program Half(const fusion::Program& prog, const std::string& half) {
  fusion::WrapSplit split;
  if (half == "none" || !fusion::SplitWrapChecks(prog, split)) return prog;
  return half == "no-wrap" ? split.no_wrap : split.under_no_wrap;
}

// --cells and --lift of fuse and horn.
void AddCellsAndLiftFlags(CLI::App& cmd, bool& cells, bool& lift) {
  cmd.add_flag("--cells", cells, "cell abstraction first: each array as its cell at one nondeterministic index");
  cmd.add_flag("--lift", lift, "unsigned values lifted to the integers first, before --half and --cells");
}

// prog, or with --cells its cell abstraction (fusion/cells.h), whose line is appended to `applied`; a program
// the abstraction does not apply to is a usage error.
fusion::Program Cells(const fusion::Program& prog, bool cells, std::vector<std::string>& applied) {
  if (!cells) return prog;
  std::string why_not;
  std::optional<fusion::Program> abstraction = fusion::AbstractCells(prog, why_not);
  if (!abstraction) throw common::InputError(prog.file + ": --cells: the cell abstraction does not apply: " + why_not);
  applied.push_back(fusion::CellAbstractionLine(prog));
  return std::move(*abstraction);
}

// prog, or with --lift its lifted program (fusion/lift.h), whose line is appended to `applied`; a program
// where nothing is lifted is a usage error.
fusion::Program Lift(const fusion::Program& prog, bool lift, std::vector<std::string>& applied) {
  if (!lift) return prog;
  std::string why_not;
  std::optional<fusion::Lifted> lifted = fusion::LiftUnsigned(prog, why_not);
  if (!lifted) throw common::InputError(prog.file + ": --lift: nothing to lift: " + why_not);
  applied.push_back(lifted->line);
  return std::move(lifted->prog);
}

// The program that fuse and horn show: file with its set-once constants substituted and its constant cells as
// scalars (as verify's candidates start), then --lift, --half and
// --cells applied in that order (the verifier's: a lifted program is split, the cell abstraction is of a whole
// program); what made it is appended to `applied`.
fusion::Program Shown(const std::string& file, const std::string& model, bool lift, const std::string& half,
                      bool cells, std::vector<std::string>& applied) {
  const fusion::Program prog = fusion::CandidateStart(fusion::ParseFile(file, ModelNamed(model)), applied);
  return Cells(Half(Lift(prog, lift, applied), half), cells, applied);
}

// The fusion mode a --mode value names (aligned, guess, split; anything else: all).
fusion::FusionMode ModeNamed(const std::string& mode) {
  return mode == "aligned" ? fusion::FusionMode::kAligned
         : mode == "guess" ? fusion::FusionMode::kGuess
         : mode == "split" ? fusion::FusionMode::kSplit
         : mode == "recurrences" ? fusion::FusionMode::kRecurrences
                           : fusion::FusionMode::kAll;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"loopfuse: verifies C programs with consecutive loops by loop fusion and Horn clauses"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "loopfuse 0.1");
  int status = common::kExitOk;
  VerifyArgs va;
  auto* verify = app.add_subcommand("verify", "prove (true) or refute (false) that no error is reachable");
  verify->add_option("file", va.file, "C file (the SV-COMP subset)");
  verify->add_option("--yml", va.yml, "SV-COMP task file naming the C file");
  AddDataModelOption(*verify, va.data_model, "the task file's data_model, else LP64");
  verify->add_option("--timeout", va.timeout, "seconds for the whole run")->check(tools::FinitePositive());
  verify->add_flag("--no-fusion", va.no_fusion, "only the original program (no fused candidates)");
  verify->add_flag("--no-affine", va.no_affine,
                   "Spacer without the inferred invariants, affine and polynomial (to measure what they add)");
  verify->add_flag("--invariants", va.invariants, "print the loop invariants of a proof");
  verify->add_flag("--json", va.json, "one JSON object on stdout");
  verify->add_flag("-q,--quiet", va.quiet, "no progress line (--json implies it)");
  verify->callback([&] {
    if (va.file.empty() == va.yml.empty()) throw CLI::ValidationError("give either a C file or --yml");
    status = RunVerify(va);
  });
  std::string fuse_file, mode = "all", fuse_half = "none", fuse_model = "LP64";
  bool fuse_json = false, fuse_cells = false, fuse_lift = false;
  auto* fuse = app.add_subcommand("fuse", "print the fused program as C");
  fuse->add_option("file", fuse_file, "C file")->required();
  fuse->add_option("--mode", mode, "aligned, guess, all, split or recurrences")
      ->check(CLI::IsMember({"aligned", "guess", "all", "split", "recurrences"}));
  AddHalfOption(*fuse, fuse_half);
  AddDataModelOption(*fuse, fuse_model, "LP64");
  AddCellsAndLiftFlags(*fuse, fuse_cells, fuse_lift);
  fuse->add_flag("--json", fuse_json, "one JSON object on stdout: file, transformations, program");
  fuse->callback([&] {
    std::vector<std::string> applied;
    const fusion::Program prog = Shown(fuse_file, fuse_model, fuse_lift, fuse_half, fuse_cells, applied);
    fusion::Variant v = fusion::Transform(prog, ModeNamed(mode));
    v.transformations.insert(v.transformations.begin(), applied.begin(), applied.end());
    if (fuse_json) {
      const nlohmann::json j = {{"file", fuse_file}, {"transformations", v.transformations},
                                {"program", fusion::PrintProgram(v.prog)}};
      fmt::print("{}\n", j.dump());
      return;
    }
    for (const auto& t : v.transformations) fmt::print("// {}\n", t);
    if (v.transformations.empty()) fmt::print("// no transformation applies\n");
    fmt::print("{}", fusion::PrintProgram(v.prog));
  });
  std::string horn_file, horn_mode = "none", horn_half = "none", horn_model = "LP64";
  bool horn_json = false, horn_cells = false, horn_lift = false, horn_affine = false, horn_summaries = false;
  auto* horn = app.add_subcommand("horn", "print the Horn clauses of the (fused) program as SMT-LIB2");
  horn->add_option("file", horn_file, "C file")->required();
  horn->add_option("--mode", horn_mode, "none, aligned, guess, all, split or recurrences")
      ->check(CLI::IsMember({"none", "aligned", "guess", "all", "split", "recurrences"}));
  AddHalfOption(*horn, horn_half);
  AddDataModelOption(*horn, horn_model, "LP64");
  AddCellsAndLiftFlags(*horn, horn_cells, horn_lift);
  horn->add_flag("--affine", horn_affine,
                 "the clauses strengthened by the inferred invariants (affine; polynomial equalities where the clauses "
                 "multiply variables), as verify solves them");
  horn->add_flag("--summaries", horn_summaries,
                 "recursive functions as procedures with summaries (nonlinear clauses), as verify's summaries "
                 "candidate has them; not with --mode, --half, --cells or --lift");
  horn->add_flag("--json", horn_json, "one JSON object on stdout: file, transformations, smt2");
  horn->callback([&] {
    std::vector<std::string> applied;
    if (horn_summaries && (horn_mode != "none" || horn_half != "none" || horn_cells || horn_lift)) {
      throw common::InputError("--summaries: not with --mode, --half, --cells or --lift");
    }
    fusion::Program prog = horn_summaries ? fusion::ParseFile(horn_file, ModelNamed(horn_model), true)
                                          : Shown(horn_file, horn_model, horn_lift, horn_half, horn_cells, applied);
    if (horn_mode != "none") {
      fusion::Variant v = fusion::Transform(prog, ModeNamed(horn_mode));
      applied.insert(applied.end(), v.transformations.begin(), v.transformations.end());
      prog = std::move(v.prog);
    }
    z3::context ctx;
    fusion::HornSystem sys = fusion::EncodeHorn(prog, ctx);
    if (horn_affine) {
      fusion::InferredInvariants inv = fusion::InferAffineInvariants(sys, ctx, kAffineSeconds);
      if (fusion::MultipliesVariables(sys)) fusion::InferPolynomialInvariants(sys, ctx, kAffineSeconds, inv);
      size_t equalities = 0, polynomials = 0, consequences = 0, disjunctions = 0, unreachable = 0;
      for (size_t p = 0; p < inv.reachable.size(); ++p) {
        equalities += inv.equalities[p].size();
        polynomials += inv.polynomials[p].size();
        consequences += inv.consequences[p].size();
        disjunctions += inv.disjunctions[p].size();
        unreachable += !inv.reachable[p];
      }
      applied.push_back(fmt::format("strengthened by the inferred invariants: {} equalities, {} polynomial equalities "
                                    "and {} of their consequences, {} disjunctions of bounds, {} loop heads "
                                    "unreachable",
                                    equalities, polynomials, consequences, disjunctions, unreachable));
      sys = fusion::Strengthened(sys, inv, ctx);
    }
    const std::string smt2 = fusion::HornToSmt2(sys, ctx);
    if (horn_json) {
      fmt::print("{}\n", nlohmann::json{{"file", horn_file}, {"transformations", applied}, {"smt2", smt2}}.dump());
    } else {
      for (const auto& t : applied) fmt::print("; {}\n", t);
      fmt::print("{}", smt2);
    }
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int s = app.exit(e);
    return s == 0 ? common::kExitOk : common::kExitBadInput;
  } catch (const common::InputError& e) {
    fmt::print(stderr, "loopfuse: error: {}\n", e.what());
    return common::kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "loopfuse: internal error: {}\n", e.what());
    return common::kExitInternal;
  }
  return status;
}
