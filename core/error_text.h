// core/error_text.h — an exception as a person reads it. A failed allocation's what() is
// "std::bad_alloc", which tells nobody anything: it becomes a sentence.
#pragma once

#include <cstddef>
#include <exception>
#include <string>

namespace core {

std::string error_text(const std::exception& e);

// The fewest insertions, deletions and substitutions that turn a into b: how far a typo is from a
// name, for the messages that suggest the nearest.
std::size_t edit_distance(const std::string& a, const std::string& b);

} // namespace core
