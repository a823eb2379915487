// core/io/formats.cpp — the table of formats (see formats.h).
#include "core/io/formats.h"

#include "core/io/delimited.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace core::io {

namespace {

TensorFile one_array(Tensor t) {
    TensorFile f;
    f.tensors.emplace("", std::move(t));
    return f;
}

TensorFile npy_arrays(const std::string& path) { return one_array(read_npy(path)); }

TensorFile delimited_arrays(const std::string& path) {
    Table t = read_delimited(path);
    TensorFile f = one_array(std::move(t.values));
    if (!t.row_names.empty()) f.metadata["row_names"] = nlohmann::json(t.row_names).dump();
    return f;
}

} // namespace

const std::vector<Format>& formats() {
    static const std::vector<Format> table = {
        // name             extensions        kinds                                   arrays            exportable
        {"Scenarios",       {".json"},        scenario | labels,                      nullptr,          true},
        {"NumPy arrays",    {".npy"},         array | attention,                      npy_arrays,       true},
        {"NumPy archives",  {".npz"},         array | attention,                      read_npz,         true},
        {"safetensors",     {".safetensors"}, array | attention | model | checkpoint, read_safetensors, false},
        {"CSV",             {".csv"},         array,                                  delimited_arrays, true},
        {"TSV",             {".tsv"},         array,                                  delimited_arrays, true},
        {"Lessons",         {".toml"},        lesson,                                 nullptr,          false},
        {"Model folders",   {"config.json"},  checkpoint,                             nullptr,          false},
        {"GGUF models",     {".gguf"},        checkpoint,                             nullptr,          false},
        {"Text",            {".txt"},         labels | review_deck,                   nullptr,          true},
        {"LaTeX",           {".tex"},         0,                                      nullptr,          true},
        {"Markdown",        {".md"},          0,                                      nullptr,          true},
        {"PNG images",      {".png"},         0,                                      nullptr,          true},
        {"SVG images",      {".svg"},         0,                                      nullptr,          true},
    };
    return table;
}

std::string extension_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

const Format* format_of(const std::string& path) {
    std::error_code ec;
    const bool folder = std::filesystem::is_directory(path, ec);
    const std::string e = extension_of(path);
    for (const Format& f : formats()) {
        if (f.directory() != folder) continue;
        if (folder || std::find(f.extensions.begin(), f.extensions.end(), e) != f.extensions.end()) return &f;
    }
    return nullptr;
}

bool opens_as(const std::string& path, Kind kind) {
    const Format* f = format_of(path);
    return f && (f->kinds & kind) != 0;
}

std::vector<std::string> extensions_of(Kind kind) {
    std::vector<std::string> out;
    for (const Format& f : formats())
        if (f.kinds & kind) out.insert(out.end(), f.extensions.begin(), f.extensions.end());
    return out;
}

std::string extension_list(Kind kind, const char* last) {
    const std::vector<std::string> e = extensions_of(kind);
    std::string out;
    for (std::size_t i = 0; i < e.size(); ++i) out += (i == 0 ? "" : i + 1 == e.size() ? last : ", ") + e[i];
    return out;
}

FileFilter filter_of(Kind kind, const std::string& label) { return {label, extensions_of(kind)}; }

} // namespace core::io
