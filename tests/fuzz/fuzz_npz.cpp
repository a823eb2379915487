// libFuzzer target for the .npz reader (libzip plus the .npy reader): refused with a FileError
// that names the file, or read, written and read back to the same arrays.
#include "core/io/npz.h"
#include "tensor_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    TensorFile f;
    if (!fuzz::parses(parse_npz, data, size, "fuzz.npz", f)) return 0;
    const std::string bytes = npz_bytes(f, size % 2 == 0, "out.npz");
    fuzz::require_same(parse_npz(bytes.data(), bytes.size(), "out.npz"), f);
    return 0;
}
