// core/model/config.h — a Hugging Face config.json as the sizes and constants a forward pass needs.
//
// Field names and defaults are those of transformers' configuration classes (GPT2Config,
// LlamaConfig, MistralConfig, Qwen2Config, Gemma2Config, Gemma3TextConfig, BertConfig); the `architectures` field picks the row of
// core/model/arch/table.h, whose read_config reads the fields its architecture has. What only one
// architecture reads lives in its own file under core/model/arch/, as a struct of OwnFields.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace core::model {

// rope_scaling of a rotary config: none, "linear" (positions divided by factor), "llama3" (low
// frequencies divided by factor, high ones kept, a smooth blend between) or "longrope" (Phi-3: each
// frequency divided by its short factor, cos and sin times attention_factor) or "rope_freqs" (a GGUF
// file's rope_freqs tensor: each frequency divided by its factor, in short_factor) or "yarn" (YaRN:
// frequencies past the correction range beta_fast … beta_slow divided by factor, those before kept,
// a linear ramp between; cos and sin times attention_factor).
struct RopeScaling {
    std::string type; // "", "linear", "llama3", "longrope" or "rope_freqs"
    double factor = 1.0;
    double low_freq_factor = 1.0;
    double high_freq_factor = 4.0;
    double original_max_position_embeddings = 8192.0;
    std::vector<double> short_factor; // longrope, rope_freqs: rotary_dim / 2 entries
    double attention_factor = 1.0;    // longrope, yarn
    double beta_fast = 32.0, beta_slow = 1.0; // yarn: the correction range, in rotations over the original context
    bool truncate = true;             // yarn: the correction range rounded to whole dims (gpt-oss: false)
};

// The fields one architecture reads beyond what every architecture has (as transformers gives each
// model its configuration class): a struct its file under core/model/arch/ derives from this, filled
// by its read_config and read by its own model and score scale alone. A kind of layer that some
// architectures have keeps its fields the same way, derived virtually so that an architecture with
// several kinds derives from each: a mixture's (feed_forward::MixtureFields,
// core/model/arch/feed_forward.h), linear attention's (LinearAttentionFields,
// core/model/attention_kind.h).
struct OwnFields {
    virtual ~OwnFields() = default;
};

struct ModelConfig {
    std::string architecture; // e.g. "GPT2LMHeadModel"
    std::string name;         // for messages: the model's directory or file
    bool lm_head = true;      // logits over the vocabulary; false for a bare BertModel (hidden states)
    bool causal = true;       // false for BERT
    int vocab = 0;
    int d_model = 0;          // n_embd / hidden_size
    int layers = 0;
    int heads = 0;
    int kv_heads = 0;         // = heads unless grouped-query attention
    int d_head = 0;           // d_model / heads unless head_dim is given
    int rotary_dim = 0;       // the leading dims of each head that rotary positions turn (0: none)
    int d_ff = 0;             // the MLP's inner width
    int context = 0;          // n_positions / max_position_embeddings
    double norm_eps = 1e-5;
    std::string activation;   // gelu_new, gelu, relu, silu, gelu_pytorch_tanh, quick_gelu …
    bool mlp = true;          // false only for attnviz's attention-only trained models
    // Read from a GGUF file, whose converter changed two layouts: GPT-2's projections stored (out, in)
    // as nn.Linear keeps them (not Conv1D's (in, out)); Gemma's norm weights stored as 1 + w.
    bool linear_projections = false;
    bool norms_plus_one = false;
    // Rotary positions
    double rope_theta = 10000.0;
    RopeScaling rope_scaling;
    bool tie_word_embeddings = false; // the LM head is the token embeddings
    // The decoder layer's biases (arch/decoder.h, and Gemma's)
    bool attention_bias = false; // q, k, v (and o for Llama) projections have biases
    bool o_bias = false;
    bool mlp_bias = false;
    // Each layer's kind of attention, as Model::attention_kind gives it to the forward and the views
    std::vector<int> sliding_window; // per layer (one entry each), 0 = full attention (Mistral, Qwen2 with use_sliding_window)
    std::vector<bool> no_rope;       // per layer, true: no rotary positions there (SmolLM3); empty: RoPE on every layer
    bool vision_tower_skipped = false; // a multimodal directory whose text model alone is run (Qwen3.5's)
    // Special ids where config.json names them, else -1.
    int bos_token_id = -1;
    int eos_token_id = -1;
    std::vector<int> eos_token_ids; // every id listed (Llama 3 lists several); generating stops at any
    bool is_eos(int id) const;

    // The architecture's own fields (null: its configuration class's defaults, as for attnviz's own
    // trained GPT-2), which own_as gives as the architecture's struct.
    std::shared_ptr<const OwnFields> own;
    template <class Fields> const Fields& own_as() const {
        static const Fields defaults;
        if (!own) return defaults;
        const auto* f = dynamic_cast<const Fields*>(own.get());
        if (!f) throw std::logic_error(name + ": the configuration's own fields are another architecture's");
        return *f;
    }
    // The fields of `Fields`, a kind's, where the architecture has them; else null.
    template <class Fields> const Fields* own_if() const { return dynamic_cast<const Fields*>(own.get()); }
    // A fresh struct of the architecture's own fields, set as `own`, for its reader to fill.
    template <class Fields> Fields& make_own() {
        auto f = std::make_shared<Fields>();
        own = f;
        return *f;
    }
};

// Throws core::io::FileError "PATH: …", one line naming the field (or, for an unknown
// architecture, naming it and the supported ones).
ModelConfig parse_config(const std::string& text, const std::string& path);
ModelConfig read_config(const std::string& path);

} // namespace core::model
