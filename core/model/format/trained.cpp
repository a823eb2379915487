// core/model/format/trained.cpp — open_trained: an attnviz trained model as GPT-2 tensors: W_Q | W_K | W_V side by
// side are c_attn (D, 3D) with zero biases, W_O is c_proj, W_U (D, V) is an untied lm_head (V, D).
#include "core/model/format/checkpoint.h"

#include "core/io/safetensors.h"
#include "core/model/arch/table.h"
#include "core/model/format/weights.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>

namespace core::model {

namespace {

using core::io::FileError;

// The sizes in __metadata__ "config": {"vocab", "T", "D", "H", "L", "mlp", …}.
struct Sizes {
    std::int64_t vocab = 0, T = 0, D = 0, H = 0, L = 0;
    bool mlp = false;
};

Sizes sizes_of(const core::io::TensorFile& file, const std::string& path) {
    const auto it = file.metadata.find("config");
    if (it == file.metadata.end()) throw FileError(path + ": __metadata__ has no \"config\" (the model's shape)");
    const nlohmann::json j = nlohmann::json::parse(it->second, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw FileError(path + ": __metadata__ \"config\" is not a JSON object");
    auto size = [&](const char* key) {
        if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<std::int64_t>() < 1 || j[key].get<std::int64_t>() > (1 << 24))
            throw FileError(path + ": config \"" + key + "\" must be a whole number from 1 to 16777216");
        return j[key].get<std::int64_t>();
    };
    Sizes z{size("vocab"), size("T"), size("D"), size("H"), size("L")};
    if (!j.contains("mlp") || !j["mlp"].is_boolean()) throw FileError(path + ": config \"mlp\" must be true or false");
    z.mlp = j["mlp"].get<bool>();
    if (z.D % z.H) throw FileError(path + ": config: D = " + std::to_string(z.D) + " is not a multiple of H = " + std::to_string(z.H));
    return z;
}

// The file's tensors, each taken once and checked against the shape the config gives it.
class Reader {
public:
    Reader(const core::io::TensorFile& file, std::string path) : file_(file), path_(std::move(path)) {}
    const core::io::Tensor& take(const std::string& name, const Shape& shape) {
        const auto it = file_.tensors.find(name);
        if (it == file_.tensors.end()) throw FileError(path_ + ": tensor " + name + " is missing");
        const core::io::Tensor& t = it->second;
        if (t.dtype != core::io::DType::f64 && t.dtype != core::io::DType::f32)
            throw FileError(path_ + ": tensor " + name + " has dtype " + core::io::dtype_name(t.dtype) + ", expected float64 or float32");
        if (t.shape != shape)
            throw FileError(path_ + ": tensor " + name + " has shape " + core::io::shape_text(t.shape) + ", but the config needs " + core::io::shape_text(shape));
        core::io::check_tensor(t, path_);
        taken_.insert(name);
        return t;
    }
    // The file's tensor under the GPT-2 name, as floats in the same order.
    void copy(const std::string& name, const Shape& shape, const std::string& gpt2) {
        const core::io::Tensor& t = take(name, shape);
        out[gpt2] = {shape, std::vector<float>(t.values.begin(), t.values.end())};
    }
    void zeros(const std::string& gpt2, std::int64_t n) { out[gpt2] = {{n}, std::vector<float>(static_cast<std::size_t>(n), 0.0f)}; }
    void check_all_taken() const {
        for (const auto& [name, tensor] : file_.tensors)
            if (!taken_.count(name)) throw FileError(path_ + ": tensor " + name + " is not part of the model the config describes");
    }
    std::map<std::string, std::pair<Shape, std::vector<float>>> out;

private:
    const core::io::TensorFile& file_;
    std::string path_;
    std::set<std::string> taken_;
};

// c_attn (D, 3D): column s·D + h·d_head + c of row i is W_s[h][i][c] for s = Q, K, V.
void attention_in(Reader& r, const std::string& block, const Sizes& z, const std::string& gpt2) {
    const std::int64_t dh = z.D / z.H;
    std::vector<float> qkv(static_cast<std::size_t>(z.D * 3 * z.D));
    const char* names[] = {"attn.W_Q", "attn.W_K", "attn.W_V"};
    for (std::int64_t s = 0; s < 3; ++s) {
        const core::io::Tensor& w = r.take(block + names[s], {z.H, z.D, dh}); // (H, D, d_head)
        for (std::int64_t h = 0; h < z.H; ++h)
            for (std::int64_t i = 0; i < z.D; ++i)
                for (std::int64_t c = 0; c < dh; ++c)
                    qkv[static_cast<std::size_t>(i * 3 * z.D + s * z.D + h * dh + c)] = static_cast<float>(w.values[static_cast<std::size_t>((h * z.D + i) * dh + c)]);
    }
    r.out[gpt2 + "c_attn.weight"] = {{z.D, 3 * z.D}, std::move(qkv)};
    r.zeros(gpt2 + "c_attn.bias", 3 * z.D);
}

void layer(Reader& r, int l, const Sizes& z) {
    const std::string b = "blocks." + std::to_string(l) + ".", g = "h." + std::to_string(l) + ".";
    r.copy(b + "ln1.w", {z.D}, g + "ln_1.weight");
    r.copy(b + "ln1.b", {z.D}, g + "ln_1.bias");
    attention_in(r, b, z, g + "attn.");
    r.copy(b + "attn.W_O", {z.D, z.D}, g + "attn.c_proj.weight");
    r.zeros(g + "attn.c_proj.bias", z.D);
    if (!z.mlp) return;
    r.copy(b + "ln2.w", {z.D}, g + "ln_2.weight");
    r.copy(b + "ln2.b", {z.D}, g + "ln_2.bias");
    r.copy(b + "mlp.W_in", {z.D, 4 * z.D}, g + "mlp.c_fc.weight");
    r.copy(b + "mlp.b_in", {4 * z.D}, g + "mlp.c_fc.bias");
    r.copy(b + "mlp.W_out", {4 * z.D, z.D}, g + "mlp.c_proj.weight");
    r.copy(b + "mlp.b_out", {z.D}, g + "mlp.c_proj.bias");
}

// lm_head (V, D) is W_U (D, V) transposed.
void unembedding(Reader& r, const Sizes& z) {
    const core::io::Tensor& u = r.take("unembed.W_U", {z.D, z.vocab});
    std::vector<float> head(static_cast<std::size_t>(z.vocab * z.D));
    for (std::int64_t i = 0; i < z.D; ++i)
        for (std::int64_t v = 0; v < z.vocab; ++v) head[static_cast<std::size_t>(v * z.D + i)] = static_cast<float>(u.values[static_cast<std::size_t>(i * z.vocab + v)]);
    r.out["lm_head.weight"] = {{z.vocab, z.D}, std::move(head)};
}

ModelConfig gpt2_config(const Sizes& z, const std::string& path) {
    ModelConfig c;
    c.architecture = "GPT2LMHeadModel";
    c.name = path;
    c.vocab = static_cast<int>(z.vocab);
    c.d_model = static_cast<int>(z.D);
    c.layers = static_cast<int>(z.L);
    c.heads = c.kv_heads = static_cast<int>(z.H);
    c.d_head = static_cast<int>(z.D / z.H);
    c.d_ff = static_cast<int>(4 * z.D);
    c.context = static_cast<int>(z.T);
    c.activation = "gelu_new";
    c.mlp = z.mlp;
    c.tie_word_embeddings = false;
    return c;
}

} // namespace

OpenedModel open_trained(const std::string& path) {
    const core::io::TensorFile file = core::io::read_safetensors(path);
    const Sizes z = sizes_of(file, path);
    Reader r(file, path);
    r.copy("embed.W_E", {z.vocab, z.D}, "wte.weight");
    r.copy("embed.W_pos", {z.T, z.D}, "wpe.weight");
    for (int l = 0; l < z.L; ++l) layer(r, l, z);
    r.copy("ln_f.w", {z.D}, "ln_f.weight");
    r.copy("ln_f.b", {z.D}, "ln_f.bias");
    unembedding(r, z);
    r.check_all_taken();
    OpenedModel out;
    out.path = path;
    out.name = std::filesystem::path(path).filename().string();
    out.weights = Weights::from_memory(std::move(r.out), path);
    const ModelConfig config = gpt2_config(z, path);
    out.model = find_architecture(config.architecture)->build(config, out.weights); // GPT-2's row
    return out;
}

} // namespace core::model
