// core/model/arch/layers.h — the pieces every architecture's forward shares: projections, the heads
// over the KV cache, ablations, and the frame of extend() (LayerStack). Internal to core/model/arch/*.cpp.
#pragma once

#include "core/model/forward.h"
#include "core/model/ops.h"
#include "core/model/format/weights.h"
#include "core/model/weight_product.h"

#include <string>
#include <vector>

namespace core::model::layers {

using Tensor = Weights::Tensor;

using core::model::Layout;

// y (t, out) = x (t, in) · W (+ b) (+ y when accumulate), the product shared between the cores,
// W in its stored type (weight_product.h).
void project(const float* x, int t, int in, int out, const Tensor& W, Layout layout, const Tensor* b, float* y,
             bool accumulate = false);

ops::Activation activation_of(const std::string& name);

// gate (t, F) ← act(gate) ⊙ up (t, F), shared between the cores in pieces (ops::Set::gated): each value its
// own, the same bits however the values are split.
void gated_rows(MatrixF& gate, const MatrixF& up, ops::Activation act);

// Appends t rows of k and v (each row `row` floats, row strides ldk and ldv) to layer l's cache.
void append_kv(KvCache& cache, int l, const float* k, int ldk, const float* v, int ldv, int t);

struct HeadsArgs {
    const float* q;  // (t_new, heads · d_head) row stride ldq
    int ldq;
    int layer, heads, kv_heads, d_head;
    bool causal;
    int window;      // 0: every visible key
    float scale;
    float softcap = 0.0f; // attention-logit soft-cap (Gemma 2), 0: none
    const float* sinks = nullptr; // (heads) learned sink logits (AttentionKind::sinks), or null: none
    const float* gate = nullptr;  // (copies · t_new, heads · d_head) the output gate's logits (Qwen3.5,
                                  // Qwen3-Next): the context times their sigmoid before o_proj; null: none
};

// Every head of one layer over the cache (which already holds this call's keys): writes `context`
// (t_new, heads · d_head) and, where asked, the layer's attention and captures into `r`. A cache
// that is not kept loses the layer's rows afterwards.
void attend_heads(const HeadsArgs& a, KvCache& cache, const ForwardOptions& o, ForwardResult& r, float* context);

// Sets each ablated head of `layer` in context (copies · t, heads · d_head) to zero or its mean over
// its copy's rows, and each patched head to o.patch_from's rows (ForwardOptions::patch).
void ablate(float* context, int t, int heads, int d_head, int layer, const ForwardOptions& o);

// x (t, D) += heads · W_o (+ b): attend_heads, then the output gate where there is one, then ablate,
// then the output projection of the
// context (t, heads · d_head), W_o stored as `layout`; with o.record each head's write and b.
void heads_into_stream(const HeadsArgs& a, KvCache& cache, const ForwardOptions& o, ForwardResult& r, const Tensor& W_o,
                       Layout layout, const Tensor* b_o, MatrixF& x);

std::string layer_name(const std::string& prefix, int l, const std::string& rest);

// Layer l's position-wise MLP, mlp(x) on x (copies · t, D): on mlp_rows rows at a time, so that a
// long sequence's (rows, d_ff) activations are never whole; in the last layer of a forward whose
// caller reads each copy's last position alone (ForwardOptions::last_position_only), on those rows.
// A recorded layer's MLP runs on x whole.
void position_wise(const ForwardOptions& o, int l, int layers, int t, MatrixF& x, const std::function<void(MatrixF&)>& mlp);

// [SECTION] the stream's components (ForwardOptions::record)
// Whether the writes of layer l go into o.record.
bool recording(const ForwardOptions& o, int l);
// A component `part` (t, D) named `name` into o.record.
void record(const ForwardOptions& o, const std::string& name, MatrixF part);
// b (D) on each of t rows, as "biases".
void record_bias(const ForwardOptions& o, const float* b, int t, int d);
// A write to the stream: after − before (t, D), less its bias b (D) or null, which is recorded apart.
void record_write(const ForwardOptions& o, const std::string& name, const MatrixF& before, const MatrixF& after, const Tensor* b);
// A norm of the stream frozen at the run's scale: the components from `first` on, whose sum x (t, D)
// the norm takes, centred (a LayerNorm: centre) and times each row's 1/σ (1/rms) of x and gain (D);
// bias (D) or null joins as "biases".
void freeze_norm(const ForwardOptions& o, std::size_t first, const MatrixF& x, const float* gain, const float* bias, float eps, bool centre);

// A model that is embeddings, a stack of layers and what follows them. extend() runs the frame that
// every architecture shares: the ids checked, the cache readied and the result sized; the residual
// stream x (copies · t, D) embedded (not on a rerun from a layer) and copied into the other copies;
// each layer, with cancel, residuals and progress around it; the cache committed; the final norm
// (Model::final_norm); the logits. Each architecture gives the parts in its own file, with its own names.
class LayerStack : public Model {
public:
    using Model::Model;
    ForwardResult extend(KvCache& cache, const std::vector<int>& ids, const ForwardOptions& o) const final;
    Unembedding unembedding() const override;

protected:
    // The LM head, set by the architecture: weight (vocab, D) (often the tied embeddings) and bias,
    // or no weight for a bare encoder.
    const Tensor* head_ = nullptr;
    const Tensor* head_bias_ = nullptr;
    float head_softcap_ = 0.0f; // Unembedding::softcap

    // x's first ids.size() rows: the embeddings of `ids` at positions past, past + 1, …
    virtual void embed(const std::vector<int>& ids, int past, MatrixF& x) const = 0;
    // Layer l on the stream x (copies · t, D), appending its keys and values to the cache and, where
    // asked, its attention and captures to r.
    virtual void layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const = 0;
    // The embeddings x (t, D) of `ids` as components into o.record: by default one, "token embedding".
    virtual void embed_parts(const std::vector<int>& ids, const MatrixF& x, const ForwardOptions& o) const;
};

} // namespace core::model::layers
