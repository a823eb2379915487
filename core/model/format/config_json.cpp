// core/model/format/config_json.cpp — config.json (core/model/config.h) read with transformers' field names and defaults.
#include "core/model/config.h"

#include "core/io/files.h"
#include "core/io/tensor.h"
#include "core/model/arch/table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace core::model {

namespace {

using json = nlohmann::json;
using core::io::FileError;

constexpr int max_size = 1 << 20;       // any width, depth or vocabulary past this is not a real config
constexpr long long max_vocab = 1 << 24;

struct Reader {
    const json& j;
    const std::string& path;

    [[noreturn]] void fail(const std::string& key, const std::string& why) const {
        throw FileError(path + ": \"" + key + "\" " + why);
    }
    bool has(const char* key) const { return j.contains(key) && !j.at(key).is_null(); }
    int whole(const char* key, long long lo, long long hi) const {
        if (!has(key)) fail(key, "is missing");
        const json& v = j.at(key);
        if (!v.is_number_integer()) fail(key, "is not a whole number (" + v.dump() + ")");
        const long long x = v.get<long long>();
        if (x < lo || x > hi) fail(key, "is " + std::to_string(x) + ", outside " + std::to_string(lo) + " … " + std::to_string(hi));
        return static_cast<int>(x);
    }
    int whole(const char* key, long long lo, long long hi, int fallback) const { return has(key) ? whole(key, lo, hi) : fallback; }
    double real(const char* key, double lo, double hi, double fallback) const {
        if (!has(key)) return fallback;
        const json& v = j.at(key);
        if (!v.is_number()) fail(key, "is not a number (" + v.dump() + ")");
        const double x = v.get<double>();
        if (!std::isfinite(x) || x < lo || x > hi) fail(key, "is " + v.dump() + ", outside " + json(lo).dump() + " … " + json(hi).dump());
        return x;
    }
    bool flag(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        if (!j.at(key).is_boolean()) fail(key, "is not true or false (" + j.at(key).dump() + ")");
        return j.at(key).get<bool>();
    }
    std::string text(const char* key, const std::string& fallback) const {
        if (!has(key)) return fallback;
        if (!j.at(key).is_string()) fail(key, "is not a string (" + j.at(key).dump() + ")");
        return j.at(key).get<std::string>();
    }
    // bos/eos ids may be a list (Llama 3 lists several eos ids): the first.
    int token_id(const char* key) const {
        if (!has(key)) return -1;
        const json& v = j.at(key);
        const json& first = v.is_array() && !v.empty() ? v.front() : v;
        if (!first.is_number_integer() || first.get<long long>() < 0 || first.get<long long>() >= max_vocab) return -1;
        return first.get<int>();
    }
    // Every valid id of a single id or a list.
    std::vector<int> token_ids(const char* key) const {
        std::vector<int> ids;
        if (!has(key)) return ids;
        const json& v = j.at(key);
        for (const json& id : v.is_array() ? v : json::array({v}))
            if (id.is_number_integer() && id.get<long long>() >= 0 && id.get<long long>() < max_vocab) ids.push_back(id.get<int>());
        return ids;
    }
};

const char* const activations[] = {"gelu_new", "gelu_pytorch_tanh", "gelu_fast", "gelu", "relu", "silu", "swish", "quick_gelu"};

std::string checked_activation(const Reader& r, const char* key, const std::string& fallback) {
    const std::string a = r.text(key, fallback);
    for (const char* known : activations)
        if (a == known) return a;
    r.fail(key, "is \"" + a + "\"; attnviz runs gelu_new, gelu_pytorch_tanh, gelu_fast, gelu, relu, silu, swish and quick_gelu");
}

// The sizes every family has, by the names and defaults of each family's configuration class
// (no default: the key is required).
struct Key {
    const char* name;
    int fallback; // 0: none
};
struct Size {
    int ModelConfig::*field;
    long long hi; // from 1
    Key gpt2, llama, bert;
};
const Size sizes[] = {
    // field                hi         GPT2Config             LlamaConfig family          BertConfig
    {&ModelConfig::vocab,   max_vocab, {"vocab_size", 50257}, {"vocab_size", 0},          {"vocab_size", 30522}},
    {&ModelConfig::d_model, max_size,  {"n_embd", 768},       {"hidden_size", 0},         {"hidden_size", 768}},
    {&ModelConfig::layers,  1024,      {"n_layer", 12},       {"num_hidden_layers", 0},   {"num_hidden_layers", 12}},
    {&ModelConfig::heads,   4096,      {"n_head", 12},        {"num_attention_heads", 0}, {"num_attention_heads", 12}},
};

void read_sizes(const Reader& r, ModelConfig& c, Key Size::*family) {
    for (const Size& s : sizes) {
        const Key& k = s.*family;
        c.*s.field = k.fallback ? r.whole(k.name, 1, s.hi, k.fallback) : r.whole(k.name, 1, s.hi);
    }
}

void read_gpt2(const Reader& r, ModelConfig& c) {
    read_sizes(r, c, &Size::gpt2);
    c.context = r.whole("n_positions", 1, max_size, 1024);
    c.d_ff = r.whole("n_inner", 1, max_size, 4 * c.d_model);
    c.norm_eps = r.real("layer_norm_epsilon", 1e-30, 1.0, 1e-5);
    c.activation = checked_activation(r, "activation_function", "gelu_new");
    c.scale_attn_weights = r.flag("scale_attn_weights", true);
    c.scale_attn_by_inverse_layer_idx = r.flag("scale_attn_by_inverse_layer_idx", false);
    c.tie_word_embeddings = r.flag("tie_word_embeddings", true);
    if (c.d_model % c.heads != 0) r.fail("n_embd", "(" + std::to_string(c.d_model) + ") is not a multiple of n_head (" + std::to_string(c.heads) + ")");
    c.kv_heads = c.heads;
    c.d_head = c.d_model / c.heads;
}

RopeScaling read_rope_scaling(const Reader& r) {
    RopeScaling s;
    if (!r.has("rope_scaling")) return s;
    const json& v = r.j.at("rope_scaling");
    if (!v.is_object()) r.fail("rope_scaling", "is not an object");
    const Reader sub{v, r.path};
    // transformers reads "rope_type", and "type" in older configs.
    s.type = sub.has("rope_type") ? sub.text("rope_type", "") : sub.text("type", "default");
    if (s.type == "default") { s.type.clear(); return s; }
    if (s.type != "linear" && s.type != "llama3")
        r.fail("rope_scaling", "has type \"" + s.type + "\"; attnviz runs the default rotary positions, \"linear\" and \"llama3\"");
    s.factor = sub.real("factor", 1e-6, 1e6, 1.0);
    if (!sub.has("factor")) r.fail("rope_scaling", "has no \"factor\"");
    if (s.type == "llama3") {
        for (const char* key : {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
            if (!sub.has(key)) r.fail("rope_scaling", "of type llama3 has no \"" + std::string(key) + "\"");
        s.low_freq_factor = sub.real("low_freq_factor", 1e-6, 1e6, 1.0);
        s.high_freq_factor = sub.real("high_freq_factor", 1e-6, 1e6, 4.0);
        s.original_max_position_embeddings = sub.real("original_max_position_embeddings", 1.0, 1e9, 8192.0);
        if (!(s.high_freq_factor > s.low_freq_factor)) r.fail("rope_scaling", "has high_freq_factor ≤ low_freq_factor");
    }
    return s;
}

// Mistral: one window for every layer. Qwen2: only with use_sliding_window, from max_window_layers on.
std::vector<int> read_sliding_window(const Reader& r, const ModelConfig& c) {
    std::vector<int> window(static_cast<std::size_t>(c.layers), 0);
    const bool qwen2 = c.architecture == "Qwen2ForCausalLM";
    if (c.architecture != "MistralForCausalLM" && !qwen2) return window;
    if (qwen2 && !r.flag("use_sliding_window", false)) return window;
    const int w = r.whole("sliding_window", 1, 1LL << 30, 0);
    const int from = qwen2 ? r.whole("max_window_layers", 0, 1 << 20, c.layers) : 0;
    for (int l = from; l < c.layers; ++l) window[static_cast<std::size_t>(l)] = w;
    return window;
}

void read_llama(const Reader& r, ModelConfig& c) {
    read_sizes(r, c, &Size::llama);
    c.d_ff = r.whole("intermediate_size", 1, max_size);
    c.kv_heads = r.whole("num_key_value_heads", 1, 4096, c.heads);
    if (c.heads % c.kv_heads != 0)
        r.fail("num_key_value_heads", "(" + std::to_string(c.kv_heads) + ") does not divide num_attention_heads (" + std::to_string(c.heads) + ")");
    if (!r.has("head_dim") && c.d_model % c.heads != 0)
        r.fail("hidden_size", "(" + std::to_string(c.d_model) + ") is not a multiple of num_attention_heads and there is no head_dim");
    c.d_head = r.whole("head_dim", 2, 65536, c.d_model / c.heads);
    if (c.d_head % 2 != 0) r.fail("head_dim", "is odd (" + std::to_string(c.d_head) + "); rotary positions rotate pairs");
    c.context = r.whole("max_position_embeddings", 1, 1 << 30, 2048);
    c.norm_eps = r.real("rms_norm_eps", 1e-30, 1.0, 1e-6);
    c.activation = checked_activation(r, "hidden_act", "silu");
    c.rope_theta = r.real("rope_theta", 1e-6, 1e15, 10000.0);
    c.rope_scaling = read_rope_scaling(r);
    c.tie_word_embeddings = r.flag("tie_word_embeddings", false);
    const bool qwen2 = c.architecture == "Qwen2ForCausalLM";
    const bool llama = c.architecture == "LlamaForCausalLM";
    c.attention_bias = qwen2 || (llama && r.flag("attention_bias", false));
    c.o_bias = llama && c.attention_bias;
    c.mlp_bias = llama && r.flag("mlp_bias", false);
    c.sliding_window = read_sliding_window(r, c);
}

void read_bert(const Reader& r, ModelConfig& c) {
    read_sizes(r, c, &Size::bert);
    c.d_ff = r.whole("intermediate_size", 1, max_size, 3072);
    c.context = r.whole("max_position_embeddings", 1, max_size, 512);
    c.type_vocab_size = r.whole("type_vocab_size", 1, 1 << 16, 2);
    c.norm_eps = r.real("layer_norm_eps", 1e-30, 1.0, 1e-12);
    c.activation = checked_activation(r, "hidden_act", "gelu");
    const std::string positions = r.text("position_embedding_type", "absolute");
    if (positions != "absolute") r.fail("position_embedding_type", "is \"" + positions + "\"; attnviz runs absolute positions");
    if (c.d_model % c.heads != 0) r.fail("hidden_size", "(" + std::to_string(c.d_model) + ") is not a multiple of num_attention_heads");
    c.kv_heads = c.heads;
    c.d_head = c.d_model / c.heads;
    c.causal = false;
    c.tie_word_embeddings = r.flag("tie_word_embeddings", true);
}

} // namespace

bool ModelConfig::is_eos(int id) const { return std::find(eos_token_ids.begin(), eos_token_ids.end(), id) != eos_token_ids.end(); }

ModelConfig parse_config(const std::string& text, const std::string& path) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw FileError(path + ": not valid JSON");
    if (!j.is_object()) throw FileError(path + ": not a JSON object");
    const Reader r{j, path};
    if (!r.has("architectures")) throw FileError(path + ": no \"architectures\" field; attnviz runs " + supported_architectures());
    const json& list = j.at("architectures");
    if (!list.is_array() || list.empty() || !list.front().is_string())
        throw FileError(path + ": \"architectures\" is not a list of names; attnviz runs " + supported_architectures());
    ModelConfig c;
    c.architecture = list.front().get<std::string>();
    const Architecture* arch = find_architecture(c.architecture);
    if (!arch) throw FileError(path + ": architecture " + c.architecture + " is not supported; attnviz runs " + supported_architectures());
    c.family = arch->family;
    c.lm_head = arch->lm_head;
    if (c.family == Family::gpt2) read_gpt2(r, c);
    else if (c.family == Family::llama) read_llama(r, c);
    else read_bert(r, c);
    c.bos_token_id = r.token_id("bos_token_id");
    c.eos_token_id = r.token_id("eos_token_id");
    c.eos_token_ids = r.token_ids("eos_token_id");
    return c;
}

ModelConfig read_config(const std::string& path) {
    const std::optional<std::string> text = core::io::read_whole_file(path);
    if (!text) throw FileError(path + ": cannot be read (a model directory needs its config.json)");
    if (text->size() > (16u << 20)) throw FileError(path + ": larger than 16 MB, not a config");
    return parse_config(*text, path);
}

} // namespace core::model
