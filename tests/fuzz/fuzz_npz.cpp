// libFuzzer target for the .npz reader (libzip plus the .npy reader): refused with a FileError
// that names the file, or read, written and read back to the same arrays.
#include "core/io/npz.h"

#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    TensorFile f;
    try {
        f = parse_npz(reinterpret_cast<const char*>(data), size, "fuzz.npz");
    } catch (const FileError& e) {
        if (std::strncmp(e.what(), "fuzz.npz: ", 10) != 0) std::abort();
        return 0;
    }
    const std::string bytes = npz_bytes(f, size % 2 == 0, "out.npz");
    const TensorFile back = parse_npz(bytes.data(), bytes.size(), "out.npz");
    if (back.tensors.size() != f.tensors.size()) std::abort();
    for (const auto& [key, t] : f.tensors) {
        const Tensor& b = back.tensors.at(key);
        if (b.shape != t.shape || b.dtype != t.dtype || (!t.values.empty() && std::memcmp(b.values.data(), t.values.data(), t.values.size() * sizeof(double)) != 0))
            std::abort();
    }
    return 0;
}
