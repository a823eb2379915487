// core/io/files.h — what every file format of core shares: reading a file whole, writing one so
// that a crash never leaves half of it, the shortest exact text of a number, and the limits on what a reader takes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace core::io {

// A file that could not be written; what() starts with the path ("deck.json: cannot write: …").
struct WriteError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The whole of the file at `path`; nothing when it cannot be opened.
std::optional<std::string> read_whole_file(const std::string& path);

// Writes a temporary file beside `path`, fsyncs it and renames it over `path`: a crash at any
// moment leaves either the old file or the new one. Throws WriteError.
void write_file_atomically(const std::string& path, const std::string& text);
// The same, the text given a piece at a time (a file too large to hold): next(piece) fills piece
// and returns false after the last one. What next throws leaves no file and passes on.
void write_file_atomically(const std::string& path, const std::function<bool(std::string& piece)>& next);

// Shortest text that reads back as exactly `x` ("1", "0.1", "1.4142135623730951").
std::string json_number(double x);

// The largest file a text reader takes whole, and the deepest JSON nesting it parses.
constexpr std::size_t max_file_bytes = 256u << 20;
constexpr int max_json_depth = 32;

} // namespace core::io
