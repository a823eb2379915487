// libFuzzer target for the safetensors reader: refused with a FileError that names the file, or
// read, written and read back to the same tensors and metadata.
#include "core/io/safetensors.h"

#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    TensorFile f;
    try {
        f = parse_safetensors(reinterpret_cast<const char*>(data), size, "fuzz.safetensors");
    } catch (const FileError& e) {
        if (std::strncmp(e.what(), "fuzz.safetensors: ", 18) != 0) std::abort();
        return 0;
    }
    const std::string bytes = safetensors_bytes(f, "out.safetensors");
    const TensorFile back = parse_safetensors(bytes.data(), bytes.size(), "out.safetensors");
    if (back.metadata != f.metadata || back.tensors.size() != f.tensors.size()) std::abort();
    for (const auto& [key, t] : f.tensors) {
        const Tensor& b = back.tensors.at(key);
        if (b.shape != t.shape || b.dtype != t.dtype || (!t.values.empty() && std::memcmp(b.values.data(), t.values.data(), t.values.size() * sizeof(double)) != 0))
            std::abort();
    }
    return 0;
}
