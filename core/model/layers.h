// core/model/layers.h — the pieces every architecture's forward shares: projections, the heads
// over the KV cache, ablations, captures, cancel and progress. Internal to core/model/arch_*.cpp.
#pragma once

#include "core/model/forward.h"
#include "core/model/ops.h"
#include "core/model/weights.h"

#include <string>
#include <vector>

namespace core::model::layers {

using Tensor = Weights::Tensor;

// How a weight matrix is stored: GPT-2's Conv1D keeps (in, out), nn.Linear keeps (out, in).
enum class Layout { in_out, out_in };

// y (t, out) = x (t, in) · W (+ b) (+ y when accumulate), the product shared between the cores.
void project(const float* x, int t, int in, int out, const Tensor& W, Layout layout, const Tensor* b, float* y,
             bool accumulate = false);

ops::Activation activation_of(const std::string& name);

// An empty cache gets one (empty) slot per layer and rows of kv_heads · d_head.
void prepare_cache(KvCache& cache, const ModelConfig& c);

// Appends t rows of k and v (each row `row` floats, row strides ldk and ldv) to layer l's cache.
void append_kv(KvCache& cache, int l, const float* k, int ldk, const float* v, int ldv, int t);

struct HeadsArgs {
    const float* q;  // (t_new, heads · d_head) row stride ldq
    int ldq;
    int layer, heads, kv_heads, d_head;
    bool causal;
    int window;      // 0: every visible key
    float scale;
};

// Every head of one layer over the cache (which already holds this call's keys): writes `context`
// (t_new, heads · d_head) and, where asked, the layer's attention and captures into `r`. A cache
// that is not kept loses the layer's rows afterwards.
void attend_heads(const HeadsArgs& a, KvCache& cache, const ForwardOptions& o, ForwardResult& r, float* context);

// Sets each ablated head of `layer` in context (copies · t, heads · d_head) to zero or its mean over
// its copy's rows.
void ablate(float* context, int t, int heads, int d_head, int layer, const ForwardOptions& o);

// The copies a forward runs: 1, or o.copies.size(). Throws InputError when copies come with a cache
// that is kept or holds positions, attention or captures.
int copies_of(const ForwardOptions& o, const KvCache& cache);
// x (copies · t, d): the first t rows (copy 0's embeddings) repeated into the other copies.
void repeat_rows(MatrixF& x, int t);

// Truncates the cache back to `past` positions unless commit() was called (a cancelled or failed
// forward leaves the cache as it found it).
struct CacheRollback {
    KvCache& cache;
    int past;
    bool committed = false;
    void commit(int length) { cache.length = length; committed = true; }
    ~CacheRollback();
};

// Sizes r (attention, captures) for a call of t_new positions after `past`.
void start_result(ForwardResult& r, const ModelConfig& c, const ForwardOptions& o, int past, int t_new);

// The first layer to run: 0, or o.resume_layer with each copy's t rows of x (copies · t, D) set to
// *o.resume_from (which must be (t, D), with no cached positions before it). Throws InputError
// otherwise.
int first_layer(const ForwardOptions& o, MatrixF& x, int t, int past, int layers);
// Before layer l runs: x (t, D) into o.residuals[l], where asked.
void keep_residual(const ForwardOptions& o, int l, int layers, const MatrixF& x);

// Before each layer: throws Cancelled when asked to stop.
void check_cancel(const ForwardOptions& o);
void report(const ForwardOptions& o, int layers_done, int layers);

std::string layer_name(const std::string& prefix, int l, const std::string& rest);

} // namespace core::model::layers
