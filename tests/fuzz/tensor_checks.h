// tests/fuzz/tensor_checks.h — what every tensor-file fuzz target checks: a refusal names the file
// ("fuzz.npy: …"), and what was read is written and read back bit-equal. A failed check aborts,
// which libFuzzer reports with the input.
#pragma once

#include "core/io/tensor.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace fuzz {

// `parse(bytes, size, name)` into `out`; false when it refused the input with a FileError that
// starts with `name`. Any other refusal aborts.
template <class Result, class Parse>
bool parses(Parse parse, const std::uint8_t* data, std::size_t size, const std::string& name, Result& out) {
    try {
        out = parse(reinterpret_cast<const char*>(data), size, name);
        return true;
    } catch (const core::io::FileError& e) {
        if (std::strncmp(e.what(), (name + ": ").c_str(), name.size() + 2) != 0) std::abort();
        return false;
    }
}

inline void require_same(const core::io::Tensor& a, const core::io::Tensor& b) {
    if (a.shape != b.shape || a.dtype != b.dtype || a.values.size() != b.values.size() ||
        (!a.values.empty() && std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) != 0))
        std::abort();
}

inline void require_same(const core::io::TensorFile& a, const core::io::TensorFile& b) {
    if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) std::abort();
    for (const auto& [key, t] : a.tensors) {
        const auto other = b.tensors.find(key);
        if (other == b.tensors.end()) std::abort();
        require_same(t, other->second);
    }
}

// The whole check of a reader: parse `data` as `name`; when it is read, write it with `write` and
// read that back (as "out"), which must give the same thing.
template <class Result, class Parse, class Write>
int round_trip(Parse parse, Write write, const std::uint8_t* data, std::size_t size, const std::string& name) {
    Result first;
    if (!parses(parse, data, size, name, first)) return 0;
    const std::string bytes = write(first);
    require_same(parse(bytes.data(), bytes.size(), "out"), first);
    return 0;
}

} // namespace fuzz
