// core/model/format/stores.cpp — the models in the Hugging Face cache, Ollama's store, LM Studio's
// models folders and llama.cpp's cache, as core/model/format/stores.h lays them out.
#include "core/model/format/stores.h"
#include "core/io/user_dirs.h"

#include "core/assets.h"
#include "core/io/files.h"
#include "core/model/format/checkpoint.h"
#include "core/model/format/gguf.h"
#include "core/model/format/ollama.h"
#include "core/model/format/weights.h"
#include "core/model/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

namespace core::model {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string env_or(const char* name, const std::string& otherwise) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : otherwise;
}

std::uint64_t size_of(const fs::path& p) {
    std::error_code ec;
    const std::uintmax_t n = fs::file_size(p, ec);
    return ec ? 0 : static_cast<std::uint64_t>(n);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// [SECTION] the Hugging Face cache

// config.json's dtype ("bfloat16" -> "BF16"), or its quantization method ("gptq" -> "GPTQ").
std::string config_quantization(const fs::path& config) {
    const std::optional<std::string> text = core::io::read_whole_file(config.string());
    const json j = text ? json::parse(*text, nullptr, false) : json();
    if (!j.is_object()) return "";
    if (const json q = j.value("quantization_config", json()); q.is_object() && q.value("quant_method", json()).is_string()) {
        std::string m = q["quant_method"].get<std::string>();
        for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return m;
    }
    for (const char* key : {"torch_dtype", "dtype"}) {
        const json d = j.value(key, json());
        if (!d.is_string()) continue;
        const std::string t = d.get<std::string>();
        if (t == "bfloat16") return "BF16";
        if (t == "float16") return "F16";
        if (t == "float32") return "F32";
    }
    return "";
}

// [SECTION] folders of .gguf files

bool is_gguf_name(const std::string& file) { return file.size() > 5 && lower(file.substr(file.size() - 5)) == ".gguf"; }

// A part other than the first of a split file (NAME-00002-of-00003.gguf), or a vision projector.
bool is_secondary_gguf(const std::string& file) {
    if (lower(file).rfind("mmproj", 0) == 0) return true;
    const std::size_t of = file.rfind("-of-");
    return of != std::string::npos && of >= 5 && file.compare(of - 5, 5, "00001") != 0 && std::isdigit(static_cast<unsigned char>(file[of - 1]));
}

// The name of a .gguf file under `root`: its path there, with a cache entry's models--ORG--NAME/snapshots/REV/ as ORG/NAME/.
std::string gguf_name(const fs::path& file, const fs::path& root) {
    std::vector<std::string> parts;
    for (const fs::path& p : file.lexically_relative(root)) parts.push_back(p.string());
    for (std::size_t i = 0; i + 3 < parts.size(); ++i) {
        if (parts[i].rfind("models--", 0) != 0 || parts[i + 1] != "snapshots") continue;
        std::string org_name = parts[i].substr(8);
        const std::size_t cut = org_name.find("--");
        if (cut != std::string::npos) org_name.replace(cut, 2, "/");
        parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(i) + 3);
        parts.insert(parts.begin(), org_name);
        break;
    }
    std::string name;
    for (const auto& p : parts) name += (name.empty() ? "" : "/") + p;
    return name;
}

void add_gguf_files(const std::string& root, const std::string& store, std::vector<StoredModel>& out) {
    std::error_code ec;
    const auto options = fs::directory_options::follow_directory_symlink | fs::directory_options::skip_permission_denied;
    fs::recursive_directory_iterator it(root, options, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        if (it.depth() > 6) it.disable_recursion_pending();
        std::error_code fec;
        const std::string file = it->path().filename().string();
        if (!is_gguf_name(file) || is_secondary_gguf(file) || !it->is_regular_file(fec)) continue;
        StoredModel m;
        m.name = gguf_name(it->path(), root);
        m.store = store;
        m.path = it->path().string();
        m.format = "gguf";
        m.bytes = size_of(it->path());
        out.push_back(std::move(m));
    }
}

void add_hub(const std::string& hub, std::vector<StoredModel>& out) {
    for (const CachedModel& c : list_cached_models(hub)) {
        std::vector<StoredModel> ggufs;
        if (!c.complete) add_gguf_files(c.snapshot, "Hugging Face", ggufs);
        for (StoredModel& g : ggufs) g.name = c.name + "/" + g.name;
        if (!ggufs.empty()) {
            out.insert(out.end(), ggufs.begin(), ggufs.end());
            continue;
        }
        StoredModel m;
        m.name = c.name;
        m.store = "Hugging Face";
        m.path = c.snapshot;
        m.format = "safetensors";
        m.bytes = c.bytes;
        m.quantization = config_quantization(fs::path(c.snapshot) / "config.json");
        m.complete = c.complete;
        out.push_back(std::move(m));
    }
}

int store_rank(const std::string& store) {
    const char* order[] = {"Hugging Face", "Ollama", "LM Studio", "llama.cpp"};
    for (int i = 0; i < 4; ++i)
        if (store == order[i]) return i;
    return 4;
}


// [SECTION] what a GGUF file's weights are

// llama.cpp's llama_ftype names, by general.file_type.
std::string file_type_name(std::uint64_t t) {
    static const std::map<std::uint64_t, const char*> names = {
        {0, "F32"},     {1, "F16"},     {2, "Q4_0"},    {3, "Q4_1"},    {7, "Q8_0"},     {8, "Q5_0"},    {9, "Q5_1"},    {10, "Q2_K"},
        {11, "Q3_K_S"}, {12, "Q3_K_M"}, {13, "Q3_K_L"}, {14, "Q4_K_S"}, {15, "Q4_K_M"},  {16, "Q5_K_S"}, {17, "Q5_K_M"}, {18, "Q6_K"},
        {19, "IQ2_XXS"}, {20, "IQ2_XS"}, {21, "Q2_K_S"}, {22, "IQ3_XS"}, {23, "IQ3_XXS"}, {24, "IQ1_S"}, {25, "IQ4_NL"}, {26, "IQ3_S"},
        {27, "IQ3_M"},  {28, "IQ2_S"},  {29, "IQ2_M"},  {30, "IQ4_XS"}, {31, "IQ1_M"},   {32, "BF16"},   {36, "TQ1_0"},  {37, "TQ2_0"},
        {38, "MXFP4_MOE"}};
    const auto it = names.find(t);
    return it == names.end() ? "" : it->second;
}

// The ggml type most of the tensors' values have.
std::string commonest_type(const gguf::File& f) {
    std::map<std::uint32_t, double> values;
    for (const gguf::TensorInfo& t : f.tensors) {
        double n = 1;
        for (const std::int64_t d : t.shape) n *= static_cast<double>(d);
        values[t.type] += n;
    }
    const auto most = std::max_element(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return most == values.end() ? "" : gguf::ggml_type_name(most->first);
}

} // namespace

gguf::File read_gguf(const std::string& path) {
    gguf::File file;
    Weights::open_mapped(path, [&](const unsigned char* bytes, std::size_t size) {
        file = gguf::parse(bytes, size, path);
        return std::vector<MappedTensor>{};
    });
    return file;
}

std::string gguf_quantization(const std::string& path) {
    try {
        const gguf::File file = read_gguf(path);
        const auto type = gguf::find_u64(file, "general.file_type");
        const std::string named = type ? file_type_name(*type) : "";
        return named.empty() ? commonest_type(file) : named;
    } catch (const std::exception&) {
        return "";
    }
}

StorePlaces store_places() {
    const std::string home = core::io::home_dir();
    StorePlaces p;
    p.hub = hub_cache_dir();
    p.ollama = ollama_store_dir();
    p.llama_cpp = env_or("LLAMA_CACHE", env_or("XDG_CACHE_HOME", home + "/.cache") + "/llama.cpp");
    p.lm_studio = {home + "/.lmstudio/models", home + "/.cache/lm-studio/models"};
    return p;
}

ModelListing list_models(const StorePlaces& places) {
    ModelListing l;
    add_hub(places.hub, l.models);
    list_ollama(places.ollama, l.models, l.problems);
    for (const std::string& dir : places.lm_studio) add_gguf_files(dir, "LM Studio", l.models);
    add_gguf_files(places.llama_cpp, "llama.cpp", l.models);
    for (StoredModel& m : l.models)
        if (m.format == "gguf") m.quantization = gguf_quantization(m.path);
    std::stable_sort(l.models.begin(), l.models.end(), [](const StoredModel& a, const StoredModel& b) {
        return store_rank(a.store) != store_rank(b.store) ? store_rank(a.store) < store_rank(b.store) : lower(a.name) < lower(b.name);
    });
    return l;
}

std::optional<StoredModel> bundled_model() {
    const std::string root = core::asset_path("models");
    std::error_code ec;
    if (root.empty() || !fs::is_directory(root, ec)) return std::nullopt;
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (fs::exists(e.path() / "config.json", ec)) found.push_back(e.path());
    if (found.empty()) return std::nullopt;
    const fs::path dir = *std::min_element(found.begin(), found.end());
    StoredModel m{dir.filename().string(), "attnviz", dir.string(), "safetensors", 0, "", true};
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file(ec)) m.bytes += size_of(e.path());
    m.quantization = config_quantization(dir / "config.json");
    return m;
}

Tokenizer model_tokenizer(const std::string& model) {
    std::error_code ec;
    const auto stored = fs::exists(model, ec) ? std::nullopt : find_ollama_model(model, ollama_store_dir());
    const std::string file = stored ? stored->path : model;
    if (has_gguf_magic(file)) return gguf_tokenizer(read_gguf(file));
    const fs::path p(model);
    const std::string folder = p.filename().empty() ? p.parent_path().filename().string() : p.filename().string();
    return load_tokenizer(folder.rfind("models--", 0) == 0 ? resolve_model_dir(model) : model);
}

} // namespace core::model
