#include "fusion/heap.h"

#include "fusion/errors.h"

namespace fusion {
namespace {

// Walks a program's statements and expressions, refusing the first use of an object number as an integer.
class HeapPointerCheck {
 public:
  explicit HeapPointerCheck(const Program& program)
      : program_(program), fields_(program.heap_fields), objects_(program.heap_objects) {}

  void Statement(const StmtPtr& s, Loc at) {
    if (!s) return;
    if (s->loc.line > 0) at = s->loc;
    switch (s->kind) {
      case StmtKind::kAssign: {
        const bool counts_objects = s->lhs->kind == ExprKind::kVar && s->lhs->name == objects_;
        if (!counts_objects) {
          Expression(s->lhs, at);
          Expression(s->rhs, at);
          const bool pointer = s->lhs->type == kHeapRef;
          const bool null = s->rhs->kind == ExprKind::kConst && s->rhs->value == 0;
          if (pointer != (s->rhs->type == kHeapRef) && !(pointer && null)) Refuse(at);
        }
        break;
      }
      default:
        Expression(s->cond, at);
        for (const StmtPtr& b : s->body) Statement(b, at);
        Statement(s->step, at);
        break;
    }
  }

 private:
  void Expression(const ExprPtr& e, Loc at) {
    if (!e) return;
    if (e->loc.line > 0) at = e->loc;
    for (const ExprPtr& a : e->args) Expression(a, at);
    const auto pointer = [&](size_t k) { return e->args[k]->type == kHeapRef; };
    switch (e->kind) {
      case ExprKind::kIndex:
        if (pointer(0) != (fields_.count(e->name) > 0)) Refuse(at);
        break;
      case ExprKind::kUnary:
        if (pointer(0) && e->op != "!") Refuse(at);
        break;
      case ExprKind::kBinary:
        if (e->op == "&&" || e->op == "||") break;
        if ((pointer(0) || pointer(1)) && !((e->op == "==" || e->op == "!=") && pointer(0) && pointer(1))) {
          Refuse(at);
        }
        break;
      case ExprKind::kTernary:
        if (pointer(1) != pointer(2) || pointer(1) != (e->type == kHeapRef)) Refuse(at);
        break;
      case ExprKind::kCast: {
        const bool null = e->args[0]->kind == ExprKind::kConst && e->args[0]->value == 0;
        if ((e->type == kHeapRef) != pointer(0) && !(e->type == kHeapRef && null)) Refuse(at);
        break;
      }
      default:
        break;
    }
  }

  [[noreturn]] void Refuse(Loc at) const {
    FailUnsupported(program_.file, at, "use of a pointer to an object on the heap as an integer");
  }

  const Program& program_;
  const std::set<std::string>& fields_;
  const std::string& objects_;
};

}  // namespace

void CheckHeapPointers(const Program& program) {
  HeapPointerCheck check(program);
  check.Statement(program.body, Loc{});
}

}  // namespace fusion
