// core/model/attention_maps.h — every head's attention weights of one forward, given when asked.
//
// A forward does not keep (layers, heads, t_new, t_total) weights: at 8192 tokens a Llama-1B-sized
// model's would take 137 GB. It keeps what rebuilds any of them exactly, each layer's queries (after
// RoPE) and keys with the layer's scale, soft-cap, window, mask and learned sinks, and a view asks for the rows it
// draws. rows() runs ops::Attend on the kept vectors in the very blocks of 64 queries the forward
// ran (each block's products have the same shapes), so every rebuilt weight has the forward's bits.
// A forward asked for dense maps (ForwardOptions::dense_attention) writes every map as it runs
// instead: the full forward that the tests compare the rebuilt maps with.
//
// A linear layer keeps its q, k, β and g instead, and its heads' maps are their exact matrices M,
// rebuilt by core/model/delta_rule.h (entries signed); heads past its value heads give 0.
//
// Layers, heads and rows count from 0; a layer that did not run (a rerun from a higher layer) gives 0.
#pragma once

#include "core/heads/head.h"
#include "core/model/delta_rule.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace core::model {

using core::heads::MatrixF;

class AttentionMaps {
public:
    // A linear layer's input kept in place of its q and k: `project` runs the layer's own
    // projections, convolution and norms on it again (gated_delta_net::project_qk), the call the
    // forward made, so the q and k it gives are the forward's bits.
    struct LinearSource {
        std::vector<float> input; // (t_total, d_model) the layer's input after its norm
        int d_model = 0;
        std::function<void(const float* input, int t, std::vector<float>& q, std::vector<float>& k)> project;
    };
    // What rebuilds one layer's maps.
    struct Layer {
        std::vector<float> q; // (t_new, heads · d_head) after RoPE
        std::vector<float> k; // (t_total, kv_heads · d_head) after RoPE
        bool causal = true;
        int window = 0;       // 0: every visible key
        float scale = 1.0f, softcap = 0.0f;
        std::vector<float> sinks; // (heads) learned sink logits, or empty: none
        // A linear layer (Gated DeltaNet): q and k are (t_total, k_heads · d_k) as the delta rule reads
        // them, beta and g (t_total, v_heads); head h's map is its matrix M's last t_new rows
        // (delta_rule.h), signed.
        bool linear = false;
        std::vector<float> beta, g;
        int k_heads = 0, v_heads = 0, d_k = 0;
        std::vector<float> v; // (t_total, v_heads · d_v) the values, for the state view, or empty
        int d_v = 0;
        bool tiled = false; // value head h reads key head h mod k_heads (delta_rule::Shape::tiled)
        // Or, in place of q and k (a long run's, where the layer's input is the smaller): what gives
        // them again, the same bits.
        std::shared_ptr<const LinearSource> source;
        bool ran() const { return !q.empty() || source; }
    };
    // A linear layer's q and k (t_total, k_heads · d_k) as the rule read them, kept or projected
    // again (the latest layer projected stays, so that its heads are drawn one after another without
    // projecting each time); `hold` keeps them alive.
    struct LinearQK {
        const float* q = nullptr;
        const float* k = nullptr;
        std::shared_ptr<const void> hold;
    };
    LinearQK linear_qk(int l) const;
    // The forward's shapes; the blocks of queries are `block` rows, from the first new one.
    static constexpr int block = 64;
    AttentionMaps() = default;
    AttentionMaps(int layers, int heads, int kv_heads, int d_head, int t_new, int t_total, bool dense);

    int layers() const { return layers_; }
    int heads() const { return heads_; }
    int t_new() const { return t_new_; }
    int t_total() const { return t_total_; }
    // No maps: the forward was asked for none.
    bool empty() const { return layers_ == 0 || (dense_.empty() && kept_.empty()); }
    bool dense() const { return !dense_.empty(); }

    // Rows r0 … r1 − 1 of head (l, h)'s map into dst ((r1 − r0), t_total) row-major, 0 where masked.
    void rows(int l, int h, int r0, int r1, float* dst) const;
    // Head (l, h)'s map (t_new, t_total).
    MatrixF head(int l, int h) const;
    // Every map, (layers, heads, t_new, t_total) row-major: for small runs (tests, files) only.
    std::vector<float> all() const;
    // A linear layer's head (l, h), from the kept q, k, v, β and g: M[i, j] split into the direct write
    // and its correction (i a new row), and the state (d_k, d_v) after `position` of the whole sequence,
    // 0 … t_total − 1, the positions of a continued cache included. Nothing for a softmax layer, a head
    // past the layer's value heads, a layer that did not run, dense maps, or (the state) a run that
    // kept no values of every position.
    bool linear(int l) const;
    // What layer l kept (q, k and, for a linear layer, v, β and g), or null: dense maps, a layer that did not run.
    const Layer* kept(int l) const;
    std::optional<delta_rule::Split> linear_split(int l, int h, int i, int j) const;
    std::optional<MatrixF> linear_state(int l, int h, int position) const;
    // What the store holds.
    std::size_t bytes() const;
    // The bytes a forward's store takes (the memory check's figure), kept or dense.
    static std::size_t bytes_for(int layers, int heads, int kv_heads, int d_head, int t_new, int t_total, bool dense);

    // [SECTION] filled by the forward
    // Head (l, h)'s weights when dense (t_new, t_total), else null.
    float* dense_head(int l, int h);
    // Layer l's queries and keys (moved in), when not dense.
    void keep_layer(int l, Layer layer);

private:
    int layers_ = 0, heads_ = 0, kv_heads_ = 1, d_head_ = 0, t_new_ = 0, t_total_ = 0;
    std::vector<float> dense_; // (layers, heads, t_new, t_total) when dense
    std::vector<Layer> kept_;  // (layers) when not dense; a layer with no q did not run
    struct Projected {         // the latest linear layer's q and k projected again, shared by copies of the maps
        std::mutex mutex;
        int layer = -1;
        std::shared_ptr<const std::vector<float>> q, k;
    };
    std::shared_ptr<Projected> projected_ = std::make_shared<Projected>();
    void rebuild(int l, int h, int b, float* weights) const;
    void linear_rows(int l, int h, int r0, int r1, float* dst) const;
};

// The window's thumbnail of a (t, t) map: its weights summed into side × side blocks (row i into
// block row i · side / t, key j into block column j · side / t), the rows given in order, a block of
// rows at a time (the forward) or all at once; then scaled so that the largest |block| is 1 (a linear
// layer's M is signed). Each block row's rows are added key by key, then each key into its block column.
void thumbnail_rows(const float* rows, int r0, int r1, int t, int side, float* out);
void thumbnail_finish(float* out, int side);

} // namespace core::model
