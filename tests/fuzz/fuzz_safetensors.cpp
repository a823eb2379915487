// libFuzzer target for the safetensors reader: refused with a FileError that names the file, or
// read, written and read back to the same tensors and metadata.
#include "core/io/safetensors.h"
#include "tensor_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    return fuzz::round_trip<TensorFile>(
        parse_safetensors, [](const TensorFile& t) { return safetensors_bytes(t, "out.safetensors"); }, data, size, "fuzz.safetensors");
}
