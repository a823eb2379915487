// core/numpy_print.h — a matrix as NumPy prints it, so that attnviz can show exactly what an
// article's `print(w.round(2))` shows.
#pragma once

#include "core/scenario.h"

#include <string>

namespace core {

// `print(m.round(decimals))` for a 2-d float array in NumPy's default print options: shortest
// digits, trailing zeros trimmed ("0.3 ", "1.  "), columns aligned. Covers the fixed-point
// notation NumPy picks when the nonzero magnitudes lie in [1e-4, 1e8) within a ratio of 1000, and
// rows that fit its 75-character line; anything else returns "" (not emulated).
std::string numpy_print_rounded(const Matrix& m, int decimals);

} // namespace core
