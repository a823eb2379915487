// core/model/format/weights.h — a checkpoint's tensors, memory-mapped and read in place.
//
// One model.safetensors, or model.safetensors.index.json and the shards its weight_map names, or
// (open_mapped) a file of another format whose reader gives the tensor table. Opening reads only
// the headers. Every tensor stays as it lies in the mapping, in its own type (blocks.h): the
// products read rows of it as float32, a panel at a time. Names end as transformers renames them
// on load: an older checkpoint's "LayerNorm.gamma" / ".beta" are found as "LayerNorm.weight" / ".bias".
#pragma once

#include "core/io/tensor.h"
#include "core/model/format/blocks.h"

#include <cstdint>
#include <functional>
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

struct MappedTensor {                     // one tensor of a mapped file
    std::string name;                     // as the architecture asks for it (the reader translates names)
    Shape shape;                          // row-major, outermost first (GGUF's ne reversed)
    WeightType type = WeightType::f32;
    std::uint64_t offset = 0;             // of its first byte from the file's start
    std::vector<std::int32_t> row_order;  // empty: identity; else row r of the tensor is stored row row_order[r]
    std::string file_name = {};           // its name in the file where the reader translated it ("blk.0.attn_q.weight")
};

class Weights {
public:
    // `path` is a model.safetensors or a model.safetensors.index.json. Throws core::io::FileError
    // naming the file (and the tensor): truncated, corrupt header, a shard missing, a tensor the
    // index names but its shard lacks.
    static std::shared_ptr<Weights> open(const std::string& path);
    // Maps `path`, calls parse(bytes, size) for the table, checks every tensor lies inside the file,
    // that its row is a whole number of blocks and its row_order a permutation (FileError naming
    // the file and tensor otherwise).
    static std::shared_ptr<Weights> open_mapped(
        const std::string& path, const std::function<std::vector<MappedTensor>(const unsigned char* bytes, std::size_t size)>& parse);
    // Tensors held in memory (attnviz's own trained models, converted).
    static std::shared_ptr<Weights> from_memory(std::map<std::string, std::pair<Shape, std::vector<float>>> tensors, const std::string& path);
    ~Weights();
    Weights(const Weights&) = delete;
    Weights& operator=(const Weights&) = delete;

    bool has(const std::string& name) const { return tensors_.count(name) != 0; }
    // The name a tensor has here for `name` as the file itself calls it (GGUF's "blk.0.attn_q.weight"
    // is "model.layers.0.self_attn.q_proj.weight"); `name` itself when the file does not rename it.
    std::string name_for(const std::string& name) const;
    const Shape& shape(const std::string& name) const;
    const std::string& path() const { return path_; }
    // Whether any matrix (a tensor of two or more dimensions) is stored as `t`.
    bool has_matrix_of(WeightType t) const;
    std::uint64_t file_bytes() const { return file_bytes_; } // the mapped files' sizes

    // A tensor checked to exist with `shape` and a type of blocks.h; throws FileError "FILE: tensor
    // "NAME" …" otherwise. The handle stays valid as long as this Weights.
    class Tensor;
    const Tensor& require(const std::string& name, const Shape& shape) const;
    // The same, or null when the checkpoint lacks it.
    const Tensor* optional(const std::string& name, const Shape& shape) const;
    // The bytes of a U8 tensor checked to have `shape`, where they lie (the Hub's MXFP4 blocks and
    // scales); throws FileError naming the file and tensor otherwise.
    const unsigned char* require_bytes(const std::string& name, const Shape& shape) const;

private:
    Weights() = default;
    void map_shard(const std::string& shard, const std::string& index_path);
    struct Mapping;
    static std::unique_ptr<Mapping> map_file(const std::string& path);
    std::string path_;
    std::vector<std::unique_ptr<Mapping>> mappings_;
    std::map<std::string, std::unique_ptr<Tensor>> tensors_;
    std::map<std::string, std::string> file_names_; // the file's own name → the name in tensors_, where they differ
    std::uint64_t file_bytes_ = 0;
};

class Weights::Tensor {
public:
    WeightType type() const { return type_; }
    const Shape& shape() const { return shape_; }
    std::int64_t count() const;
    // Product of shape[1:] (1 for a 1-D tensor).
    std::int64_t row_values() const;
    // Rows first … first+count−1 of the tensor seen as (shape[0], row_values()) row-major, as
    // float32 into dst (count · row_values() floats). Honours row_order. Thread-safe.
    void rows(std::int64_t first, std::int64_t count, float* dst) const;
    // Columns col0 … col0+cols−1 of the same rows into dst (count, cols) row-major; col0 and cols are
    // whole blocks of the type.
    void columns(std::int64_t first, std::int64_t count, std::int64_t col0, std::int64_t cols, float* dst) const;
    // Values col0 … col0+cols−1 (whole blocks) of row r as float32 into dst. Honours row_order.
    void row_into(std::int64_t r, std::int64_t col0, std::int64_t cols, float* dst) const;
    // Row r's bytes as stored (its blocks), honouring row_order; for MXFP4 with its scales apart, the
    // bytes of its values alone (stored_block() says how many a block).
    const unsigned char* stored_row(std::int64_t r) const;
    // A block as a row's run holds it: block_shape(type()), or 32 values in 16 bytes where the scales
    // lie apart.
    BlockShape stored_block() const;
    // The values where they lie when they are float32 in order and aligned, else null.
    const float* in_place() const;
    // The float32 values, row-major: in place, or for a 1-D tensor converted on first use
    // (thread-safe). A matrix not in place is read by rows() or columns() (std::logic_error).
    const float* data() const;
    // Index i of the first dimension as a tensor of shape[1:], in the same stored bytes (expert i's
    // matrix of a GGUF file's (experts, out, in) tensor). Throws FileError when its rows are not whole
    // blocks of the type or the tensor's rows are reordered. The handle lives as long as this one.
    const Tensor& part(std::int64_t i) const;
    // An MXFP4 tensor (…, R, C) where the Hub's gpt-oss checkpoints hold it, read in place: `values`,
    // the U8 *_blocks (…, R, C/32, 16), byte j of a block holding value 2j low and 2j + 1 high, and
    // `scales`, the U8 *_scales (…, R, C/32), one E8M0 byte a block. The bytes stay the caller's
    // (a Weights' mapping, which must outlive the tensor).
    static std::unique_ptr<Tensor> mxfp4_pairs(Shape shape, const unsigned char* values, const unsigned char* scales, std::string where);

private:
    friend class Weights;
    Shape shape_;
    WeightType type_ = WeightType::f32;
    const char* unreadable_ = nullptr;     // a safetensors dtype attnviz takes no weights in
    bool u8_ = false;                      // a safetensors U8 tensor (require_bytes)
    const unsigned char* bytes_ = nullptr; // in the mapping (or owned_ for a tensor in memory)
    std::int64_t row_bytes_ = 0;           // stored bytes per row
    const unsigned char* scales_ = nullptr; // mxfp4_pairs: the scales, row_bytes_ / 16 bytes a row; else null
    std::vector<std::int32_t> row_order_;  // empty: identity
    std::string where_;                    // "FILE: tensor \"NAME\""
    mutable std::once_flag converted_;
    mutable std::vector<float> owned_;     // converted or in-memory values
    mutable const float* data_ = nullptr;
    mutable std::once_flag parted_;
    mutable std::vector<std::unique_ptr<Tensor>> parts_; // (shape[0]) made on the first part()
};

} // namespace core::model
