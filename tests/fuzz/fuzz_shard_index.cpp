// libFuzzer target for model.safetensors.index.json: refused with one line that names the file, or
// a weight map whose every shard is a plain file name in the index's own directory.
#include "core/model/format/weights.h"
#include "refusal_checks.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::map<std::string, std::string> files;
    if (!fuzz::parses_or_refuses_in_one_line(core::model::parse_shard_index, data, size, "fuzz/model.safetensors.index.json", files)) return 0;
    if (files.empty()) std::abort();
    for (const auto& [tensor, file] : files)
        if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos) std::abort();
    return 0;
}
