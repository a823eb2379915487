// libFuzzer target for the .npy reader. Every input must either be refused with a FileError that
// names the file, or read as a tensor that our writer writes and the reader reads back bit-equal.
#include "core/io/npy.h"
#include "tensor_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    Tensor t;
    if (!fuzz::parses(parse_npy, data, size, "fuzz.npy", t)) return 0;
    const std::string bytes = npy_bytes(t, "out.npy");
    fuzz::require_same(parse_npy(bytes.data(), bytes.size(), "out.npy"), t);
    return 0;
}
