#include "fusion/affine_hull.h"

#include <algorithm>

namespace fusion {

bool AffineHull::Add(const std::vector<mpq_class>& point) {
  if (!base_) {
    base_ = point;
    return true;
  }
  std::vector<mpq_class> d(dims_);
  for (size_t i = 0; i < dims_; ++i) d[i] = point[i] - (*base_)[i];
  for (size_t r = 0; r < rows_.size(); ++r) {
    const mpq_class f = d[pivots_[r]];
    if (f == 0) continue;
    for (size_t i = 0; i < dims_; ++i) d[i] -= f * rows_[r][i];
  }
  size_t pivot = 0;
  while (pivot < dims_ && d[pivot] == 0) ++pivot;
  if (pivot == dims_) return false;
  const mpq_class lead = d[pivot];
  for (auto& x : d) x /= lead;
  for (auto& row : rows_) {
    const mpq_class f = row[pivot];
    if (f == 0) continue;
    for (size_t i = 0; i < dims_; ++i) row[i] -= f * d[i];
  }
  const size_t at = static_cast<size_t>(std::lower_bound(pivots_.begin(), pivots_.end(), pivot) - pivots_.begin());
  rows_.insert(rows_.begin() + static_cast<std::ptrdiff_t>(at), std::move(d));
  pivots_.insert(pivots_.begin() + static_cast<std::ptrdiff_t>(at), pivot);
  return true;
}

std::vector<std::pair<std::vector<mpz_class>, mpz_class>> AffineHull::Equalities() const {
  std::vector<std::pair<std::vector<mpz_class>, mpz_class>> out;
  if (!base_) return out;
  size_t r = 0;
  for (size_t f = 0; f < dims_; ++f) {
    if (r < pivots_.size() && pivots_[r] == f) {
      ++r;
      continue;
    }
    std::vector<mpq_class> a(dims_, 0);
    a[f] = 1;
    for (size_t k = 0; k < rows_.size(); ++k) a[pivots_[k]] = -rows_[k][f];
    mpq_class b = 0;
    for (size_t i = 0; i < dims_; ++i) b += a[i] * (*base_)[i];
    const mpz_class scale = DenominatorLcm(a, b.get_den());
    std::vector<mpz_class> coeffs(dims_);
    for (size_t i = 0; i < dims_; ++i) coeffs[i] = mpq_class(a[i] * scale).get_num();
    out.emplace_back(std::move(coeffs), mpq_class(b * scale).get_num());
  }
  return out;
}

mpz_class DenominatorLcm(const std::vector<mpq_class>& v, mpz_class lcm) {
  for (const auto& x : v) mpz_lcm(lcm.get_mpz_t(), lcm.get_mpz_t(), x.get_den().get_mpz_t());
  return lcm;
}

}  // namespace fusion
