// core/model/forward.h — what a model's forward pass takes and what it gives.
//
// Every architecture (GPT-2, the Llama family, BERT, attnviz's own trained models) is a Model:
// token ids in, logits (or hidden states), every head's attention (on demand) and, on request, every head's
// q, k and v out. Layers and heads count from 0 here (the command line counts from 1).
//
// A causal model keeps a KvCache: extend() appends tokens to it and runs only those, so that
// generation costs one row per layer per token. forward() is extend() on an empty cache.
//
// The logits are optional: a (t, vocab) matrix is 196 MiB for GPT-2 at t = 1024, and the window
// needs only each position's top tokens and the prompt's loss, which core/model/next_token.h reads
// from `hidden` one block of the vocabulary at a time (Model::head_logits).
//
// A forward runs on the caller's thread (the UI's worker) and shares its matrix products with
// core::parallel's helpers. It checks `cancel` before each layer and reports each finished layer.
#pragma once

#include "core/heads/head.h"
#include "core/heads/scores.h"
#include "core/model/attention_kind.h"
#include "core/model/attention_maps.h"
#include "core/model/config.h"
#include "core/model/format/weights.h"

#include <Eigen/Core>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace core::model {

using core::heads::MatrixF; // (rows, cols) row-major floats

// A head and how a knocked-out head's output (GPT-2's c_proj input, Llama's o_proj's, BERT's
// attention.output.dense's) becomes: the words core/heads shares with the tiny transformer.
using core::heads::Ablation;
using core::heads::HeadRef;

// The residual stream split into the components that wrote it (core/model/circuits/parts.h reads
// it): a forward given one keeps every write to the stream up to the input of layer `upto` (layers:
// after the last), each norm of the stream on the way frozen at the run's scale, so that Σ parts =
// the stream. A name may repeat ("biases"): the reader sums its parts. One copy, an empty cache, no rerun.
struct StreamRecord {
    int upto = 0;
    std::vector<std::string> names; // (C) "token embedding", "head 1.2" (from 1), "MLP 3", "biases", …
    std::vector<MatrixF> parts;     // (C) × (t, D)
};
// The names of head h of layer l's component and of layer l's MLP's (from 0 here, from 1 in the names).
std::string head_part(int l, int h);
std::string mlp_part(int l);

// An expert of a mixture-of-experts layer (from 0 here, from 1 on the command line).
struct ExpertRef {
    int layer = 0, expert = 0;
    bool operator==(const ExpertRef& o) const { return layer == o.layer && expert == o.expert; }
};

// One mixture-of-experts layer's routing of the positions a forward ran (ForwardResult::routing).
struct LayerRouting {
    int layer = 0;              // from 0
    int experts = 0, top_k = 0;
    MatrixF probabilities;      // (t_new, experts) the router's distribution over every expert
    std::vector<int> chosen;    // (t_new, top_k) row-major: the experts each position runs, from 0, largest weight first
    MatrixF weights;            // (t_new, top_k) each chosen expert's weight on its output; 0 for one knocked out
};

// Which rows of ForwardResult::logits a forward fills.
enum class Logits {
    all,  // every new position (t_new, vocab)
    last, // the last one (1, vocab): generation
    none, // no logits; `hidden` alone (see core/model/next_token.h)
};

// The most rows of the stream an MLP takes at once: a longer sequence's go through it a block at a
// time, so that its (rows, d_ff) activations are never whole (8192 tokens of a 1B model: 512 MB).
constexpr int mlp_rows = 2048;

struct ForwardOptions {
    std::vector<HeadRef> ablate;
    // Experts knocked out: each is dropped from the experts its layer's router chose, the others
    // keeping their weights (docs/models.md, "Experts").
    std::vector<ExpertRef> ablate_experts;
    Ablation ablation = Ablation::zero; // mean: over the positions of this call (the whole sequence for forward())
    bool attention = true;    // fill ForwardResult::maps (and entropy): each layer's queries and keys kept
    bool dense_attention = false; // with attention: every map written as the forward runs (the tests' full forward)
    // With attention on an empty cache, from each map as the forward makes it: every head's scores on
    // `scores`' sequence (the run's ids) into ForwardResult::scores, and its thumbnail_side² thumbnail
    // (attention_maps.h) into ForwardResult::thumbnails.
    const core::heads::ScoreIndex* scores = nullptr;
    int thumbnail_side = 0;
    bool capture_qkv = false; // fill ForwardResult::captures (and keep the linear layers' values, as linear_values)
    // Keep each linear layer's values, from which the State panel works out its state at every
    // position; a kept cache keeps them too, so that a run continuing it has them from position 0.
    bool linear_values = false;
    bool keeps_linear_values() const { return capture_qkv || linear_values; }
    bool rollout = false;     // fill ForwardResult::rollout layer by layer (with attention, on an empty cache)
    Logits logits = Logits::all;
    const std::atomic<bool>* cancel = nullptr;             // set from any thread: the forward throws Cancelled
    std::function<void(int layers_done, int layers)> progress; // called on the forward's thread after each layer
    // Reruns from a layer up (head importance): `residuals`, when given, receives the stream entering
    // each layer, (layers) × (t_new, d_model). With `resume_from` the run starts at layer
    // `resume_layer` from that stream (t_new, d_model) instead of the embeddings, on an empty cache;
    // the layers below then hold no keys, attention or captures.
    std::vector<MatrixF>* residuals = nullptr;
    const MatrixF* resume_from = nullptr;
    int resume_layer = 0;
    // A batch of knock-outs (head importance): when not empty, copies.size() independent copies of
    // the sequence run stacked, copy c ablating the heads copies[c] besides `ablate`, so that each
    // layer's weights are read once for all of them. hidden (and logits) then hold copies · t_new
    // rows, copy-major; resume_from stays (t_new, d_model), the same for every copy. Only for a
    // one-shot forward() without attention or captures.
    std::vector<std::vector<HeadRef>> copies;
    // Activation patching. `head_outputs`, when given, receives each layer's heads' outputs before the
    // output projection (after any ablation), (layers) × (t_new, heads · d_head), for one copy. With
    // `patch_from`, the same from another run at this run's positions, the heads of `patch` in every
    // copy, and the heads of copies[c] in copy c instead of being ablated, take their output from it
    // at the positions where `patch_rows` (t_new) is true (empty: every position). With copies,
    // resume_from may also hold copies · t_new rows, one stream per copy.
    std::vector<MatrixF>* head_outputs = nullptr;
    const std::vector<MatrixF>* patch_from = nullptr;
    std::vector<HeadRef> patch;
    std::vector<bool> patch_rows;
    StreamRecord* record = nullptr; // fill the stream's components (one copy, an empty cache, no rerun)
    // The caller reads only each copy's last row of hidden (patching's logit difference): the last
    // layer's MLP runs on those rows alone, and hidden's other rows are not the model's. No record,
    // no Logits::all.
    bool last_position_only = false;
    // The products with the weights in the fast arithmetic where the CPU and the weight type allow
    // (core/model/fast_product.h: Q8_0 and Q4_0 in int8, 16- and 32-bit weights in bf16), exact everywhere else.
    bool fast_products = false;
};

// One head's vectors, as its attention used them: q after RoPE (Llama family), and the k and v of
// the key/value head it shares under grouped-query attention.
struct HeadCapture {
    MatrixF q; // (t_new, d_head)
    MatrixF k; // (t_total, d_head)
    MatrixF v; // (t_total, d_head)
};

struct ForwardResult {
    int layers = 0, heads = 0;
    int t_new = 0;   // positions run by this call: t_total - t_new … t_total - 1
    int t_total = 0; // positions in the cache afterwards (the keys)
    MatrixF logits;  // (t_new, vocab), (1, vocab) for Logits::last; empty for Logits::none or a bare encoder
    MatrixF hidden;  // (t_new, d_model) the last hidden state (after the final norm where the model has one)
    AttentionMaps maps;                // (layers, heads, t_new, t_total) on demand, 0 where masked (attention_maps.h)
    std::vector<float> entropy;        // (layers, heads, t_new) with the attention: each row's −Σ a ln a, nats
    // (layers, heads, t_new) with the attention, where a layer has a learned sink (AttentionKind):
    // each query's weight on the sink, 1 − the sum of its row of the map (0 in the other layers);
    // empty when no layer has one.
    std::vector<float> sink_share;
    std::vector<AttentionKind> kinds;  // (layers) each layer's attention kind (Model::attention_kind)
    MatrixF rollout;                   // (t_new, t_total) where asked: core/heads/rollout.h's rollout of the maps
    std::vector<HeadCapture> captures; // (layers · heads), index layer · heads + head
    std::vector<core::heads::HeadScores> scores; // (layers · heads) where asked (ForwardOptions::scores)
    std::vector<float> thumbnails;     // (layers · heads, side, side) where asked (ForwardOptions::thumbnail_side)
    int thumbnail_side = 0;
    // Each mixture-of-experts layer's routing, in layer order, for a forward of one copy that runs
    // every position (no ForwardOptions::copies, no last_position_only); a rerun from a layer has
    // only the layers it ran.
    std::vector<LayerRouting> routing;
};

// A linear layer's (Gated DeltaNet's) place in a sequence: what the next position continues from,
// and what the rows of its matrices M are rebuilt from.
struct LinearState {
    std::vector<float> conv;  // (kernel − 1, 2·Hk·dk + Hv·dv) the convolution's last inputs (zeros before the first)
    std::vector<float> S;     // (Hv, d_k, d_v) each value head's state after the last position
    std::vector<float> q, k;  // (length, Hk·dk) every position's, as the rule read them
    std::vector<float> beta, g; // (length, Hv)
    // (length, Hv·dv) every position's values, from runs that keep them (ForwardOptions::linear_values);
    // empty once a run kept none, since a state from position 0 needs every one.
    std::vector<float> v;
    std::size_t bytes() const { return (conv.size() + S.size() + q.size() + k.size() + beta.size() + g.size() + v.size()) * sizeof(float); }
};

// Keys and values of every layer for the positions run so far (after RoPE for the Llama family);
// a linear layer's state in their place.
struct KvCache {
    int length = 0;                   // positions held
    int row = 0;                      // kv_heads · d_head
    std::vector<std::vector<float>> k; // per layer (length, kv_heads · d_head) row-major
    std::vector<std::vector<float>> v; // per layer, the same
    std::vector<LinearState> linear;   // per layer; held by the linear layers only
    // A run's new conv and S per layer, made the state only when the whole run succeeds.
    std::vector<LinearState> pending;
    bool keep = true;                  // false: each layer's rows are dropped once its heads ran (forward())
    // 2 · L · H_kv · d_head · length · 4 bytes (float32), and the linear layers' states.
    std::size_t bytes() const {
        std::size_t n = 2 * k.size() * static_cast<std::size_t>(row) * static_cast<std::size_t>(length) * sizeof(float);
        for (const LinearState& s : linear) n += s.bytes();
        return n;
    }
};

struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("the forward pass was cancelled") {}
};

// Ids or a length the model cannot take ("… has 1030 tokens; gpt2 takes at most 1024").
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct LayerAttention; // core/model/attention_weights.h

class Model {
public:
    explicit Model(ModelConfig config) : config_(std::move(config)) {}
    virtual ~Model() = default;
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    const ModelConfig& config() const { return config_; }
    // The name messages give the model: what the user called it (an Ollama NAME:TAG, not its blob's path).
    void name_as(std::string name) { config_.name = std::move(name); }
    bool causal() const { return config_.causal; }

    // Runs `ids` as positions cache.length … and appends their keys and values to `cache`.
    // A bidirectional model (BERT) takes an empty cache only. Throws InputError for an id outside the
    // vocabulary or a total past the context, Cancelled when `cancel` is set.
    virtual ForwardResult extend(KvCache& cache, const std::vector<int>& ids, const ForwardOptions& options) const = 0;

    ForwardResult forward(const std::vector<int>& ids, const ForwardOptions& options = {}) const {
        KvCache cache;
        cache.keep = false; // nothing extends it: each layer's keys and values go as soon as they are used
        return extend(cache, ids, options);
    }

    // Checks ids against the vocabulary and the context (after `past` cached positions).
    void check_ids(const std::vector<int>& ids, int past) const;

    // [SECTION] the LM head, on rows of ForwardResult::hidden
    // logits = head_input(hidden) · weightᵀ + bias, weight (vocab, width) in its stored type.
    struct Unembedding {
        const Weights::Tensor* weight = nullptr; // (vocab, width); null for a bare encoder
        const float* bias = nullptr;   // (vocab) or null
        int width = 0;
        float softcap = 0.0f;          // the logits soft-capped, cap · tanh(logit / cap) (Gemma's); 0: none
    };
    virtual Unembedding unembedding() const { return {}; }
    // What the head multiplies, (rows, width): `hidden` itself, or BERT's MLM transform of it.
    virtual MatrixF head_input(const MatrixF& hidden) const { return hidden; }
    // The vocabulary's columns in blocks of head_block: every product of the head, full or streamed,
    // is one block's, so that both give the same bits.
    static constexpr int head_block = 2048;
    // out (rows, v1 − v0), row stride ldo = the logits of ids v0 … v1−1 for `rows` rows of `input`
    // (a head_input), on the calling thread. v0 is a multiple of head_block and v1 − v0 ≤ head_block.
    // `fast`: the fast products (ForwardOptions::fast_products).
    void head_logits(const float* input, int rows, int v0, int v1, float* out, std::ptrdiff_t ldo, bool fast = false) const;
    // r.logits from r.hidden as o.logits asks (all blocks shared between the cores).
    void fill_logits(ForwardResult& r, const ForwardOptions& o) const;
    // Whether head_input is the identity, so that the logits are linear in the final norm's output
    // (not BERT's MLM transform).
    virtual bool linear_head() const { return true; }

    // [SECTION] the final norm, between the stream after the last layer and `hidden`
    // LayerNorm (centre) or RMSNorm, y = (x − mean) / √(var + eps) · gain + bias, or x / √(mean(x²) + eps) · gain;
    // no gain: the model has none (BERT, whose layers end in their own norm).
    struct FinalNorm {
        bool centre = false;
        const float* gain = nullptr; // (D) γ, or Gemma's 1 + w
        const float* bias = nullptr; // (D) β, or null
        float eps = 0.0f;
    };
    virtual FinalNorm final_norm() const { return {}; }
    // x (rows, D) in place through final_norm(), as the forward does after the last layer.
    void apply_final_norm(MatrixF& x) const;

    // Layer `layer`'s kind of attention: by default its window of config().sliding_window and
    // rotary positions unless config().no_rope says not; an architecture with learned sinks adds them.
    virtual AttentionKind attention_kind(int layer) const;
    // How many experts layer `layer`'s feed-forward routes among: 0 for a dense one, as by default
    // (a decoder asks its feed-forward kind, core/model/arch/feed_forward.h).
    virtual int experts(int /*layer*/) const { return 0; }

    // Layer `layer`'s attention weights, head by head, as the circuits read them (each
    // architecture's own, in arch/).
    virtual LayerAttention attention_weights(int layer) const = 0;

private:
    ModelConfig config_;
};

// Greedy decoding: `count` new ids after `prompt`, each the argmax of the last logits (lowest id
// on a tie), one extend() of one token per step on the cache that the prompt filled. Stops early
// at the context's end, and after an end-of-text id (config().is_eos, kept as the last id, as
// transformers' generate does). `cache` (optional) is left holding all the ids but the last.
std::vector<int> generate_greedy(const Model& model, const std::vector<int>& prompt, int count,
                                 const ForwardOptions& options = {}, KvCache* cache = nullptr);

// The index of the largest of n values (the first on a tie).
int argmax(const float* values, int n);

} // namespace core::model
