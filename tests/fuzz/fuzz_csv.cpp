// libFuzzer target for the .csv/.tsv reader: refused with a FileError that names the file and
// place, or a table whose shape, names and values agree with each other.
#include "core/io/delimited.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const char sep = size % 2 ? '\t' : ',';
    Table t;
    try {
        t = parse_delimited(text, sep, "fuzz.csv");
    } catch (const FileError& e) {
        if (std::strncmp(e.what(), "fuzz.csv: ", 10) != 0) std::abort();
        return 0;
    }
    if (t.values.shape.size() != 2 || t.values.shape[0] < 1 || t.values.shape[1] < 1) std::abort();
    if (static_cast<std::size_t>(t.values.shape[0] * t.values.shape[1]) != t.values.values.size()) std::abort();
    if (!t.row_names.empty() && static_cast<std::int64_t>(t.row_names.size()) != t.values.shape[0]) std::abort();
    if (!t.column_names.empty() && static_cast<std::int64_t>(t.column_names.size()) != t.values.shape[1]) std::abort();
    for (double v : t.values.values)
        if (!std::isfinite(v)) std::abort();
    return 0;
}
