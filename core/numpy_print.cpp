// core/numpy_print.cpp — NumPy's fixed-point array printing ("maxprec" float mode).
#include "core/numpy_print.h"

#include "core/io/files.h"

#include <algorithm>
#include <cmath>

namespace core {

namespace {

// np.round: scale, round half to even, scale back.
double numpy_round(double x, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::nearbyint(x * scale) / scale;
}

// Shortest digits that read back as x, in positional notation: "0.47", "-3.", "12.5".
std::string positional(double x) {
    std::string s = io::json_number(x); // shortest round trip, possibly "1e-05" or "3"
    if (s.find_first_of("eE") != std::string::npos) return "";
    if (s.find('.') == std::string::npos) s += ".";
    while (s.back() == '0') s.pop_back(); // NumPy trims trailing zeros, keeps the dot: "1."
    return s;
}

} // namespace

std::string numpy_print_rounded(const Matrix& m, int decimals) {
    if (m.size() == 0) return "";
    std::vector<std::string> cells;
    double lo = INFINITY, hi = 0;
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const double v = numpy_round(m.data()[i], decimals);
        if (!std::isfinite(v)) return "";
        if (v != 0) {
            lo = std::min(lo, std::fabs(v));
            hi = std::max(hi, std::fabs(v));
        }
        cells.push_back(positional(v));
        if (cells.back().empty()) return "";
        if (cells.back().size() - cells.back().find('.') - 1 > 8) return ""; // NumPy caps at 8 digits
    }
    if (hi >= 1e8 || (hi > 0 && (lo < 1e-4 || hi / lo > 1e3))) return ""; // NumPy would switch to 1.2e-05 notation
    std::size_t int_width = 0, frac_width = 0;
    for (const std::string& c : cells) {
        const std::size_t dot = c.find('.');
        int_width = std::max(int_width, dot);
        frac_width = std::max(frac_width, c.size() - dot - 1);
    }
    for (std::string& c : cells) {
        const std::size_t dot = c.find('.');
        c = std::string(int_width - dot, ' ') + c + std::string(frac_width - (c.size() - dot - 1), ' ');
    }
    std::string out = "[";
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        std::string row = r ? "\n [" : "[";
        for (Eigen::Index c = 0; c < m.cols(); ++c) row += (c ? " " : "") + cells[static_cast<std::size_t>(r * m.cols() + c)];
        row += "]";
        if (row.size() + 2 > 75) return ""; // NumPy would wrap the row
        out += row;
    }
    return out + "]";
}

} // namespace core
