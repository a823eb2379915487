// core/error_text.cpp — an exception as a person reads it.
#include "core/error_text.h"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <vector>

namespace core {

std::string error_text(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e)) return "there is not enough memory for it: close other programs or ask for less";
    if (dynamic_cast<const std::length_error*>(&e)) return "it is too large to hold in memory";
    return e.what();
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1); // the distances from a's first i characters, a row at a time
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace core
