// core/model/format/ollama.cpp — Ollama's manifests and blobs, as core/model/format/ollama.h lays them out.
#include "core/model/format/ollama.h"
#include "core/io/user_dirs.h"

#include "core/io/files.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace core::model {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::optional<json> json_file(const fs::path& p) {
    const std::optional<std::string> text = core::io::read_whole_file(p.string());
    if (!text) return std::nullopt;
    json j = json::parse(*text, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
}

// manifests/HOST/NAMESPACE/NAME/TAG as `ollama list` names it: the default registry's library bare.
std::string ollama_name(const std::vector<std::string>& p) {
    const std::string model = p[2] + ":" + p[3];
    if (p[0] != "registry.ollama.ai") return p[0] + "/" + p[1] + "/" + model;
    return p[1] == "library" ? model : p[1] + "/" + model;
}

// The model layer's blob that a manifest names; a problem line when there is none.
std::optional<fs::path> model_blob(const fs::path& manifest, const fs::path& store, std::vector<std::string>& problems) {
    const std::optional<json> j = json_file(manifest);
    if (!j || !j->is_object() || !j->contains("layers") || !(*j)["layers"].is_array()) {
        problems.push_back(manifest.string() + ": not an Ollama manifest (JSON with \"layers\")");
        return std::nullopt;
    }
    for (const json& layer : (*j)["layers"]) {
        if (!layer.is_object() || layer.value("mediaType", json()) != "application/vnd.ollama.image.model") continue;
        const json digest = layer.value("digest", json());
        const std::string d = digest.is_string() ? digest.get<std::string>() : "";
        if (d.rfind("sha256:", 0) != 0 || d.find('/') != std::string::npos) break;
        const fs::path blob = store / "blobs" / ("sha256-" + d.substr(7));
        std::error_code ec;
        if (fs::is_regular_file(blob, ec)) return blob;
        problems.push_back(manifest.string() + ": its model layer's blob " + blob.string() + " is missing");
        return std::nullopt;
    }
    problems.push_back(manifest.string() + ": names no model layer (application/vnd.ollama.image.model) with a sha256 digest");
    return std::nullopt;
}

} // namespace

void list_ollama(const std::string& store, std::vector<StoredModel>& out, std::vector<std::string>& problems) {
    const fs::path manifests = fs::path(store) / "manifests";
    std::error_code ec;
    fs::recursive_directory_iterator it(manifests, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (it.depth() != 3 || !it->is_regular_file(fec)) continue;
        std::vector<std::string> parts;
        for (const fs::path& p : it->path().lexically_relative(manifests)) parts.push_back(p.string());
        const std::optional<fs::path> blob = model_blob(it->path(), store, problems);
        if (!blob) continue;
        StoredModel m;
        m.name = ollama_name(parts);
        m.store = "Ollama";
        m.path = blob->string();
        m.format = "gguf";
        std::error_code sec;
        m.bytes = static_cast<std::uint64_t>(fs::file_size(*blob, sec));
        out.push_back(std::move(m));
    }
}

std::string ollama_store_dir() {
    if (const char* v = std::getenv("OLLAMA_MODELS"); v && *v) return v;
    return core::io::home_dir() + "/.ollama/models";
}

std::optional<StoredModel> find_ollama_model(const std::string& name, const std::string& dir) {
    if (name.empty() || name.find("..") != std::string::npos) return std::nullopt;
    const std::size_t slash = name.rfind('/');
    const bool tagged = name.find(':', slash == std::string::npos ? 0 : slash) != std::string::npos;
    std::string wanted = lower(tagged ? name : name + ":latest");
    for (const char* prefix : {"registry.ollama.ai/", "library/"})
        if (wanted.rfind(prefix, 0) == 0) wanted.erase(0, std::string(prefix).size());
    std::vector<StoredModel> found;
    std::vector<std::string> problems;
    list_ollama(dir, found, problems);
    for (const StoredModel& m : found)
        if (lower(m.name) == wanted) return m;
    return std::nullopt;
}

} // namespace core::model
