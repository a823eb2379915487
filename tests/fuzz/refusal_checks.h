// tests/fuzz/refusal_checks.h — what the fuzz targets of a model's JSON files (config.json, the shard
// index) check of a refusal: one line that starts with the file's name. A failed check aborts,
// which libFuzzer reports with the input.
#pragma once

#include "core/io/tensor.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace fuzz {

// `parse(text, name)` of the input into `out`; false when it refused the input with a FileError of
// one line that starts with "name: ". Any other refusal aborts.
template <class Result, class Parse>
bool parses_or_refuses_in_one_line(Parse parse, const std::uint8_t* data, std::size_t size, const std::string& name, Result& out) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        out = parse(text, name);
        return true;
    } catch (const core::io::FileError& e) {
        const std::string what = e.what();
        if (what.rfind(name + ": ", 0) != 0 || what.find('\n') != std::string::npos) std::abort();
        return false;
    }
}

} // namespace fuzz
