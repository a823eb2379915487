// libFuzzer target for the .npy reader. Every input must either be refused with a FileError that
// names the file, or read as a tensor that our writer writes and the reader reads back bit-equal.
#include "core/io/npy.h"

#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    Tensor t;
    try {
        t = parse_npy(reinterpret_cast<const char*>(data), size, "fuzz.npy");
    } catch (const FileError& e) {
        if (std::strncmp(e.what(), "fuzz.npy: ", 10) != 0) std::abort();
        return 0;
    }
    const std::string bytes = npy_bytes(t, "out.npy");
    const Tensor back = parse_npy(bytes.data(), bytes.size(), "out.npy");
    if (back.shape != t.shape || back.dtype != t.dtype || back.values.size() != t.values.size() ||
        (!t.values.empty() && std::memcmp(back.values.data(), t.values.data(), t.values.size() * sizeof(double)) != 0))
        std::abort();
    return 0;
}
