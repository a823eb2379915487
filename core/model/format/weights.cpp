// core/model/format/weights.cpp — safetensors shards mapped with mmap, tensors converted as used.
#include "core/model/format/weights.h"

#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace core::model {

namespace {

using core::io::DType;
using core::io::FileError;

std::string directory_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
    if (exponent == 0x1f) bits = sign | 0x7f800000u | (mantissa << 13); // inf, NaN
    else if (exponent != 0) bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    else if (mantissa == 0) bits = sign;
    else { // subnormal: normalise
        exponent = 113;
        while (!(mantissa & 0x400u)) { mantissa <<= 1; --exponent; }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::string plain_file_name(const std::string& name, const std::string& path) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\0') != std::string::npos)
        throw FileError(path + ": weight_map names \"" + name + "\", not a file name in the same directory");
    return name;
}

} // namespace

struct Weights::Mapping {
    std::string path;
    void* base = nullptr;
    std::size_t size = 0;
    ~Mapping() {
        if (base && base != MAP_FAILED) munmap(base, size);
    }
};

std::map<std::string, std::string> parse_shard_index(const std::string& text, const std::string& path) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw FileError(path + ": not a JSON object");
    if (!j.contains("weight_map") || !j.at("weight_map").is_object()) throw FileError(path + ": no \"weight_map\" object");
    const nlohmann::json& map = j.at("weight_map");
    if (map.empty()) throw FileError(path + ": \"weight_map\" is empty");
    if (map.size() > 1000000) throw FileError(path + ": \"weight_map\" names more than a million tensors");
    std::map<std::string, std::string> files;
    for (const auto& [tensor, file] : map.items()) {
        if (!file.is_string()) throw FileError(path + ": weight_map \"" + tensor + "\" is not a file name");
        files[tensor] = plain_file_name(file.get<std::string>(), path);
    }
    return files;
}

std::shared_ptr<Weights> Weights::open(const std::string& path) {
    std::shared_ptr<Weights> w(new Weights());
    w->path_ = path;
    std::map<std::string, std::string> index;
    std::vector<std::string> shards;
    const bool sharded = path.size() > 11 && path.compare(path.size() - 11, 11, ".index.json") == 0;
    if (sharded) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw FileError(path + ": cannot be read");
        std::ostringstream s;
        s << in.rdbuf();
        index = parse_shard_index(s.str(), path);
        for (const auto& [tensor, file] : index)
            if (std::find(shards.begin(), shards.end(), file) == shards.end()) shards.push_back(file);
        for (std::string& file : shards) file = directory_of(path) + "/" + file;
    } else {
        shards.push_back(path);
    }
    for (const std::string& shard : shards) w->map_shard(shard, sharded ? path : std::string());
    for (const auto& [tensor, file] : index) {
        const std::string full = directory_of(path) + "/" + file;
        const auto it = w->tensors_.find(tensor);
        if (it == w->tensors_.end() || it->second->where_.compare(0, full.size() + 1, full + ":") != 0)
            throw FileError(full + ": has no tensor \"" + tensor + "\", which " + path + " puts there");
    }
    return w;
}

void Weights::map_shard(const std::string& shard, const std::string& index_path) {
    const int fd = ::open(shard.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (!index_path.empty()) throw FileError(index_path + ": names the shard " + shard + ", which is missing");
        throw FileError(shard + ": cannot be opened");
    }
    struct stat st {};
    auto m = std::make_unique<Mapping>();
    m->path = shard;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { ::close(fd); throw FileError(shard + ": not a regular file"); }
    m->size = static_cast<std::size_t>(st.st_size);
    if (m->size > 0) m->base = mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (m->base == MAP_FAILED) throw FileError(shard + ": cannot be memory-mapped");
    const char* bytes = static_cast<const char*>(m->base);
    const core::io::SafetensorsHeader h = core::io::parse_safetensors_header(bytes ? bytes : "", m->size, shard);
    file_bytes_ += m->size;
    for (const core::io::SafetensorsEntry& e : h.entries) {
        auto t = std::make_unique<Tensor>();
        t->shape_ = e.shape;
        t->dtype_ = e.dtype;
        t->bytes_ = reinterpret_cast<const unsigned char*>(bytes) + e.begin;
        t->where_ = shard + ": tensor \"" + e.name + "\"";
        std::string name = e.name;
        for (const char* old : {"LayerNorm.gamma", "LayerNorm.beta"}) {
            const std::size_t n = std::strlen(old);
            if (name.size() >= n && name.compare(name.size() - n, n, old) == 0)
                name = name.substr(0, name.size() - n) + (old[10] == 'g' ? "LayerNorm.weight" : "LayerNorm.bias");
        }
        tensors_.emplace(name, std::move(t));
    }
    mappings_.push_back(std::move(m));
}

std::shared_ptr<Weights> Weights::from_memory(std::map<std::string, std::pair<Shape, std::vector<float>>> tensors, const std::string& path) {
    std::shared_ptr<Weights> w(new Weights());
    w->path_ = path;
    for (auto& [name, value] : tensors) {
        auto t = std::make_unique<Tensor>();
        t->shape_ = value.first;
        t->owned_ = std::move(value.second);
        t->where_ = path + ": tensor \"" + name + "\"";
        w->file_bytes_ += t->owned_.size() * sizeof(float);
        w->tensors_.emplace(name, std::move(t));
    }
    return w;
}

Weights::~Weights() = default;

const Shape& Weights::shape(const std::string& name) const {
    static const Shape none;
    const auto it = tensors_.find(name);
    return it == tensors_.end() ? none : it->second->shape_;
}

const Weights::Tensor* Weights::optional(const std::string& name, const Shape& shape) const {
    return has(name) ? &require(name, shape) : nullptr;
}

const Weights::Tensor& Weights::require(const std::string& name, const Shape& shape) const {
    const auto it = tensors_.find(name);
    if (it == tensors_.end()) throw FileError(path_ + ": no tensor \"" + name + "\" (the model needs one of shape " + core::io::shape_text(shape) + ")");
    const Tensor& t = *it->second;
    if (t.shape_ != shape)
        throw FileError(t.where_ + " has shape " + core::io::shape_text(t.shape_) + ", the config needs " + core::io::shape_text(shape));
    if (t.bytes_ && t.dtype_ != DType::f32 && t.dtype_ != DType::f16 && t.dtype_ != DType::bf16)
        throw FileError(t.where_ + " has dtype " + core::io::dtype_name(t.dtype_) + "; attnviz reads weights in F32, F16 and BF16");
    return t;
}

std::int64_t Weights::Tensor::count() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape_) n *= d;
    return n;
}

const float* Weights::Tensor::data() const {
    std::call_once(converted_, [this] {
        if (!bytes_) { data_ = owned_.data(); return; }
        const auto n = static_cast<std::size_t>(count());
        if (dtype_ == DType::f32 && reinterpret_cast<std::uintptr_t>(bytes_) % alignof(float) == 0) {
            data_ = reinterpret_cast<const float*>(bytes_); // in place
            return;
        }
        owned_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned char* p = bytes_ + i * core::io::dtype_size(dtype_);
            if (dtype_ == DType::f32) std::memcpy(&owned_[i], p, 4);
            else {
                const auto bits = static_cast<std::uint16_t>(p[0] | (p[1] << 8));
                if (dtype_ == DType::f16) owned_[i] = half_to_float(bits);
                else {
                    const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
                    std::memcpy(&owned_[i], &wide, 4);
                }
            }
        }
        data_ = owned_.data();
    });
    return data_;
}

} // namespace core::model
