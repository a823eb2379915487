// core/io/attention_file.cpp
//
// [SECTION] Shape: which axis is which
// [SECTION] Opening (mmap for .npy and .safetensors)
// [SECTION] Reading
// [SECTION] Labels
// [SECTION] Summaries
#include "core/io/attention_file.h"

#include "core/io/formats.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace core::io {

//-----------------------------------------------------------------------------
// [SECTION] Shape: which axis is which
//-----------------------------------------------------------------------------

namespace {

// Which axes of the file are layers, heads, queries and keys (-1: not in the file, size 1).
std::array<int, 4> axes_of(const std::vector<std::int64_t>& shape, const std::string& path) {
    const auto r = static_cast<int>(shape.size());
    std::array<int, 4> axes{};
    if (r == 2) axes = {-1, -1, 0, 1};
    else if (r == 3) axes = {-1, 0, 1, 2};
    else if (r == 4) axes = {0, 1, 2, 3};
    else if (r == 5 && shape[1] == 1) axes = {0, 2, 3, 4}; // torch.stack(outputs.attentions): (layers, batch, heads, n, n)
    else if (r == 5 && shape[0] == 1) axes = {1, 2, 3, 4};
    else axes = {-2, 0, 0, 0};
    if (axes[0] == -2 || shape[static_cast<std::size_t>(axes[2])] != shape[static_cast<std::size_t>(axes[3])] || shape.back() < 1)
        throw FileError(path + ": shape " + shape_text(shape) +
                        " is not (n, n), (heads, n, n) or (layers, heads, n, n), with an optional batch axis of 1");
    return axes;
}

void check_float(DType t, const std::string& path) {
    if (t != DType::f16 && t != DType::bf16 && t != DType::f32 && t != DType::f64)
        throw FileError(path + ": attention weights are floats; this array is " + dtype_name(t));
}

std::vector<std::string> labels_from_json(const std::string& text, const std::string& where) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw FileError(where + ": not a JSON array of strings (" + e.what() + ")");
    }
    if (!j.is_array()) throw FileError(where + ": not a JSON array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_string()) throw FileError(where + ": entry " + std::to_string(i) + " is not a string");
        out.push_back(j[i].get<std::string>());
    }
    return out;
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Opening (mmap for .npy and .safetensors)
//-----------------------------------------------------------------------------

namespace {

struct Mapping {
    void* base = nullptr;
    std::size_t size = 0;
};

Mapping map_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw FileError(path + ": cannot open (" + std::strerror(errno) + ")");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw FileError(path + ": not a regular file");
    }
    Mapping m;
    m.size = static_cast<std::size_t>(st.st_size);
    if (m.size == 0) {
        ::close(fd);
        throw FileError(path + ": the file is empty");
    }
    m.base = ::mmap(nullptr, m.size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd); // the mapping keeps the file
    if (m.base == MAP_FAILED) throw FileError(path + ": cannot map into memory (" + std::strerror(errno) + ")");
    return m;
}

// The tensor of a safetensors file that holds the weights: "attentions" (or "attention"), else the
// only one.
const SafetensorsEntry& pick_entry(const SafetensorsHeader& h, const std::string& path) {
    for (const char* name : {"attentions", "attention"})
        for (const auto& e : h.entries)
            if (e.name == name) return e;
    if (h.entries.size() == 1) return h.entries[0];
    std::string names;
    for (const auto& e : h.entries) names += (names.empty() ? "" : ", ") + e.name;
    throw FileError(path + ": " + std::to_string(h.entries.size()) + " tensors (" + names +
                    "); name the attention weights \"attentions\" or keep only them");
}

} // namespace

std::unique_ptr<AttentionFile> AttentionFile::open(const std::string& path) {
    std::unique_ptr<AttentionFile> f(new AttentionFile());
    f->path_ = path;
    std::vector<std::int64_t> shape;
    bool fortran = false;
    const std::string e = extension_of(path);
    if (!opens_as(path, Kind::attention)) throw FileError(path + ": attention weights are read from " + extension_list(Kind::attention, " or "));
    if (e == ".npz") {
        TensorFile file = read_npz(path);
        auto it = file.tensors.find("attentions");
        if (it == file.tensors.end() && file.tensors.size() == 1) it = file.tensors.begin();
        if (it == file.tensors.end()) throw FileError(path + ": name the attention weights \"attentions\" or keep only them");
        check_float(it->second.dtype, path);
        shape = it->second.shape;
        f->owned_ = std::move(it->second.values);
        f->data_ = reinterpret_cast<const unsigned char*>(f->owned_.data());
        f->dtype_ = DType::f64;
    } else {
        const Mapping m = map_file(path);
        f->mapping_ = m.base, f->mapped_bytes_ = m.size;
        const char* bytes = static_cast<const char*>(m.base);
        if (e == ".npy") {
            const NpyHeader h = parse_npy_header(bytes, m.size, path);
            shape = h.shape, fortran = h.fortran_order, f->dtype_ = h.dtype, f->big_endian_ = h.big_endian;
            f->data_ = reinterpret_cast<const unsigned char*>(bytes) + h.data_offset;
        } else {
            const SafetensorsHeader h = parse_safetensors_header(bytes, m.size, path);
            const SafetensorsEntry& entry = pick_entry(h, path);
            shape = entry.shape, f->dtype_ = entry.dtype;
            f->data_ = reinterpret_cast<const unsigned char*>(bytes) + entry.begin;
            for (const char* key : {"tokens", "labels"})
                if (auto it = h.metadata.find(key); it != h.metadata.end() && f->labels_.empty())
                    f->labels_ = labels_from_json(it->second, path + ": metadata \"" + key + "\"");
        }
        check_float(f->dtype_, path);
    }
    const std::array<int, 4> axes = axes_of(shape, path);
    // Strides of the file's own axes, then those of the four we use.
    std::vector<std::size_t> file_strides(shape.size());
    std::size_t stride = 1;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        const std::size_t axis = fortran ? k : shape.size() - 1 - k;
        file_strides[axis] = stride;
        stride *= static_cast<std::size_t>(shape[axis]);
    }
    const int limits[4] = {AttentionLimits::max_layers, AttentionLimits::max_heads, AttentionLimits::max_tokens, AttentionLimits::max_tokens};
    const char* names[4] = {"layers", "heads", "tokens", "tokens"};
    for (int k = 0; k < 4; ++k) {
        const std::int64_t size = axes[k] < 0 ? 1 : shape[static_cast<std::size_t>(axes[k])];
        if (size > limits[k])
            throw FileError(path + ": " + std::to_string(size) + " " + names[k] + ", more than the limit of " + std::to_string(limits[k]));
        f->dims_[static_cast<std::size_t>(k)] = static_cast<int>(size);
        f->strides_[static_cast<std::size_t>(k)] = axes[k] < 0 ? 0 : file_strides[static_cast<std::size_t>(axes[k])];
    }
    if (!f->labels_.empty() && static_cast<int>(f->labels_.size()) != f->n())
        throw FileError(path + ": the metadata names " + std::to_string(f->labels_.size()) + " tokens, the weights have " + std::to_string(f->n()));
    return f;
}

AttentionFile::~AttentionFile() {
    if (mapping_) ::munmap(mapping_, mapped_bytes_);
}

//-----------------------------------------------------------------------------
// [SECTION] Reading
//-----------------------------------------------------------------------------

const unsigned char* AttentionFile::element(int layer, int head, int i, int j) const {
    const std::size_t index = static_cast<std::size_t>(layer) * strides_[0] + static_cast<std::size_t>(head) * strides_[1] +
                              static_cast<std::size_t>(i) * strides_[2] + static_cast<std::size_t>(j) * strides_[3];
    return data_ + index * dtype_size(dtype_);
}

float AttentionFile::at(int layer, int head, int i, int j) const {
    return static_cast<float>(load_value(element(layer, head, i, j), dtype_, big_endian_));
}

void AttentionFile::read_row(int layer, int head, int i, float* out) const {
    const unsigned char* p = element(layer, head, i, 0);
    const int count = n();
    if (dtype_ == DType::f32 && !big_endian_ && strides_[3] == 1) { // the common case: one copy
        std::memcpy(out, p, static_cast<std::size_t>(count) * sizeof(float));
        return;
    }
    const std::size_t step = strides_[3] * dtype_size(dtype_);
    for (int j = 0; j < count; ++j, p += step) out[j] = static_cast<float>(load_value(p, dtype_, big_endian_));
}

//-----------------------------------------------------------------------------
// [SECTION] Labels
//-----------------------------------------------------------------------------

std::vector<std::string> read_token_labels(const std::string& path) {
    const std::string text = read_file_bytes(path, 64u << 20);
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '[') return labels_from_json(text, path);
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        out.push_back(std::move(line));
        start = end + 1;
    }
    return out;
}

//-----------------------------------------------------------------------------
// [SECTION] Summaries
//-----------------------------------------------------------------------------

HeadSummary summarise_head(const AttentionFile& f, int layer, int head, int thumb_side) {
    const int n = f.n();
    HeadSummary s;
    s.side = std::clamp(thumb_side, 1, n);
    s.thumb.assign(static_cast<std::size_t>(s.side) * static_cast<std::size_t>(s.side), 0.0f);
    std::vector<float> row(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        f.read_row(layer, head, i, row.data());
        float* thumb_row = &s.thumb[static_cast<std::size_t>(static_cast<long long>(i) * s.side / n) * static_cast<std::size_t>(s.side)];
        for (int j = 0; j < n; ++j) {
            const float w = row[static_cast<std::size_t>(j)];
            if (std::isnan(w)) { s.has_nan = true; continue; }
            float& cell = thumb_row[static_cast<long long>(j) * s.side / n];
            cell = std::max(cell, w);
            s.max_weight = std::max(s.max_weight, w);
            if (j > i) {
                s.above_mass += w;
                if (w > s.above_max) s.above_max = w, s.above_row = i, s.above_col = j;
            }
        }
    }
    s.above_mass /= n;
    return s;
}

void mean_row(const AttentionFile& f, int layer, int i, float* out, std::vector<float>& scratch) {
    const auto n = static_cast<std::size_t>(f.n());
    scratch.resize(n);
    std::fill(out, out + n, 0.0f);
    for (int h = 0; h < f.heads(); ++h) {
        f.read_row(layer, h, i, scratch.data());
        for (std::size_t j = 0; j < n; ++j) out[j] += scratch[j];
    }
    const float inv = 1.0f / static_cast<float>(f.heads());
    for (std::size_t j = 0; j < n; ++j) out[j] *= inv;
}

std::vector<std::pair<int, float>> top_k(const float* row, int n, int k) {
    std::vector<std::pair<int, float>> all;
    all.reserve(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) all.emplace_back(j, row[j]);
    const auto count = static_cast<std::size_t>(std::clamp(k, 0, n));
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count), all.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    all.resize(count);
    return all;
}

} // namespace core::io
