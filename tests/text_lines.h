// tests/text_lines.h — a shown text cut at its line breaks, as a reader sees its lines.
#pragma once

#include <sstream>
#include <string>
#include <vector>

inline std::vector<std::string> lines_of(const std::string& shown) {
    std::vector<std::string> lines;
    std::istringstream in(shown);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}
