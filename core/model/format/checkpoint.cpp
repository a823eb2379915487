// core/model/format/checkpoint.cpp — model directories, the Hugging Face cache, attnviz's trained models
// (read in core/model/format/trained.cpp).
#include "core/model/format/checkpoint.h"
#include "core/io/user_dirs.h"

#include "core/error_text.h"
#include "core/io/tensor.h"
#include "core/model/arch/table.h"
#include "core/model/format/ollama.h"
#include "core/model/format/weights.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace core::model {

namespace fs = std::filesystem;
using core::io::FileError;

namespace {

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec); // follows the cache's symbolic links
}

bool is_dir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

std::string first_line(const fs::path& p) {
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
}

// models--ORG--NAME -> ORG/NAME
std::string cache_name(const std::string& folder) {
    std::string rest = folder.substr(8);
    const auto cut = rest.find("--");
    return cut == std::string::npos ? rest : rest.substr(0, cut) + "/" + rest.substr(cut + 2);
}

// The snapshot refs/main names, else the only (or newest) one; empty when there is none.
std::string snapshot_of(const fs::path& entry) {
    const std::string ref = first_line(entry / "refs" / "main");
    if (!ref.empty() && ref.find('/') == std::string::npos && is_dir(entry / "snapshots" / ref)) return (entry / "snapshots" / ref).string();
    std::error_code ec;
    fs::path newest;
    fs::file_time_type newest_time{};
    for (const fs::directory_entry& d : fs::directory_iterator(entry / "snapshots", ec)) {
        std::error_code tec;
        const auto when = d.last_write_time(tec);
        if (d.is_directory(tec) && (newest.empty() || when > newest_time)) { newest = d.path(); newest_time = when; }
    }
    return newest.string();
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// An Ollama model or a Hugging Face cache entry whose name is near `asked`: the same name with another
// tag, one holding the other, or a typo or two away (case aside).
bool near_name(const std::string& asked, const std::string& name) {
    const std::string a = lower(asked), n = lower(name);
    const auto base = [](const std::string& s) { return s.substr(0, s.find(':')); };
    if (base(a) == base(n) || (a.size() >= 3 && n.find(a) != std::string::npos) || (n.size() >= 3 && a.find(n) != std::string::npos)) return true;
    return core::edit_distance(a, n) <= 2;
}

// What MODEL may be, and the models in Ollama's store and the Hugging Face cache named like `path`.
std::string not_found(const std::string& path) {
    std::string message = path + ": no such file, directory or Ollama model (give a model directory, a Hugging Face cache snapshot or "
                                 "models--ORG--NAME folder, a GGUF file, an Ollama NAME:TAG or attnviz's own trained .safetensors)";
    std::vector<StoredModel> ollama;
    std::vector<std::string> problems, near;
    list_ollama(ollama_store_dir(), ollama, problems);
    for (const StoredModel& m : ollama)
        if (near_name(path, m.name)) near.push_back(m.name);
    for (const CachedModel& m : list_cached_models(hub_cache_dir()))
        if (near_name(path, m.name)) near.push_back(m.name);
    for (std::size_t k = 0; k < near.size(); ++k) message += (k ? ", " : "; there are ") + near[k];
    return message;
}

} // namespace

bool is_trained_model_file(const std::string& path) {
    return !is_dir(path) && fs::path(path).extension() == ".safetensors";
}

std::string resolve_model_dir(const std::string& path) {
    const fs::path p(path);
    if (std::error_code ec; !fs::exists(p, ec)) throw FileError(not_found(path));
    if (!is_dir(p)) throw FileError(path + ": not a model directory, a GGUF file nor attnviz's own trained .safetensors");
    if (is_file(p / "config.json")) return path;
    const std::string folder = p.filename().empty() ? p.parent_path().filename().string() : p.filename().string();
    if (folder.rfind("models--", 0) == 0 && is_dir(p / "snapshots")) {
        const std::string snap = snapshot_of(p);
        if (snap.empty()) throw FileError(path + ": a cache entry with no snapshot (the download did not finish)");
        return snap;
    }
    throw FileError((p / "config.json").string() + ": missing (a model directory holds config.json and model.safetensors)");
}

OpenedModel open_model(const std::string& path) {
    if (std::error_code ec; !fs::exists(path, ec)) {
        if (const auto stored = find_ollama_model(path, ollama_store_dir())) {
            OpenedModel m = open_model(stored->path); // its path the blob's, for the tokenizer and to open again
            m.name = stored->name;
            m.model->name_as(stored->name);
            return m;
        }
        throw FileError(not_found(path));
    }
    if (is_trained_model_file(path)) return open_trained(path);
    if (is_gguf_file(path)) return open_gguf(path);
    OpenedModel out;
    out.path = path;
    out.dir = resolve_model_dir(path);
    const fs::path dir(out.dir);
    ModelConfig c = read_config((dir / "config.json").string());
    c.name = path;
    const fs::path single = dir / "model.safetensors", index = dir / "model.safetensors.index.json";
    if (is_file(single)) out.weights = Weights::open(single.string());
    else if (is_file(index)) out.weights = Weights::open(index.string());
    else throw FileError(single.string() + ": missing (nor is there a model.safetensors.index.json; attnviz reads safetensors weights)");
    out.model = find_architecture(c.architecture)->build(c, out.weights);
    if (c.vision_tower_skipped) out.notice = "its vision tower is not shown; attnviz runs the text model alone";
    const fs::path snapshots = dir.parent_path();
    const std::string entry = snapshots.parent_path().filename().string();
    out.name = snapshots.filename() == "snapshots" && entry.rfind("models--", 0) == 0 ? cache_name(entry) : fs::absolute(dir).lexically_normal().filename().string();
    if (out.name.empty()) out.name = fs::absolute(dir).lexically_normal().parent_path().filename().string();
    return out;
}

bool has_float_matrices(const OpenedModel& m) {
    const Weights& w = *m.weights;
    return w.has_matrix_of(WeightType::f32) || w.has_matrix_of(WeightType::f16) || w.has_matrix_of(WeightType::bf16);
}

std::optional<ModelTensor> find_tensor(const OpenedModel& m, const std::string& name) {
    const std::string here = m.weights->name_for(name);
    if (!m.weights->has(here)) return std::nullopt;
    const Weights::Tensor& t = m.weights->require(here, m.weights->shape(here));
    ModelTensor found{here, type_name(t.type()), t.shape(), t.shape().empty() ? 1 : t.shape()[0], t.row_values(), {}};
    found.read_row = [&t](std::int64_t r, float* dst) { t.rows(r, 1, dst); };
    return found;
}

std::string hub_cache_dir() {
    if (const char* hub = std::getenv("HF_HUB_CACHE"); hub && *hub) return hub;
    if (const char* home = std::getenv("HF_HOME"); home && *home) return std::string(home) + "/hub";
    return core::io::home_dir() + "/.cache/huggingface/hub";
}

std::vector<CachedModel> list_cached_models(const std::string& hub_dir) {
    std::vector<CachedModel> found;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(hub_dir, ec)) {
        const std::string folder = e.path().filename().string();
        if (folder.rfind("models--", 0) != 0 || !is_dir(e.path() / "snapshots")) continue;
        CachedModel m;
        m.name = cache_name(folder);
        m.snapshot = snapshot_of(e.path());
        if (m.snapshot.empty()) continue;
        m.revision = fs::path(m.snapshot).filename().string();
        std::error_code fec;
        for (const fs::directory_entry& f : fs::recursive_directory_iterator(m.snapshot, fec)) {
            std::error_code sec;
            if (!f.is_regular_file(sec)) continue;
            const std::uintmax_t n = fs::file_size(f.path(), sec);
            if (!sec) m.bytes += static_cast<std::uint64_t>(n);
        }
        const fs::path s(m.snapshot);
        m.complete = is_file(s / "config.json") && (is_file(s / "model.safetensors") || is_file(s / "model.safetensors.index.json"));
        found.push_back(m);
    }
    std::sort(found.begin(), found.end(), [](const CachedModel& a, const CachedModel& b) { return a.name < b.name; });
    return found;
}

} // namespace core::model
