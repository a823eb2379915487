// core/model/format/gguf_model.cpp — a GGUF file as a model (gguf_model.h): the sizes every
// architecture's file has, then the row's own keys, then its tensors translated and mapped.
#include "core/model/format/gguf_model.h"

#include "core/io/tensor.h"
#include "core/model/arch/table.h"
#include "core/model/format/checkpoint.h"
#include "core/model/format/config_reader.h"
#include "core/model/format/weights.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace core::model {

using core::io::FileError;

void GgufKeys::fail(const char* name, const std::string& why) const {
    throw FileError(file.path + ": metadata key \"" + key(name) + "\" " + why);
}

int GgufKeys::whole(const char* name, long long lo, long long hi) const {
    if (!has(name)) fail(name, "is missing");
    const std::int64_t v = gguf::get_i64(file, key(name));
    if (v < lo || v > hi) fail(name, "is " + std::to_string(v) + ", outside " + std::to_string(lo) + " … " + std::to_string(hi));
    return static_cast<int>(v);
}

int GgufKeys::whole(const char* name, long long lo, long long hi, int fallback) const {
    return has(name) ? whole(name, lo, hi) : fallback;
}

double GgufKeys::real(const char* name, double lo, double hi, double fallback) const {
    if (!has(name)) return fallback;
    const double v = gguf::get_f64(file, key(name));
    if (!std::isfinite(v) || v < lo || v > hi) fail(name, "is " + std::to_string(v) + ", outside " + std::to_string(lo) + " … " + std::to_string(hi));
    return v;
}

bool GgufKeys::has_tensor(const std::string& name) const {
    for (const gguf::TensorInfo& t : file.tensors)
        if (t.name == name) return true;
    return false;
}

std::optional<std::vector<double>> GgufKeys::f32_tensor(const std::string& name, int count) const {
    for (const gguf::TensorInfo& t : file.tensors) {
        if (t.name != name) continue;
        if (t.type != 0 || t.shape != std::vector<std::int64_t>{count})
            throw FileError(file.path + ": tensor " + gguf::quote_name(name) + " is not " + std::to_string(count) + " F32 values");
        std::vector<double> values(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            float f;
            std::memcpy(&f, bytes + t.offset + 4 * static_cast<std::size_t>(i), 4);
            values[static_cast<std::size_t>(i)] = f;
        }
        return values;
    }
    return std::nullopt;
}

namespace {

// The sizes llama.cpp's loader reads for every architecture (llama-model.cpp's load_hparams).
void read_sizes(const GgufKeys& k, ModelConfig& c) {
    const gguf::TensorInfo* embed = nullptr;
    for (const gguf::TensorInfo& t : k.file.tensors)
        if (t.name == "token_embd.weight" && t.shape.size() == 2) embed = &t;
    if (!embed) throw FileError(k.file.path + ": no 2-D tensor \"token_embd.weight\" (the token embeddings)");
    c.vocab = static_cast<int>(std::min<std::int64_t>(embed->shape[0], max_config_vocab));
    c.d_model = k.whole("embedding_length", 1, max_config_size);
    c.layers = k.whole("block_count", 1, 1024);
    c.heads = k.whole("attention.head_count", 1, 4096);
    c.kv_heads = k.whole("attention.head_count_kv", 1, 4096, c.heads);
    if (c.heads % c.kv_heads != 0) k.fail("attention.head_count_kv", "does not divide attention.head_count");
    if (!k.has("attention.key_length") && c.d_model % c.heads != 0) k.fail("embedding_length", "is not a multiple of attention.head_count");
    c.d_head = k.whole("attention.key_length", 2, 65536, c.d_model / c.heads);
    if (k.whole("attention.value_length", 1, 65536, c.d_head) != c.d_head) k.fail("attention.value_length", "differs from key_length");
    c.rotary_dim = k.whole("rope.dimension_count", 0, c.d_head, c.d_head);
    // A mixture's file may go without it (llama.cpp reads it as optional; qwen35moe's converter writes none).
    c.d_ff = k.has("feed_forward_length") || !k.has("expert_count") ? k.whole("feed_forward_length", 1, max_config_size) : 0;
    c.context = k.whole("context_length", 1, 1 << 30);
    c.rope_theta = k.real("rope.freq_base", 1e-6, 1e15, 10000.0);
    c.tie_word_embeddings = !k.has_tensor("output.weight");
    const auto id = [&](const char* key) {
        const std::optional<std::uint64_t> v = gguf::find_u64(k.file, key);
        return v && *v < static_cast<std::uint64_t>(c.vocab) ? static_cast<int>(*v) : -1;
    };
    c.bos_token_id = id("tokenizer.ggml.bos_token_id");
    c.eos_token_id = id("tokenizer.ggml.eos_token_id");
    if (c.eos_token_id >= 0) c.eos_token_ids = {c.eos_token_id};
}

// The ggml type ids attnviz reads (ggml.h's enum ggml_type), in the order messages list them.
constexpr std::pair<std::uint32_t, WeightType> readable[] = {
    {0, WeightType::f32},     {1, WeightType::f16},     {30, WeightType::bf16},   {8, WeightType::q8_0},
    {2, WeightType::q4_0},    {3, WeightType::q4_1},    {6, WeightType::q5_0},    {7, WeightType::q5_1},
    {10, WeightType::q2_K},   {11, WeightType::q3_K},   {12, WeightType::q4_K},   {13, WeightType::q5_K},
    {14, WeightType::q6_K},   {20, WeightType::iq4_nl}, {23, WeightType::iq4_xs}, {39, WeightType::mxfp4}};

// "F32, F16, … and MXFP4": for the message on a type attnviz does not read.
std::string readable_types() {
    std::string list;
    const std::size_t n = sizeof(readable) / sizeof(readable[0]);
    for (std::size_t i = 0; i < n; ++i) list += (i == 0 ? "" : i + 1 == n ? " and " : ", ") + std::string(type_name(readable[i].second));
    return list;
}

// "blk.3.attn_q.weight" → "model.layers.3.self_attn.q_proj.weight"; empty for a tensor the model
// does not read. A layer's name given whole ("ssm_a", "ssm_dt.bias") translates whole.
std::string model_name(const std::string& file, const GgufLayout& g) {
    if (file.rfind("blk.", 0) == 0) {
        const std::size_t cut = file.find('.', 4);
        if (cut == std::string::npos || cut == 4 || file.find_first_not_of("0123456789", 4) != cut) return {};
        const std::string layer = file.substr(4, cut - 4), rest = file.substr(cut + 1);
        for (const GgufName& n : g.layer)
            if (rest == n.file) return g.layer_prefix + layer + "." + n.model;
    }
    const std::size_t dot = file.rfind('.');
    if (dot == std::string::npos) return {};
    const std::string base = file.substr(0, dot), suffix = file.substr(dot);
    if (suffix != ".weight" && suffix != ".bias") return {};
    for (const GgufName& n : g.globals)
        if (base == n.file) return n.model + suffix;
    if (base.rfind("blk.", 0) != 0) return {};
    const std::size_t cut = base.find('.', 4);
    if (cut == std::string::npos || cut == 4 || base.find_first_not_of("0123456789", 4) != cut) return {};
    const std::string layer = base.substr(4, cut - 4), rest = base.substr(cut + 1);
    for (const GgufName& n : g.layer)
        if (rest == n.file) return g.layer_prefix + layer + "." + n.model + suffix;
    return {};
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The stored row of each row of a q or k projection (H heads of dh rows) that LlamaModel.permute
// reordered: within a head, transformers' row j·dh/2 + i (half j of the rotary pairs) was written as
// row 2i + j.
std::vector<std::int32_t> unpermuted_rows(std::int64_t rows, int heads) {
    std::vector<std::int32_t> order(static_cast<std::size_t>(rows));
    const std::int64_t dh = rows / heads, half = dh / 2;
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t h = r / dh, j = (r % dh) / half, i = (r % dh) % half;
        order[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(h * dh + 2 * i + j);
    }
    return order;
}

std::vector<MappedTensor> translate(const gguf::File& f, const GgufLayout& g, const ModelConfig& c) {
    std::vector<MappedTensor> out;
    for (const gguf::TensorInfo& t : f.tensors) {
        std::string name = model_name(t.name, g);
        if (name.empty()) continue;
        const std::optional<WeightType> type = readable_weight_type(t.type);
        if (!type)
            throw FileError(f.path + ": tensor " + gguf::quote_name(t.name) + " has type " + gguf::ggml_type_name(t.type) +
                            ", which attnviz does not read; it reads " + readable_types());
        MappedTensor m{name, t.shape, *type, t.offset, {}, t.name};
        const bool q = ends_with(name, "self_attn.q_proj.weight") || ends_with(name, "self_attn.q_proj.bias");
        const bool k = ends_with(name, "self_attn.k_proj.weight") || ends_with(name, "self_attn.k_proj.bias");
        const int heads = q ? c.heads : c.kv_heads;
        if (g.permuted_qk && (q || k) && !t.shape.empty() && t.shape[0] == static_cast<std::int64_t>(heads) * c.d_head && c.d_head % 2 == 0)
            m.row_order = unpermuted_rows(t.shape[0], heads);
        out.push_back(std::move(m));
    }
    return out;
}

std::string model_title(const gguf::File& f, const std::string& path) {
    const std::optional<std::string> name = gguf::find_string(f, "general.name");
    if (name && !name->empty()) return *name;
    return std::filesystem::path(path).filename().string();
}

} // namespace

std::optional<WeightType> readable_weight_type(std::uint32_t ggml_type) {
    for (const auto& [id, type] : readable)
        if (id == ggml_type) return type;
    return std::nullopt;
}

bool has_gguf_magic(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

bool is_gguf_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    return std::filesystem::path(path).extension() == ".gguf" || has_gguf_magic(path);
}

OpenedModel open_gguf(const std::string& path) {
    OpenedModel out;
    out.path = path;
    ModelConfig c;
    const Architecture* arch = nullptr;
    auto weights = Weights::open_mapped(path, [&](const unsigned char* bytes, std::size_t size) {
        const gguf::File f = gguf::parse(bytes, size, path);
        const std::string name = gguf::get_string(f, "general.architecture");
        arch = find_gguf_architecture(name);
        if (!arch)
            throw FileError(path + ": architecture " + gguf::quote_name(name) + " is not supported; attnviz runs GGUF files of " +
                            supported_gguf_architectures());
        c.architecture = arch->name;
        c.name = path;
        c.lm_head = arch->lm_head;
        const GgufKeys keys{f, bytes, name};
        read_sizes(keys, c);
        arch->gguf().read(keys, c);
        if (c.sliding_window.empty()) c.sliding_window.assign(static_cast<std::size_t>(c.layers), 0);
        out.name = model_title(f, path);
        return translate(f, arch->gguf(), c);
    });
    out.weights = weights;
    out.model = arch->build(c, std::move(weights));
    return out;
}

} // namespace core::model
