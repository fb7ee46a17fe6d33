// The affine hull of a set of points with rational coordinates, grown one point at a time: the equalities
// every point satisfies. Karr's domain for the affine invariants (affine.h), and, over the values of
// monomials, the guessing of polynomial equalities (polynomial.h).
#pragma once

#include <gmpxx.h>

#include <optional>
#include <utility>
#include <vector>

namespace fusion {

// A base point and the directions from it in reduced row echelon form (exact rationals: models may hold
// numbers of any size).
class AffineHull {
 public:
  explicit AffineHull(size_t dims) : dims_(dims) {}

  bool empty() const { return !base_; }
  // True once the hull is the whole space: no equality is left to find.
  bool full() const { return base_ && rows_.size() == dims_; }

  // Adds a point; returns whether the hull grew.
  bool Add(const std::vector<mpq_class>& point);

  // The equalities of the hull in integer coefficients, one per dimension f without a pivot:
  // x_f - sum_r rows_[r][f] x_pivot(r) == the same at the base point. Each involves x_f and dimensions before
  // it only (a row is zero before its pivot), so that the equalities among the first k dimensions are those
  // whose f is below k.
  std::vector<std::pair<std::vector<mpz_class>, mpz_class>> Equalities() const;

 private:
  size_t dims_;
  std::optional<std::vector<mpq_class>> base_;
  std::vector<std::vector<mpq_class>> rows_;
  std::vector<size_t> pivots_;  // the pivot column of each row, ascending
};

// The least common multiple of the denominators of v's entries and of `lcm`: the factor that makes each entry
// an integer.
mpz_class DenominatorLcm(const std::vector<mpq_class>& v, mpz_class lcm = 1);

}  // namespace fusion
