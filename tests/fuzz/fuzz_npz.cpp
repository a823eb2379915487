// libFuzzer target for the .npz reader (libzip plus the .npy reader): refused with a FileError
// that names the file, or read, written and read back to the same arrays.
#include "core/io/npz.h"
#include "tensor_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    return fuzz::round_trip<TensorFile>(
        parse_npz, [size](const TensorFile& t) { return npz_bytes(t, size % 2 == 0, "out.npz"); }, data, size, "fuzz.npz");
}
