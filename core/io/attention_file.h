// core/io/attention_file.h — a real model's attention weights, read in place.
//
// The file is .npy, .safetensors (memory-mapped, nothing copied: a 600 MB file opens in
// milliseconds) or .npz (read whole; a compressed member cannot be mapped). Its array is (n, n),
// (heads, n, n) or (layers, heads, n, n), with an optional batch axis of 1 as in a stacked Hugging
// Face `outputs.attentions` (layers, 1, heads, n, n); float16, bfloat16, float32 or float64, in C or
// Fortran order, either byte order.
#pragma once

#include "core/io/tensor.h"

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace core::io {

struct AttentionLimits {
    static constexpr int max_tokens = 16384;
    static constexpr int max_layers = 512;
    static constexpr int max_heads = 512;
};

class AttentionFile {
public:
    // Throws FileError ("att.npy: shape (3, 4) is not …").
    static std::unique_ptr<AttentionFile> open(const std::string& path);
    ~AttentionFile();
    AttentionFile(const AttentionFile&) = delete;
    AttentionFile& operator=(const AttentionFile&) = delete;

    int layers() const { return dims_[0]; }
    int heads() const { return dims_[1]; }
    int n() const { return dims_[2]; }
    const std::string& path() const { return path_; }
    DType dtype() const { return dtype_; }
    bool memory_mapped() const { return mapping_ != nullptr; }
    // Token names stored with the weights (safetensors metadata "tokens" or "labels", a JSON array
    // of n strings); empty when there are none.
    const std::vector<std::string>& labels() const { return labels_; }

    // Row i of one head: the weights of query i over the n keys.
    void read_row(int layer, int head, int i, float* out) const; // out: (n)
    float at(int layer, int head, int i, int j) const;

private:
    AttentionFile() = default;
    const unsigned char* element(int layer, int head, int i, int j) const;

    std::string path_;
    void* mapping_ = nullptr;     // the whole file (mmap), or null for .npz
    std::size_t mapped_bytes_ = 0;
    std::vector<double> owned_;   // .npz: the values read whole
    const unsigned char* data_ = nullptr;
    std::array<int, 4> dims_{};             // layers, heads, n, n
    std::array<std::size_t, 4> strides_{};  // in elements, for the same four axes
    DType dtype_ = DType::f32;
    bool big_endian_ = false;
    std::vector<std::string> labels_;
};

// Token labels from a file: a JSON array of strings, or else one token a line. Throws FileError.
std::vector<std::string> read_token_labels(const std::string& path);

// What a head's weights look like at a glance, and whether any weight sits above the diagonal.
struct HeadSummary {
    int side = 0;              // the thumbnail is side × side
    std::vector<float> thumb;  // (side, side): the largest weight of each block of cells
    float max_weight = 0;
    float above_max = 0;       // the largest weight with key j > query i (0 for a causal head)
    int above_row = -1, above_col = -1; // where it is
    double above_mass = 0;     // the weight above the diagonal, summed over all rows, divided by n
    bool has_nan = false;
};

// A weight above the diagonal bigger than this makes a head non-causal.
constexpr float causal_tolerance = 1e-6f;

HeadSummary summarise_head(const AttentionFile& f, int layer, int head, int thumb_side);

// The mean over heads of one layer's row i.
void mean_row(const AttentionFile& f, int layer, int i, float* out, std::vector<float>& scratch); // out: (n)

// The k largest entries of `row` as (index, weight), largest first (ties: lower index first).
std::vector<std::pair<int, float>> top_k(const float* row, int n, int k);

} // namespace core::io
