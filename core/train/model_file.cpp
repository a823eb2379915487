#include "core/train/model_file.h"

#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

namespace core::train {

namespace {

using core::io::FileError;
using Shape = std::vector<std::int64_t>;

bool is_qkv(const Layout& lay, int id) {
    for (const LayerIds& l : lay.layers)
        if (id == l.W_Q || id == l.W_K || id == l.W_V) return true;
    return false;
}

// The file's shape of tensor `id`: vectors are 1-D, W_Q/W_K/W_V are (H, D, d_head).
Shape file_shape(const Layout& lay, int id) {
    const TensorSpec& s = lay.tensors[static_cast<size_t>(id)];
    if (is_qkv(lay, id)) return {lay.config.H, lay.config.D, lay.config.d_head()};
    if (s.rows == 1) return {s.cols};
    return {s.rows, s.cols};
}

// Our (D, H·d_head) ↔ the file's (H, D, d_head): element (h, i, c) of the file is (i, h·d_head + c) here.
size_t qkv_index(const ModelConfig& m, int h, int i, int c) {
    return static_cast<size_t>(i) * static_cast<size_t>(m.D) + static_cast<size_t>(h * m.d_head() + c);
}

std::string config_json(const SavedModel& s) {
    const ModelConfig& m = s.model.config();
    nlohmann::json j = {{"vocab", m.vocab}, {"T", m.T}, {"D", m.D}, {"H", m.H}, {"L", m.L}, {"mlp", m.mlp},
                        {"task", task_name(s.task)}, {"seed", s.seed}, {"step", s.step}, {"init", init_name(s.init)}};
    return j.dump();
}

template <class T>
T config_field(const nlohmann::json& j, const char* key, const std::string& path) {
    if (!j.contains(key)) throw FileError(path + ": config has no \"" + key + "\"");
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw FileError(path + ": config \"" + key + "\" has the wrong type (" + j.at(key).dump() + ")");
    }
}

SavedModel parse_config(const core::io::TensorFile& file, const std::string& path) {
    const auto it = file.metadata.find("config");
    if (it == file.metadata.end()) throw FileError(path + ": __metadata__ has no \"config\" (the model's shape)");
    const nlohmann::json j = nlohmann::json::parse(it->second, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw FileError(path + ": __metadata__ \"config\" is not a JSON object");
    ModelConfig m;
    m.vocab = config_field<int>(j, "vocab", path);
    m.T = config_field<int>(j, "T", path);
    m.D = config_field<int>(j, "D", path);
    m.H = config_field<int>(j, "H", path);
    m.L = config_field<int>(j, "L", path);
    m.mlp = config_field<bool>(j, "mlp", path);
    if (std::string e = validate(m); !e.empty()) throw FileError(path + ": config: " + e);
    SavedModel s{Model(m)};
    try {
        s.task = task_from_name(config_field<std::string>(j, "task", path));
        if (j.contains("init")) s.init = init_from_name(config_field<std::string>(j, "init", path));
    } catch (const ConfigError& e) {
        throw FileError(path + ": config: " + e.what());
    }
    s.seed = j.contains("seed") ? config_field<std::uint64_t>(j, "seed", path) : 0;
    s.step = j.contains("step") ? config_field<int>(j, "step", path) : 0;
    return s;
}

} // namespace

core::io::TensorFile to_tensor_file(const SavedModel& saved) {
    const Layout& lay = saved.model.layout;
    const ModelConfig& m = lay.config;
    core::io::TensorFile f;
    for (size_t id = 0; id < lay.tensors.size(); ++id) {
        const TensorSpec& s = lay.tensors[id];
        core::io::Tensor t;
        t.dtype = core::io::DType::f64;
        t.shape = file_shape(lay, static_cast<int>(id));
        const double* p = saved.model.params.data() + s.offset;
        if (is_qkv(lay, static_cast<int>(id))) {
            for (int h = 0; h < m.H; ++h)
                for (int i = 0; i < m.D; ++i)
                    for (int c = 0; c < m.d_head(); ++c) t.values.push_back(p[qkv_index(m, h, i, c)]);
        } else {
            t.values.assign(p, p + s.size());
        }
        f.tensors[s.name] = std::move(t);
    }
    f.metadata["config"] = config_json(saved);
    return f;
}

SavedModel from_tensor_file(const core::io::TensorFile& file, const std::string& path) {
    SavedModel s = parse_config(file, path);
    const Layout& lay = s.model.layout;
    const ModelConfig& m = lay.config;
    for (const auto& [name, tensor] : file.tensors)
        if (lay.find(name) < 0)
            throw FileError(path + ": tensor " + name + " is not part of the model the config describes (L " + std::to_string(m.L) +
                            ", mlp " + (m.mlp ? "on" : "off") + ")");
    for (size_t id = 0; id < lay.tensors.size(); ++id) {
        const TensorSpec& spec = lay.tensors[id];
        const auto it = file.tensors.find(spec.name);
        if (it == file.tensors.end()) throw FileError(path + ": tensor " + spec.name + " is missing");
        const core::io::Tensor& t = it->second;
        if (t.dtype != core::io::DType::f64 && t.dtype != core::io::DType::f32)
            throw FileError(path + ": tensor " + spec.name + " has dtype " + core::io::dtype_name(t.dtype) + ", expected float64 or float32");
        const Shape want = file_shape(lay, static_cast<int>(id));
        if (t.shape != want)
            throw FileError(path + ": tensor " + spec.name + " has shape " + core::io::shape_text(t.shape) + ", but the config needs " + core::io::shape_text(want));
        core::io::check_tensor(t, path);
        double* p = s.model.params.data() + spec.offset;
        if (is_qkv(lay, static_cast<int>(id))) {
            size_t k = 0;
            for (int h = 0; h < m.H; ++h)
                for (int i = 0; i < m.D; ++i)
                    for (int c = 0; c < m.d_head(); ++c) p[qkv_index(m, h, i, c)] = t.values[k++];
        } else {
            std::copy(t.values.begin(), t.values.end(), p);
        }
    }
    return s;
}

void save_model(const std::string& path, const SavedModel& saved) { core::io::write_safetensors(path, to_tensor_file(saved)); }

SavedModel load_model(const std::string& path) { return from_tensor_file(core::io::read_safetensors(path), path); }

} // namespace core::train
