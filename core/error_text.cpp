// core/error_text.cpp — an exception as a person reads it.
#include "core/error_text.h"

#include <new>
#include <stdexcept>

namespace core {

std::string error_text(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e)) return "there is not enough memory for it: close other programs or ask for less";
    if (dynamic_cast<const std::length_error*>(&e)) return "it is too large to hold in memory";
    return e.what();
}

} // namespace core
