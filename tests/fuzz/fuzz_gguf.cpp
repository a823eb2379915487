// libFuzzer target for the GGUF reader: refused with one line that names the file, or a table whose
// every tensor lies inside the input, and whose every metadata key each typed getter either reads or
// refuses with one line naming the file and the key. Each tensor of a type attnviz reads has its first
// row dequantized from the input's bytes, whatever they hold (every block type's bit fields).
#include "core/io/tensor.h"
#include "core/model/format/gguf.h"
#include "core/model/format/gguf_model.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const std::string name = "fuzz.gguf";

void check_refusal(const core::io::FileError& e, const std::string& start) {
    const std::string what = e.what();
    if (what.rfind(start, 0) != 0 || what.find('\n') != std::string::npos) std::abort();
}

template <class Get>
void read_or_refuse(Get get, const core::model::gguf::File& f, const std::string& key) {
    try {
        get(f, key);
    } catch (const core::io::FileError& e) {
        check_refusal(e, name + ": metadata key " + core::model::gguf::quote_name(key) + " ");
    }
}

void check_getters(const core::model::gguf::File& f) {
    using namespace core::model::gguf;
    for (const auto& [key, value] : f.metadata) {
        read_or_refuse(get_u64, f, key);
        read_or_refuse(get_i64, f, key);
        read_or_refuse(get_f64, f, key);
        read_or_refuse(get_bool, f, key);
        read_or_refuse(get_string, f, key);
        read_or_refuse(get_strings, f, key);
        read_or_refuse(get_f32s, f, key);
        read_or_refuse(get_i32s, f, key);
    }
}

// The first row of a tensor the table placed inside the input, as attnviz reads it.
void dequantize_first_row(const core::model::gguf::TensorInfo& t, const std::uint8_t* data) {
    const std::optional<core::model::WeightType> type = core::model::readable_weight_type(t.type);
    if (!type || t.shape.empty() || t.bytes == 0) return; // an empty tensor has no row
    const core::model::BlockShape b = core::model::block_shape(*type);
    const std::int64_t row = t.shape.back();
    if (row % b.values != 0 || static_cast<std::uint64_t>(row / b.values * b.bytes) > t.bytes) std::abort();
    std::vector<float> values(static_cast<std::size_t>(row));
    core::model::dequantize(*type, data + t.offset, values.data(), row);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace core::model::gguf;
    File f;
    try {
        f = parse(data, size, name);
    } catch (const core::io::FileError& e) {
        check_refusal(e, name + ": ");
        return 0;
    }
    if (f.version != 2 && f.version != 3) std::abort();
    for (const TensorInfo& t : f.tensors)
        if (t.offset < f.data_offset || t.offset > size || t.bytes > size - t.offset || !ggml_type(t.type)) std::abort();
    check_getters(f);
    for (const TensorInfo& t : f.tensors) dequantize_first_row(t, data);
    return 0;
}
