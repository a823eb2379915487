// core/error_text.h — an exception as a person reads it. A failed allocation's what() is
// "std::bad_alloc", which tells nobody anything: it becomes a sentence.
#pragma once

#include <exception>
#include <string>

namespace core {

std::string error_text(const std::exception& e);

} // namespace core
