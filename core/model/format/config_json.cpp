// core/model/format/config_json.cpp — config.json (core/model/config.h): the architecture's row
// (core/model/arch/table.h) reads its fields through a ConfigReader (config_reader.h), with
// transformers' field names and defaults.
#include "core/model/format/config_reader.h"

#include "core/io/files.h"
#include "core/io/tensor.h"
#include "core/model/arch/table.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace core::model {

using json = nlohmann::json;
using core::io::FileError;

void ConfigReader::fail(const std::string& key, const std::string& why) const { throw FileError(path + ": \"" + key + "\" " + why); }

bool ConfigReader::has(const char* key) const { return j.contains(key) && !j.at(key).is_null(); }

int ConfigReader::whole(const char* key, long long lo, long long hi) const {
    if (!has(key)) fail(key, "is missing");
    const json& v = j.at(key);
    if (!v.is_number_integer()) fail(key, "is not a whole number (" + v.dump() + ")");
    const long long x = v.get<long long>();
    if (x < lo || x > hi) fail(key, "is " + std::to_string(x) + ", outside " + std::to_string(lo) + " … " + std::to_string(hi));
    return static_cast<int>(x);
}

int ConfigReader::whole(const char* key, long long lo, long long hi, int fallback) const { return has(key) ? whole(key, lo, hi) : fallback; }

double ConfigReader::real(const char* key, double lo, double hi, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_number()) fail(key, "is not a number (" + v.dump() + ")");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi) fail(key, "is " + v.dump() + ", outside " + json(lo).dump() + " … " + json(hi).dump());
    return x;
}

bool ConfigReader::flag(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j.at(key).is_boolean()) fail(key, "is not true or false (" + j.at(key).dump() + ")");
    return j.at(key).get<bool>();
}

std::string ConfigReader::text(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!j.at(key).is_string()) fail(key, "is not a string (" + j.at(key).dump() + ")");
    return j.at(key).get<std::string>();
}

std::string ConfigReader::activation(const char* key, const std::string& fallback) const {
    static const char* const known[] = {"gelu_new", "gelu_pytorch_tanh", "gelu_fast", "gelu", "relu", "silu", "swish", "quick_gelu"};
    const std::string a = text(key, fallback);
    for (const char* k : known)
        if (a == k) return a;
    fail(key, "is " + quote_text(a) + "; attnviz runs gelu_new, gelu_pytorch_tanh, gelu_fast, gelu, relu, silu, swish and quick_gelu");
}

int ConfigReader::token_id(const char* key) const {
    if (!has(key)) return -1;
    const json& v = j.at(key);
    const json& first = v.is_array() && !v.empty() ? v.front() : v;
    if (!first.is_number_integer() || first.get<long long>() < 0 || first.get<long long>() >= max_config_vocab) return -1;
    return first.get<int>();
}

std::vector<int> ConfigReader::token_ids(const char* key) const {
    std::vector<int> ids;
    if (!has(key)) return ids;
    const json& v = j.at(key);
    for (const json& id : v.is_array() ? v : json::array({v}))
        if (id.is_number_integer() && id.get<long long>() >= 0 && id.get<long long>() < max_config_vocab) ids.push_back(id.get<int>());
    return ids;
}

ConfigReader ConfigReader::object(const char* key) const {
    if (!has(key) || !j.at(key).is_object()) fail(key, "is not an object");
    return {j.at(key), path};
}

std::vector<bool> ConfigReader::sliding_layers(int layers) const {
    std::vector<bool> sliding;
    if (!has("layer_types")) return sliding;
    const json& v = j.at("layer_types");
    if (!v.is_array() || v.size() != static_cast<std::size_t>(layers))
        fail("layer_types", "is not a list of " + std::to_string(layers) + " layer types (one per layer)");
    for (const json& kind : v) {
        if (kind == "sliding_attention") sliding.push_back(true);
        else if (kind == "full_attention") sliding.push_back(false);
        else fail("layer_types", "has " + kind.dump() + "; attnviz runs \"full_attention\" and \"sliding_attention\" layers");
    }
    return sliding;
}

void read_sizes(const ConfigReader& r, ModelConfig& c, const SizeKeys& keys) {
    struct Size {
        int ModelConfig::*field;
        SizeKey key;
        long long hi; // from 1
    };
    const Size sizes[] = {{&ModelConfig::vocab, keys.vocab, max_config_vocab},
                          {&ModelConfig::d_model, keys.d_model, max_config_size},
                          {&ModelConfig::layers, keys.layers, 1024},
                          {&ModelConfig::heads, keys.heads, 4096}};
    for (const Size& s : sizes)
        c.*s.field = s.key.fallback ? r.whole(s.key.name, 1, s.hi, s.key.fallback) : r.whole(s.key.name, 1, s.hi);
}

bool ModelConfig::is_eos(int id) const { return std::find(eos_token_ids.begin(), eos_token_ids.end(), id) != eos_token_ids.end(); }

ModelConfig parse_config(const std::string& text, const std::string& path) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw FileError(path + ": not valid JSON");
    if (!j.is_object()) throw FileError(path + ": not a JSON object");
    const ConfigReader r{j, path};
    if (!r.has("architectures")) throw FileError(path + ": no \"architectures\" field; attnviz runs " + supported_architectures());
    const json& list = j.at("architectures");
    if (!list.is_array() || list.empty() || !list.front().is_string())
        throw FileError(path + ": \"architectures\" is not a list of names; attnviz runs " + supported_architectures());
    ModelConfig c;
    c.architecture = list.front().get<std::string>();
    const Architecture* arch = find_architecture(c.architecture);
    if (!arch) throw FileError(path + ": architecture " + quote_text(c.architecture) + " is not supported; attnviz runs " + supported_architectures());
    c.lm_head = arch->lm_head;
    arch->read_config(r, c);
    if (c.sliding_window.empty()) c.sliding_window.assign(static_cast<std::size_t>(c.layers), 0);
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
