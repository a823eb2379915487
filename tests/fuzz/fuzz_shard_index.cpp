// libFuzzer target for model.safetensors.index.json: refused with one line that names the file, or
// a weight map whose every shard is a plain file name in the index's own directory.
#include "core/io/tensor.h"
#include "core/model/weights.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::map<std::string, std::string> files;
    try {
        files = core::model::parse_shard_index(text, "fuzz/model.safetensors.index.json");
    } catch (const core::io::FileError& e) {
        const std::string what = e.what();
        if (what.rfind("fuzz/model.safetensors.index.json: ", 0) != 0 || what.find('\n') != std::string::npos) std::abort();
        return 0;
    }
    if (files.empty()) std::abort();
    for (const auto& [tensor, file] : files)
        if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos) std::abort();
    return 0;
}
