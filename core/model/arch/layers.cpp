// core/model/arch/layers.cpp — the shared pieces of the forwards.
#include "core/model/arch/layers.h"

#include "core/model/memory.h"
#include "core/model/weight_product.h"

#include "core/io/tensor.h"
#include "core/heads/rollout.h"
#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>

namespace core::model::layers {

namespace {

// y (t, out) += the bias in every row, blocks of rows shared between the cores: on one core beside
// products on two, GPT-2 small's biases took 1.7 ms of its forward at t = 128.
struct BiasRows {
    float* y;
    const float* bias;
    int t, out;
    static constexpr int rows = 16; // a block's
    static void block(void* context, std::ptrdiff_t b) {
        const BiasRows& v = *static_cast<const BiasRows*>(context);
        for (int i = static_cast<int>(b) * rows; i < std::min(v.t, static_cast<int>(b + 1) * rows); ++i) {
            float* row = v.y + static_cast<std::ptrdiff_t>(i) * v.out;
            for (int j = 0; j < v.out; ++j) row[j] += v.bias[j];
        }
    }
};

} // namespace

void project(const float* x, int t, int in, int out, const Tensor& W, Layout layout, const Tensor* b, float* y, bool accumulate) {
    core::model::product({x, in, t, &W, layout, y, out, accumulate});
    if (!b) return;
    BiasRows job{y, b->data(), t, out};
    core::parallel::for_each((t + BiasRows::rows - 1) / BiasRows::rows, &BiasRows::block, &job);
}

ops::Activation activation_of(const std::string& name) {
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return ops::Activation::gelu_tanh;
    if (name == "gelu") return ops::Activation::gelu_erf;
    if (name == "relu") return ops::Activation::relu;
    if (name == "quick_gelu") return ops::Activation::quick_gelu;
    return ops::Activation::silu; // silu, swish (config.cpp admits no other name)
}

void gated_rows(MatrixF& gate, const MatrixF& up, ops::Activation act) { ops::active().gated(gate.data(), up.data(), gate.size(), act); }

void append_kv(KvCache& cache, int l, const float* k, int ldk, const float* v, int ldv, int t) {
    const auto row = static_cast<std::size_t>(cache.row);
    std::vector<float>& K = cache.k[static_cast<std::size_t>(l)];
    std::vector<float>& V = cache.v[static_cast<std::size_t>(l)];
    const std::size_t old = K.size();
    K.resize(old + row * static_cast<std::size_t>(t));
    V.resize(old + row * static_cast<std::size_t>(t));
    for (int i = 0; i < t; ++i) {
        std::copy_n(k + static_cast<std::ptrdiff_t>(i) * ldk, row, K.data() + old + row * static_cast<std::size_t>(i));
        std::copy_n(v + static_cast<std::ptrdiff_t>(i) * ldv, row, V.data() + old + row * static_cast<std::size_t>(i));
    }
}

namespace {

// The mean over the layer's heads for the rollout, summed while each head's weights are at hand
// (rebuilding every map for it afterwards ran Q·Kᵀ and the softmax a second time). Block b's rows
// take head h's weights only after heads 0 … h−1 have added theirs, then divide after the last: the
// sums of core::heads::mean_over_heads in its order, so the same bits. Heads are taken in order
// (core::parallel's shared counter), so a head waits only on heads already running.
struct HeadMean {
    MatrixF sum;                                 // (t, t)
    std::unique_ptr<std::atomic<int>[]> added;   // (blocks) heads added to each block of rows
    int heads;

    HeadMean(int t, int heads_) : sum(t, t), added(new std::atomic<int>[static_cast<std::size_t>((t + AttentionMaps::block - 1) / AttentionMaps::block)]), heads(heads_) {
        for (int b = 0; b * AttentionMaps::block < t; ++b) added[static_cast<std::size_t>(b)].store(0, std::memory_order_relaxed);
    }

    // Head h's weights (rows, t) for rows i0 … i0 + rows − 1.
    void add(int h, int i0, int rows, const float* weights) {
        std::atomic<int>& turn = added[static_cast<std::size_t>(i0 / AttentionMaps::block)];
        while (turn.load(std::memory_order_acquire) != h) std::this_thread::yield();
        const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(sum.cols());
        float* to = sum.data() + static_cast<std::ptrdiff_t>(i0) * sum.cols();
        if (h == 0) std::copy(weights, weights + n, to);
        else
            for (std::size_t k = 0; k < n; ++k) to[k] += weights[k];
        if (h == heads - 1) {
            const float count = static_cast<float>(heads);
            for (std::size_t k = 0; k < n; ++k) to[k] /= count;
        }
        turn.store(h + 1, std::memory_order_release);
    }
};

struct HeadsJob {
    const HeadsArgs* a;
    const KvCache* cache;
    const ForwardOptions* o;
    ForwardResult* r;
    float* context;
    HeadMean* mean; // the rollout's, or null
};

// Head h's q, and the k and v of its key/value head, as its attention used them.
void capture(const HeadsArgs& a, const KvCache& cache, int h, int t_new, int keys, HeadCapture& c) {
    const std::size_t l = static_cast<std::size_t>(a.layer);
    const int row = cache.row, group = h / (a.heads / a.kv_heads);
    c.q.resize(t_new, a.d_head);
    c.k.resize(keys, a.d_head);
    c.v.resize(keys, a.d_head);
    for (int i = 0; i < t_new; ++i)
        std::copy_n(a.q + static_cast<std::ptrdiff_t>(i) * a.ldq + h * a.d_head, a.d_head, c.q.data() + static_cast<std::ptrdiff_t>(i) * a.d_head);
    for (int i = 0; i < keys; ++i) {
        const std::size_t at_row = static_cast<std::size_t>(i) * static_cast<std::size_t>(row) + static_cast<std::size_t>(group * a.d_head);
        std::copy_n(cache.k[l].data() + at_row, a.d_head, c.k.data() + static_cast<std::ptrdiff_t>(i) * a.d_head);
        std::copy_n(cache.v[l].data() + at_row, a.d_head, c.v.data() + static_cast<std::ptrdiff_t>(i) * a.d_head);
    }
}

// Task `task` = copy · heads + h: head h of one copy (its rows of q, the cache and the context), in
// blocks of AttentionMaps::block queries, each one call of the kernel, which AttentionMaps::rows
// repeats to rebuild the block's weights.
void one_head(void* context, std::ptrdiff_t task) {
    const HeadsJob& j = *static_cast<const HeadsJob*>(context);
    const HeadsArgs& a = *j.a;
    const int t_new = j.r->t_new, keys = j.r->t_total, block = AttentionMaps::block;
    const int h = static_cast<int>(task % a.heads), copy = static_cast<int>(task / a.heads);
    const int group = h / (a.heads / a.kv_heads);
    const std::size_t l = static_cast<std::size_t>(a.layer);
    float* dense = j.r->maps.dense() ? j.r->maps.dense_head(a.layer, h) : nullptr; // (t_new, t_total)
    thread_local std::vector<float> scratch; // (block, t_total) when the maps are not written out
    if (!dense) scratch.resize(static_cast<std::size_t>(block) * static_cast<std::size_t>(keys));
    const int row = j.cache->row;
    const std::ptrdiff_t width = static_cast<std::ptrdiff_t>(a.heads) * a.d_head, first = static_cast<std::ptrdiff_t>(copy) * t_new;
    const float* k = j.cache->k[l].data() + first * row + group * a.d_head;
    const float* v = j.cache->v[l].data() + first * row + group * a.d_head;
    float* entropy = j.o->attention ? j.r->entropy.data() + (l * static_cast<std::size_t>(a.heads) + static_cast<std::size_t>(h)) * static_cast<std::size_t>(t_new)
                                    : nullptr;
    std::optional<core::heads::ScoreRows> score;
    if (j.o->scores) score.emplace(*j.o->scores);
    const float* sink = a.sinks ? a.sinks + h : nullptr;
    float* share = sink && j.o->attention ? j.r->sink_share.data() + (l * static_cast<std::size_t>(a.heads) + static_cast<std::size_t>(h)) * static_cast<std::size_t>(t_new)
                                          : nullptr;
    const std::size_t side = static_cast<std::size_t>(j.r->thumbnail_side);
    float* thumbnail = side ? j.r->thumbnails.data() + (l * static_cast<std::size_t>(a.heads) + static_cast<std::size_t>(h)) * side * side : nullptr;
    for (int i0 = 0; i0 < t_new; i0 += block) {
        const std::ptrdiff_t at = first + i0;
        ops::Attend att{a.q + at * a.ldq + h * a.d_head, a.ldq, k, v, row,
                        std::min(block, t_new - i0), keys, a.d_head, keys - t_new + i0, a.causal, a.window, a.scale,
                        dense ? dense + static_cast<std::ptrdiff_t>(i0) * keys : scratch.data(), j.context + at * width + h * a.d_head, width,
                        entropy ? entropy + i0 : nullptr, a.softcap, sink, share ? share + i0 : nullptr};
        ops::active().attend(att);
        const float* weights = att.weights;
        if (score) score->add(weights, i0, i0 + static_cast<int>(att.m), keys);
        if (thumbnail) thumbnail_rows(weights, i0, i0 + static_cast<int>(att.m), keys, j.r->thumbnail_side, thumbnail);
        if (j.mean && copy == 0) j.mean->add(h, i0, static_cast<int>(att.m), weights); // the first copy's, as the kept maps hold
    }
    const std::size_t k_head = l * static_cast<std::size_t>(a.heads) + static_cast<std::size_t>(h);
    if (score) j.r->scores[k_head] = score->finish(entropy);
    if (score && share) j.r->scores[k_head].sink = core::heads::mean_share(share, t_new);
    if (thumbnail) thumbnail_finish(thumbnail, j.r->thumbnail_side);
    if (j.o->capture_qkv) capture(a, *j.cache, h, t_new, keys, j.r->captures[l * static_cast<std::size_t>(a.heads) + static_cast<std::size_t>(h)]);
}

// Layer a.layer's queries (t_new, heads · d_head) and keys (t_total, kv_heads · d_head) into the
// maps, the keys taken from a cache that drops them anyway.
void keep_layer(const HeadsArgs& a, KvCache& cache, ForwardResult& r) {
    AttentionMaps::Layer kept{{}, {}, a.causal, a.window, a.scale, a.softcap, {}, false, {}, {}, 0, 0, 0, {}, 0, false, nullptr};
    if (a.sinks) kept.sinks.assign(a.sinks, a.sinks + a.heads);
    const std::size_t width = static_cast<std::size_t>(a.heads) * static_cast<std::size_t>(a.d_head);
    kept.q.resize(static_cast<std::size_t>(r.t_new) * width);
    for (int i = 0; i < r.t_new; ++i) std::copy_n(a.q + static_cast<std::ptrdiff_t>(i) * a.ldq, width, kept.q.data() + static_cast<std::size_t>(i) * width);
    std::vector<float>& k = cache.k[static_cast<std::size_t>(a.layer)];
    if (cache.keep) kept.k = k;
    else kept.k.swap(k);
    r.maps.keep_layer(a.layer, std::move(kept));
}

} // namespace

void attend_heads(const HeadsArgs& a, KvCache& cache, const ForwardOptions& o, ForwardResult& r, float* context) {
    // A layer with a learned sink gives each query's share; the first such layer sizes them for all.
    if (a.sinks && o.attention && r.sink_share.empty())
        r.sink_share.assign(static_cast<std::size_t>(r.layers) * static_cast<std::size_t>(r.heads) * static_cast<std::size_t>(r.t_new), 0.0f);
    std::optional<HeadMean> mean;
    if (o.rollout) mean.emplace(r.t_new, a.heads);
    HeadsJob job{&a, &cache, &o, &r, context, mean ? &*mean : nullptr};
    const std::ptrdiff_t copies = o.copies.empty() ? 1 : static_cast<std::ptrdiff_t>(o.copies.size());
    core::parallel::for_each(copies * a.heads, one_head, &job);
    if (o.attention && !r.maps.dense()) keep_layer(a, cache, r);
    if (mean) core::heads::rollout_layer(mean->sum, r.rollout, a.causal, &ops::product);
    if (!cache.keep) {
        std::vector<float>().swap(cache.k[static_cast<std::size_t>(a.layer)]);
        std::vector<float>().swap(cache.v[static_cast<std::size_t>(a.layer)]);
    }
}

namespace {

void ablate_heads(float* context, int t, int heads, int d_head, int layer, const std::vector<HeadRef>& refs, Ablation how) {
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(heads) * d_head;
    for (const HeadRef& ref : refs) {
        if (ref.layer != layer || ref.head < 0 || ref.head >= heads) continue;
        for (int c = ref.head * d_head; c < (ref.head + 1) * d_head; ++c) {
            double mean = 0.0;
            if (how == Ablation::mean && t > 0) {
                for (int i = 0; i < t; ++i) mean += context[i * row + c];
                mean /= t;
            }
            for (int i = 0; i < t; ++i) context[i * row + c] = static_cast<float>(mean);
        }
    }
}

// The heads `refs` of `layer` in context (t, heads · d_head) take o.patch_from's values at the rows
// o.patch_rows marks.
void patch_heads(float* context, int t, int heads, int d_head, int layer, const std::vector<HeadRef>& refs, const ForwardOptions& o) {
    const MatrixF& from = (*o.patch_from)[static_cast<std::size_t>(layer)]; // (t, heads · d_head)
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(heads) * d_head;
    for (const HeadRef& ref : refs) {
        if (ref.layer != layer || ref.head < 0 || ref.head >= heads) continue;
        for (int i = 0; i < t; ++i)
            if (o.patch_rows.empty() || o.patch_rows[static_cast<std::size_t>(i)])
                std::copy_n(from.data() + i * row + ref.head * d_head, d_head, context + i * row + ref.head * d_head);
    }
}

} // namespace

void ablate(float* context, int t, int heads, int d_head, int layer, const ForwardOptions& o) {
    const std::ptrdiff_t size = static_cast<std::ptrdiff_t>(t) * heads * d_head;
    const std::size_t copies = std::max<std::size_t>(1, o.copies.size());
    for (std::size_t c = 0; c < copies; ++c) {
        float* copy = context + static_cast<std::ptrdiff_t>(c) * size;
        ablate_heads(copy, t, heads, d_head, layer, o.ablate, o.ablation);
        if (o.patch_from) patch_heads(copy, t, heads, d_head, layer, o.patch, o);
        if (o.copies.empty()) continue;
        if (o.patch_from) patch_heads(copy, t, heads, d_head, layer, o.copies[c], o);
        else ablate_heads(copy, t, heads, d_head, layer, o.copies[c], o.ablation);
    }
}

namespace {

// An empty cache gets one (empty) slot per layer and rows of kv_heads · d_head, a hybrid's a linear
// state per layer; a run starts with no pending state.
void prepare_cache(KvCache& cache, const ModelConfig& c) {
    const auto* linear = c.own_if<LinearAttentionFields>();
    const bool hybrid = linear && !linear->layers.empty();
    cache.pending.assign(hybrid ? static_cast<std::size_t>(c.layers) : 0, {});
    if (!cache.k.empty()) return;
    cache.k.resize(static_cast<std::size_t>(c.layers));
    cache.v.resize(cache.k.size());
    if (hybrid) cache.linear.resize(cache.k.size());
    cache.row = c.kv_heads * c.d_head;
}

// The copies a forward runs: 1, or o.copies.size(). Throws InputError when copies come with a cache
// that is kept or holds positions, attention or captures.
int copies_of(const ForwardOptions& o, const KvCache& cache) {
    if (o.copies.empty()) return 1;
    if (cache.keep || cache.length > 0 || o.attention || o.capture_qkv)
        throw InputError("copies of a sequence run in a one-shot forward without attention or captures");
    return static_cast<int>(o.copies.size());
}

// x (copies · t, d): the first t rows (copy 0's embeddings) repeated into the other copies.
void repeat_rows(MatrixF& x, int t) {
    for (Eigen::Index c = 1; c * t < x.rows(); ++c) x.middleRows(c * t, t) = x.topRows(t);
}

// The first layer to run: 0, or o.resume_layer with x (copies · t, D) set to *o.resume_from, which
// must be (t, D) (then repeated into each copy) or x's shape, with no cached positions before it.
// Throws InputError otherwise.
int first_layer(const ForwardOptions& o, MatrixF& x, int t, int past, int layers) {
    if (!o.resume_from) return 0;
    const Eigen::Index rows = o.resume_from->rows();
    if (o.resume_layer < 0 || o.resume_layer >= layers || past != 0 || (rows != t && rows != x.rows()) || o.resume_from->cols() != x.cols())
        throw InputError("a rerun from layer " + std::to_string(o.resume_layer + 1) + " needs an empty cache and the stream of the same " +
                         std::to_string(t) + " positions");
    x.topRows(rows) = *o.resume_from;
    if (rows == t) repeat_rows(x, t);
    return o.resume_layer;
}

// Throws InputError when a record or a patch does not fit the call (ForwardOptions).
void check_circuit_options(const ForwardOptions& o, const ModelConfig& c, int t, int past) {
    if (o.record && (!o.copies.empty() || past > 0 || o.resume_from))
        throw InputError("the stream's components are recorded in a one-shot forward of one copy from the embeddings");
    if (o.head_outputs && !o.copies.empty()) throw InputError("the heads' outputs are kept for one copy");
    if (o.last_position_only && (o.record || o.logits == Logits::all))
        throw InputError("a forward for the last position alone records no components and makes no logits of the others");
    if (!o.patch_from) return;
    bool fits = o.patch_from->size() == static_cast<std::size_t>(c.layers) && past == 0 &&
                (o.patch_rows.empty() || o.patch_rows.size() == static_cast<std::size_t>(t));
    const auto* linear = c.own_if<LinearAttentionFields>();
    for (std::size_t l = 0; fits && l < o.patch_from->size(); ++l) { // a linear layer's heads are its value heads
        const MatrixF& m = (*o.patch_from)[l];
        const Eigen::Index width = linear && linear->linear(static_cast<int>(l)) ? static_cast<Eigen::Index>(linear->v_heads) * linear->d_v
                                                                                  : static_cast<Eigen::Index>(c.heads) * c.d_head;
        fits = m.size() == 0 || (m.rows() == t && m.cols() == width);
    }
    if (!fits) throw InputError("a patch needs every layer's heads' outputs for the same " + std::to_string(t) + " positions");
}

// Before layer l runs: x (t, D) into o.residuals[l], where asked.
void keep_residual(const ForwardOptions& o, int l, int layers, const MatrixF& x) {
    if (!o.residuals) return;
    o.residuals->resize(static_cast<std::size_t>(layers));
    (*o.residuals)[static_cast<std::size_t>(l)] = x;
}

// Truncates the cache back to `past` positions unless commit() was called (a cancelled or failed
// forward leaves the cache as it found it).
struct CacheRollback {
    KvCache& cache;
    int past;
    bool committed = false;
    void commit(int length);
    ~CacheRollback();
};

// The linear layers' new conv and S become their state, their new positions' q, k, β and g appended,
// and their values where the run kept them (else the values held go: they no longer reach every position).
void CacheRollback::commit(int length) {
    for (std::size_t l = 0; l < cache.pending.size(); ++l) {
        LinearState &p = cache.pending[l], &s = cache.linear[l];
        if (p.S.empty()) continue;
        s.conv.swap(p.conv);
        s.S.swap(p.S);
        std::vector<float>* const from[] = {&p.q, &p.k, &p.beta, &p.g};
        std::vector<float>* const to[] = {&s.q, &s.k, &s.beta, &s.g};
        for (int i = 0; i < 4; ++i) to[i]->insert(to[i]->end(), from[i]->begin(), from[i]->end());
        if (p.v.empty()) s.v.clear();
        else s.v.insert(s.v.end(), p.v.begin(), p.v.end());
    }
    cache.pending.clear();
    cache.length = length;
    committed = true;
}

// Back to `past` positions: the rows appended since dropped, the linear layers' states unchanged.
CacheRollback::~CacheRollback() {
    if (committed) return;
    cache.pending.clear();
    const std::size_t keep = static_cast<std::size_t>(past) * static_cast<std::size_t>(cache.row);
    for (std::size_t l = 0; l < cache.k.size(); ++l) {
        cache.k[l].resize(std::min(keep, cache.k[l].size()));
        cache.v[l].resize(std::min(keep, cache.v[l].size()));
    }
}

// Sizes r's scores and thumbnails where asked; throws InputError when they do not fit the call.
void start_views(ForwardResult& r, const ModelConfig& c, const ForwardOptions& o, int past, int t_new) {
    if (!o.scores && o.thumbnail_side <= 0) return;
    if (!o.attention || past > 0 || o.resume_from || (o.scores && o.scores->t != t_new))
        throw InputError("head scores and thumbnails come from the attention of a whole sequence (an empty cache, no rerun from a layer)");
    const std::size_t heads = static_cast<std::size_t>(c.layers) * static_cast<std::size_t>(c.heads);
    if (o.scores) r.scores.resize(heads);
    r.thumbnail_side = std::max(0, o.thumbnail_side);
    r.thumbnails.assign(heads * static_cast<std::size_t>(r.thumbnail_side) * static_cast<std::size_t>(r.thumbnail_side), 0.0f);
}

// Sizes r (attention, captures) for a call of t_new positions after `past`.
void start_result(ForwardResult& r, const ModelConfig& c, const ForwardOptions& o, int past, int t_new) {
    check_forward_fits(c, o, past, t_new); // before anything is allocated
    r.layers = c.layers;
    r.heads = c.heads;
    r.t_new = t_new;
    r.t_total = past + t_new;
    if (o.rollout && (!o.attention || past > 0 || o.resume_from))
        throw InputError("rollout needs the attention of every layer on the whole sequence (an empty cache, no rerun from a layer)");
    if (o.attention) { // the layers below a rerun hold no attention: 0
        r.maps = AttentionMaps(c.layers, c.heads, c.kv_heads, c.d_head, t_new, r.t_total, o.dense_attention);
        r.entropy.assign(static_cast<std::size_t>(c.layers) * static_cast<std::size_t>(c.heads) * static_cast<std::size_t>(t_new), 0.0f);
    }
    start_views(r, c, o, past, t_new);
    if (o.capture_qkv) r.captures.resize(static_cast<std::size_t>(c.layers) * static_cast<std::size_t>(c.heads));
    if (o.head_outputs) o.head_outputs->assign(static_cast<std::size_t>(c.layers), MatrixF());
}

// Before each layer: throws Cancelled when asked to stop.
void check_cancel(const ForwardOptions& o) {
    if (o.cancel && o.cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

void report(const ForwardOptions& o, int layers_done, int layers) {
    if (o.progress) o.progress(layers_done, layers);
}

} // namespace

Model::Unembedding LayerStack::unembedding() const {
    if (!head_) return {};
    return {head_, head_bias_ ? head_bias_->data() : nullptr, config().d_model, head_softcap_};
}

ForwardResult LayerStack::extend(KvCache& cache, const std::vector<int>& ids, const ForwardOptions& o) const {
    const ModelConfig& c = config();
    const FastScope fast(o.fast_products); // the products below, on this thread
    check_ids(ids, cache.length);
    prepare_cache(cache, c);
    const int t = static_cast<int>(ids.size()), past = cache.length;
    CacheRollback rollback{cache, past};
    ForwardResult r;
    check_circuit_options(o, c, t, past);
    start_result(r, c, o, past, t);
    for (int l = 0; l < c.layers; ++l) r.kinds.push_back(attention_kind(l));
    MatrixF x(t * copies_of(o, cache), c.d_model); // (copies · t, D) the residual stream
    const int first = first_layer(o, x, t, past, c.layers);
    if (!o.resume_from) {
        embed(ids, past, x);
        if (o.record) embed_parts(ids, x, o);
        repeat_rows(x, t);
    }
    for (int l = first; l < c.layers; ++l) {
        check_cancel(o);
        keep_residual(o, l, c.layers, x);
        layer(l, x, cache, o, r);
        release_freed_memory(static_cast<std::uint64_t>(x.size()) * sizeof(float));
        report(o, l + 1, c.layers);
    }
    rollback.commit(past + t);
    apply_final_norm(x);
    r.hidden = std::move(x);
    fill_logits(r, o);
    return r;
}

namespace {

// Each head's write, context (t, H·dh) with only head h's columns through W_o, as "head l.h"; b_o
// as "biases".
void record_heads(const HeadsArgs& a, const ForwardOptions& o, const MatrixF& context, const Tensor& W_o, Layout layout, const Tensor* b_o,
                  int D) {
    const int t = static_cast<int>(context.rows()), width = static_cast<int>(context.cols());
    MatrixF alone(t, width); // (t, H·dh)
    for (int h = 0; h < a.heads; ++h) {
        alone.setZero();
        alone.middleCols(h * a.d_head, a.d_head) = context.middleCols(h * a.d_head, a.d_head);
        MatrixF part(t, D); // (t, D)
        project(alone.data(), t, width, D, W_o, layout, nullptr, part.data());
        record(o, head_part(a.layer, h), std::move(part));
    }
    if (b_o) record_bias(o, b_o->data(), t, D);
}

} // namespace

void heads_into_stream(const HeadsArgs& a, KvCache& cache, const ForwardOptions& o, ForwardResult& r, const Tensor& W_o,
                       Layout layout, const Tensor* b_o, MatrixF& x) {
    const int t = static_cast<int>(x.rows()), width = a.heads * a.d_head;
    MatrixF context(t, width); // (t, H·d_head)
    attend_heads(a, cache, o, r, context.data());
    if (a.gate) {
        const Eigen::Map<const MatrixF> gate(a.gate, t, width); // (t, H·d_head)
        context.array() *= (1.0f + (-gate.array()).exp()).inverse();
    }
    ablate(context.data(), r.t_new, a.heads, a.d_head, a.layer, o);
    if (o.head_outputs) (*o.head_outputs)[static_cast<std::size_t>(a.layer)] = context;
    if (recording(o, a.layer)) record_heads(a, o, context, W_o, layout, b_o, static_cast<int>(x.cols()));
    project(context.data(), t, width, static_cast<int>(x.cols()), W_o, layout, b_o, x.data(), true);
}

std::string layer_name(const std::string& prefix, int l, const std::string& rest) {
    return prefix + std::to_string(l) + "." + rest;
}

void LayerStack::embed_parts(const std::vector<int>& ids, const MatrixF& x, const ForwardOptions& o) const {
    record(o, "token embedding", x.topRows(static_cast<Eigen::Index>(ids.size())));
}

void position_wise(const ForwardOptions& o, int l, int layers, int t, MatrixF& x, const std::function<void(MatrixF&)>& mlp) {
    const bool last_only = o.last_position_only && l == layers - 1 && t > 1;
    if (recording(o, l) || (!last_only && x.rows() <= mlp_rows)) return mlp(x);
    if (last_only) {
        const Eigen::Index copies = x.rows() / t;
        MatrixF last(copies, x.cols()); // (copies, D)
        for (Eigen::Index c = 0; c < copies; ++c) last.row(c) = x.row((c + 1) * t - 1);
        mlp(last);
        for (Eigen::Index c = 0; c < copies; ++c) x.row((c + 1) * t - 1) = last.row(c);
        return;
    }
    for (Eigen::Index r0 = 0; r0 < x.rows(); r0 += mlp_rows) { // a long sequence's activations, a block at a time
        const Eigen::Index n = std::min<Eigen::Index>(mlp_rows, x.rows() - r0);
        MatrixF rows = x.middleRows(r0, n); // (n, D)
        mlp(rows);
        x.middleRows(r0, n) = rows;
    }
}

bool recording(const ForwardOptions& o, int l) { return o.record && l < o.record->upto; }

void record(const ForwardOptions& o, const std::string& name, MatrixF part) {
    o.record->names.push_back(name);
    o.record->parts.push_back(std::move(part));
}

void record_bias(const ForwardOptions& o, const float* b, int t, int d) {
    record(o, "biases", Eigen::Map<const Eigen::RowVectorXf>(b, d).replicate(t, 1));
}

void record_write(const ForwardOptions& o, const std::string& name, const MatrixF& before, const MatrixF& after, const Tensor* b) {
    MatrixF part = after - before; // (t, D)
    if (b) {
        part.rowwise() -= Eigen::Map<const Eigen::RowVectorXf>(b->data(), part.cols());
        record_bias(o, b->data(), static_cast<int>(part.rows()), static_cast<int>(part.cols()));
    }
    record(o, name, std::move(part));
}

void freeze_norm(const ForwardOptions& o, std::size_t first, const MatrixF& x, const float* gain, const float* bias, float eps, bool centre) {
    const Eigen::Index t = x.rows(), d = x.cols();
    const Eigen::Map<const Eigen::RowVectorXf> g(gain, d);
    for (Eigen::Index i = 0; i < t; ++i) {
        const Eigen::RowVectorXd row = x.row(i).cast<double>();
        const double mean = centre ? row.mean() : 0.0;
        const auto scale = static_cast<float>(1.0 / std::sqrt((row.array() - mean).square().mean() + eps));
        for (std::size_t c = first; c < o.record->parts.size(); ++c) {
            auto p = o.record->parts[c].row(i);
            if (centre) p.array() -= p.mean();
            p = p.cwiseProduct(g) * scale;
        }
    }
    if (bias) record_bias(o, bias, static_cast<int>(t), static_cast<int>(d));
}

} // namespace core::model::layers
