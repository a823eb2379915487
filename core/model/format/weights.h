// core/model/format/weights.h — a checkpoint's tensors, memory-mapped and read in place.
//
// One model.safetensors, or model.safetensors.index.json and the shards its weight_map names.
// Opening reads only the headers. F32 tensors are used where they lie in the mapping; F16 and BF16
// ones are converted to float32 the first time a forward uses them, and kept. Names end as
// transformers renames them on load: an older checkpoint's "LayerNorm.gamma" / ".beta" are found
// as "LayerNorm.weight" / ".bias".
#pragma once

#include "core/io/tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace core::model {

using Shape = std::vector<std::int64_t>;

// The shard index: tensor name -> shard file name (a plain name in the index's directory).
// Throws core::io::FileError "PATH: …".
std::map<std::string, std::string> parse_shard_index(const std::string& text, const std::string& path);

class Weights {
public:
    // `path` is a model.safetensors or a model.safetensors.index.json. Throws core::io::FileError
    // naming the file (and the tensor): truncated, corrupt header, a shard missing, a tensor the
    // index names but its shard lacks.
    static std::shared_ptr<Weights> open(const std::string& path);
    // Tensors held in memory (attnviz's own trained models, converted).
    static std::shared_ptr<Weights> from_memory(std::map<std::string, std::pair<Shape, std::vector<float>>> tensors, const std::string& path);
    ~Weights();
    Weights(const Weights&) = delete;
    Weights& operator=(const Weights&) = delete;

    bool has(const std::string& name) const { return tensors_.count(name) != 0; }
    const Shape& shape(const std::string& name) const;
    const std::string& path() const { return path_; }
    std::uint64_t file_bytes() const { return file_bytes_; } // the safetensors files' sizes

    // A tensor checked to exist with `shape` and a float dtype; throws FileError "FILE: tensor
    // "NAME" …" otherwise. The handle stays valid as long as this Weights.
    class Tensor;
    const Tensor& require(const std::string& name, const Shape& shape) const;
    // The same, or null when the checkpoint lacks it.
    const Tensor* optional(const std::string& name, const Shape& shape) const;

private:
    Weights() = default;
    void map_shard(const std::string& shard, const std::string& index_path);
    struct Mapping;
    std::string path_;
    std::vector<std::unique_ptr<Mapping>> mappings_;
    std::map<std::string, std::unique_ptr<Tensor>> tensors_;
    std::uint64_t file_bytes_ = 0;
};

class Weights::Tensor {
public:
    // The float32 values, row-major (converted on first use for F16/BF16; thread-safe).
    const float* data() const;
    const Shape& shape() const { return shape_; }
    std::int64_t count() const;

private:
    friend class Weights;
    Shape shape_;
    core::io::DType dtype_ = core::io::DType::f32;
    const unsigned char* bytes_ = nullptr; // in the mapping
    std::string where_;                    // "FILE: tensor \"NAME\""
    mutable std::once_flag converted_;
    mutable std::vector<float> owned_;     // converted or copied values
    mutable const float* data_ = nullptr;
};

} // namespace core::model
