// core/model/format/weights.cpp — safetensors shards and other formats' files mapped with mmap;
// tensors read in place, a block of rows at a time.
#include "core/model/format/weights.h"

#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

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

// Where a safetensors dtype holds weights: its type, or null.
const char* unreadable_dtype(DType d, WeightType& type) {
    if (d == DType::f32) type = WeightType::f32;
    else if (d == DType::f16) type = WeightType::f16;
    else if (d == DType::bf16) type = WeightType::bf16;
    else return core::io::dtype_name(d);
    return nullptr;
}

std::string plain_file_name(const std::string& name, const std::string& path) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\0') != std::string::npos)
        throw FileError(path + ": weight_map names " + core::io::quote_text(name) + ", not a file name in the same directory");
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
    const unsigned char* bytes() const { return static_cast<const unsigned char*>(base); }
};

// `path` mapped read-only; null when it cannot be opened. Throws FileError for a file that is not
// regular or cannot be mapped.
std::unique_ptr<Weights::Mapping> Weights::map_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st {};
    auto m = std::make_unique<Weights::Mapping>();
    m->path = path;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { ::close(fd); throw FileError(path + ": not a regular file"); }
    m->size = static_cast<std::size_t>(st.st_size);
    if (m->size > 0) m->base = mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (m->base == MAP_FAILED) throw FileError(path + ": cannot be memory-mapped");
    return m;
}

namespace {

// Checks one tensor of a mapped file and sets its row size; FileError otherwise.
void check_mapped(const MappedTensor& e, std::size_t size, const std::string& where, std::int64_t& row_bytes) {
    const BlockShape b = block_shape(e.type);
    const std::string shape = core::io::shape_text(e.shape);
    std::int64_t total = 1;
    for (const std::int64_t d : e.shape) {
        if (d <= 0 || total > (std::int64_t{1} << 40) / d) throw FileError(where + " has shape " + shape + ", empty or too large");
        total *= d;
    }
    const std::int64_t rows = e.shape.empty() ? 1 : e.shape[0], row = total / rows;
    if (row % b.values != 0)
        throw FileError(where + " of type " + type_name(e.type) + " has shape " + shape + ": its rows of " + std::to_string(row) +
                        " values are not whole blocks of " + std::to_string(b.values));
    row_bytes = row / b.values * b.bytes;
    const auto bytes = static_cast<std::uint64_t>(row_bytes) * static_cast<std::uint64_t>(rows);
    if (e.offset > size || bytes > size - e.offset)
        throw FileError(where + " lies past the file's end (" + std::to_string(e.offset) + " + " + std::to_string(bytes) + " bytes; the file has " +
                        std::to_string(size) + ")");
    if (!e.row_order.empty() && static_cast<std::int64_t>(e.row_order.size()) != rows) throw FileError(where + "'s row order does not have one entry per row");
    std::vector<bool> seen(e.row_order.size());
    for (const std::int32_t r : e.row_order) {
        if (r < 0 || r >= rows || seen[static_cast<std::size_t>(r)]) throw FileError(where + "'s row order is not a permutation of its rows");
        seen[static_cast<std::size_t>(r)] = true;
    }
}

} // namespace

std::map<std::string, std::string> parse_shard_index(const std::string& text, const std::string& path) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw FileError(path + ": not a JSON object");
    if (!j.contains("weight_map") || !j.at("weight_map").is_object()) throw FileError(path + ": no \"weight_map\" object");
    const nlohmann::json& map = j.at("weight_map");
    if (map.empty()) throw FileError(path + ": \"weight_map\" is empty");
    if (map.size() > 1000000) throw FileError(path + ": \"weight_map\" names more than a million tensors");
    std::map<std::string, std::string> files;
    for (const auto& [tensor, file] : map.items()) {
        if (!file.is_string()) throw FileError(path + ": weight_map " + core::io::quote_text(tensor) + " is not a file name");
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
            throw FileError(full + ": has no tensor " + core::io::quote_text(tensor) + ", which " + path + " puts there");
    }
    return w;
}

void Weights::map_shard(const std::string& shard, const std::string& index_path) {
    std::unique_ptr<Mapping> m = map_file(shard);
    if (!m) {
        if (!index_path.empty()) throw FileError(index_path + ": names the shard " + core::io::quote_text(shard) + ", which is missing");
        throw FileError(shard + ": cannot be opened");
    }
    const char* bytes = reinterpret_cast<const char*>(m->bytes());
    const core::io::SafetensorsHeader h = core::io::parse_safetensors_header(bytes ? bytes : "", m->size, shard);
    file_bytes_ += m->size;
    for (const core::io::SafetensorsEntry& e : h.entries) {
        auto t = std::make_unique<Tensor>();
        t->shape_ = e.shape;
        t->unreadable_ = unreadable_dtype(e.dtype, t->type_);
        t->u8_ = e.dtype == DType::u8;
        t->bytes_ = m->bytes() + e.begin;
        t->row_bytes_ = t->row_values() * static_cast<std::int64_t>(core::io::dtype_size(e.dtype));
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

std::shared_ptr<Weights> Weights::open_mapped(
    const std::string& path, const std::function<std::vector<MappedTensor>(const unsigned char* bytes, std::size_t size)>& parse) {
    std::shared_ptr<Weights> w(new Weights());
    w->path_ = path;
    std::unique_ptr<Mapping> m = map_file(path);
    if (!m) throw FileError(path + ": cannot be opened");
    static const unsigned char empty = 0;
    const unsigned char* bytes = m->bytes() ? m->bytes() : &empty;
    for (MappedTensor& e : parse(bytes, m->size)) {
        auto t = std::make_unique<Tensor>();
        t->where_ = path + ": tensor \"" + e.name + "\"";
        check_mapped(e, m->size, t->where_, t->row_bytes_);
        if (w->tensors_.count(e.name)) throw FileError(t->where_ + " appears twice");
        t->shape_ = std::move(e.shape);
        t->type_ = e.type;
        t->bytes_ = bytes + e.offset;
        t->row_order_ = std::move(e.row_order);
        if (!e.file_name.empty() && e.file_name != e.name) w->file_names_.emplace(e.file_name, e.name);
        w->tensors_.emplace(e.name, std::move(t));
    }
    w->file_bytes_ = m->size;
    w->mappings_.push_back(std::move(m));
    return w;
}

std::shared_ptr<Weights> Weights::from_memory(std::map<std::string, std::pair<Shape, std::vector<float>>> tensors, const std::string& path) {
    std::shared_ptr<Weights> w(new Weights());
    w->path_ = path;
    for (auto& [name, value] : tensors) {
        auto t = std::make_unique<Tensor>();
        t->shape_ = value.first;
        t->owned_ = std::move(value.second);
        t->bytes_ = reinterpret_cast<const unsigned char*>(t->owned_.data());
        t->row_bytes_ = t->row_values() * 4;
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
    if (t.unreadable_) throw FileError(t.where_ + " has dtype " + t.unreadable_ + "; attnviz reads weights in F32, F16 and BF16");
    return t;
}

const unsigned char* Weights::require_bytes(const std::string& name, const Shape& shape) const {
    const auto it = tensors_.find(name);
    if (it == tensors_.end()) throw FileError(path_ + ": no tensor \"" + name + "\" (the model needs one of shape " + core::io::shape_text(shape) + ")");
    const Tensor& t = *it->second;
    if (!t.u8_) throw FileError(t.where_ + " is not U8, the dtype of MXFP4 blocks and scales");
    if (t.shape_ != shape) throw FileError(t.where_ + " has shape " + core::io::shape_text(t.shape_) + ", the config needs " + core::io::shape_text(shape));
    return t.bytes_;
}

std::unique_ptr<Weights::Tensor> Weights::Tensor::mxfp4_pairs(Shape shape, const unsigned char* values, const unsigned char* scales,
                                                              std::string where) {
    auto t = std::make_unique<Tensor>();
    t->shape_ = std::move(shape);
    t->type_ = WeightType::mxfp4;
    t->bytes_ = values;
    t->scales_ = scales;
    t->row_bytes_ = t->row_values() / 32 * 16;
    t->where_ = std::move(where);
    return t;
}

std::int64_t Weights::Tensor::count() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape_) n *= d;
    return n;
}

std::string Weights::name_for(const std::string& name) const {
    const auto it = file_names_.find(name);
    return it == file_names_.end() || tensors_.count(name) ? name : it->second;
}

bool Weights::has_matrix_of(WeightType t) const {
    for (const auto& [name, tensor] : tensors_)
        if (tensor->type() == t && tensor->shape().size() >= 2) return true;
    return false;
}

std::int64_t Weights::Tensor::row_values() const {
    std::int64_t n = 1;
    for (std::size_t i = 1; i < shape_.size(); ++i) n *= shape_[i];
    return n;
}

void Weights::Tensor::rows(std::int64_t first, std::int64_t count, float* dst) const { columns(first, count, 0, row_values(), dst); }

void Weights::Tensor::columns(std::int64_t first, std::int64_t count, std::int64_t col0, std::int64_t cols, float* dst) const {
    for (std::int64_t r = 0; r < count; ++r) row_into(first + r, col0, cols, dst + r * cols);
}

void Weights::Tensor::row_into(std::int64_t r, std::int64_t col0, std::int64_t cols, float* dst) const {
    const std::int64_t stored = row_order_.empty() ? r : row_order_[static_cast<std::size_t>(r)];
    if (scales_) return dequantize_mxfp4_pairs(bytes_ + stored * row_bytes_ + col0 / 2, scales_ + stored * (row_bytes_ / 16) + col0 / 32, dst, cols);
    const BlockShape b = block_shape(type_);
    dequantize(type_, bytes_ + stored * row_bytes_ + col0 / b.values * b.bytes, dst, cols);
}

const unsigned char* Weights::Tensor::stored_row(std::int64_t r) const {
    return bytes_ + (row_order_.empty() ? r : row_order_[static_cast<std::size_t>(r)]) * row_bytes_;
}

BlockShape Weights::Tensor::stored_block() const { return scales_ ? BlockShape{32, 16} : block_shape(type_); }

const float* Weights::Tensor::in_place() const {
    const bool aligned = reinterpret_cast<std::uintptr_t>(bytes_) % alignof(float) == 0;
    return type_ == WeightType::f32 && row_order_.empty() && aligned ? reinterpret_cast<const float*>(bytes_) : nullptr;
}

const float* Weights::Tensor::data() const {
    std::call_once(converted_, [this] {
        if ((data_ = in_place())) return;
        if (shape_.size() > 1) return;
        owned_.resize(static_cast<std::size_t>(count()));
        rows(0, shape_.empty() ? 1 : shape_[0], owned_.data());
        data_ = owned_.data();
    });
    if (!data_) throw std::logic_error(where_ + " is " + type_name(type_) + ": a matrix not in place is read by rows");
    return data_;
}

const Weights::Tensor& Weights::Tensor::part(std::int64_t i) const {
    std::call_once(parted_, [this] {
        if (shape_.size() < 2 || !row_order_.empty()) return;
        const Shape inner(shape_.begin() + 1, shape_.end());
        std::int64_t row = 1; // values in a row of a part
        for (std::size_t d = 1; d < inner.size(); ++d) row *= inner[d];
        const BlockShape b = stored_block();
        if (row % b.values != 0) return;
        for (std::int64_t p = 0; p < shape_[0]; ++p) {
            auto t = std::make_unique<Tensor>();
            t->shape_ = inner;
            t->type_ = type_;
            t->unreadable_ = unreadable_;
            t->bytes_ = bytes_ + p * row_bytes_; // a row of this tensor is a whole part
            t->scales_ = scales_ ? scales_ + p * (row_bytes_ / 16) : nullptr;
            t->row_bytes_ = row / b.values * b.bytes;
            t->where_ = where_ + "[" + std::to_string(p) + "]";
            parts_.push_back(std::move(t));
        }
    });
    if (parts_.empty())
        throw FileError(where_ + " of type " + type_name(type_) + " has shape " + core::io::shape_text(shape_) +
                        ": its parts along the first dimension are not matrices of whole blocks");
    if (i < 0 || i >= static_cast<std::int64_t>(parts_.size())) throw std::out_of_range(where_ + ": no part " + std::to_string(i));
    return *parts_[static_cast<std::size_t>(i)];
}

} // namespace core::model
