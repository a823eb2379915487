// libFuzzer target for the .npy reader. Every input must either be refused with a FileError that
// names the file, or read as a tensor that our writer writes and the reader reads back bit-equal.
#include "core/io/npy.h"
#include "tensor_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    return fuzz::round_trip<Tensor>(
        parse_npy, [](const Tensor& t) { return npy_bytes(t, "out.npy"); }, data, size, "fuzz.npy");
}
