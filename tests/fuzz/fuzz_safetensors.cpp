// libFuzzer target for the safetensors reader: refused with a FileError that names the file, or
// read, written and read back to the same tensors and metadata.
#include "core/io/safetensors.h"
#include "tensor_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::io;
    TensorFile f;
    if (!fuzz::parses(parse_safetensors, data, size, "fuzz.safetensors", f)) return 0;
    const std::string bytes = safetensors_bytes(f, "out.safetensors");
    fuzz::require_same(parse_safetensors(bytes.data(), bytes.size(), "out.safetensors"), f);
    return 0;
}
