// Gemma 2 and Gemma 3 in core/model: the Hub's configs of gemma-2-2b, gemma-3-1b-it and
// gemma-3-4b-it read with Gemma2Config's and Gemma3TextConfig's defaults, and the tiny fixtures'
// KV cache past their sliding windows. Their numbers against a NumPy reference are in
// tests/model_numpy_test.py and tests/probes_numpy_test.py.
#include "core/attention.h"
#include "core/io/tensor.h"
#include "core/model/arch/gemma.h"
#include "core/model/config.h"
#include "core/model/format/checkpoint.h"
#include "core/model/head_scenario.h"
#include "tests/checkpoint_fixtures.h"

#include <doctest/doctest.h>

#include <cmath>

namespace {

// Gemma's own fields of a config (core/model/arch/gemma.h).
const core::model::gemma::Fields& gemma(const core::model::ModelConfig& c) { return c.own_as<core::model::gemma::Fields>(); }

// The layers (from 0) of `c` that attend to every earlier position.
std::vector<int> full_layers(const core::model::ModelConfig& c) {
    std::vector<int> full;
    for (int l = 0; l < c.layers; ++l)
        if (c.sliding_window[static_cast<std::size_t>(l)] == 0) full.push_back(l);
    return full;
}

} // namespace

TEST_CASE("gemma config: google/gemma-2-2b, every other layer sliding from the first, both soft-caps") {
    const auto c = core::model::parse_config(R"({
        "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
        "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 107],
        "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2304, "initializer_range": 0.02, "intermediate_size": 9216,
        "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 8, "num_hidden_layers": 26,
        "num_key_value_heads": 4, "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
        "rope_theta": 10000.0, "sliding_window": 4096, "torch_dtype": "float32", "transformers_version": "4.42.4",
        "use_cache": true, "vocab_size": 256000})", "gemma-2-2b/config.json");
    CHECK(c.d_model == 2304);
    CHECK(c.d_head == 256);
    CHECK(c.heads * c.d_head != c.d_model);
    CHECK(c.kv_heads == 4);
    CHECK(gemma(c).attn_logit_softcapping == 50.0);
    CHECK(gemma(c).final_logit_softcapping == 30.0);
    CHECK(gemma(c).query_pre_attn_scalar == 256.0);
    CHECK(c.tie_word_embeddings);
    CHECK(c.activation == "gelu_pytorch_tanh");
    REQUIRE(c.sliding_window.size() == 26u);
    for (int l = 0; l < 26; ++l) CHECK(c.sliding_window[static_cast<std::size_t>(l)] == (l % 2 == 0 ? 4096 : 0));
    CHECK(c.is_eos(107));
}

TEST_CASE("gemma config: google/gemma-3-1b-it, five local layers to one global, two rotary bases, no soft-cap") {
    const auto c = core::model::parse_config(R"({
        "architectures": ["Gemma3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
        "attn_logit_softcapping": null, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 106],
        "final_logit_softcapping": null, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152,
        "initializer_range": 0.02, "intermediate_size": 6912, "max_position_embeddings": 32768, "model_type": "gemma3_text",
        "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "pad_token_id": 0,
        "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000, "rope_scaling": null,
        "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6, "torch_dtype": "bfloat16",
        "transformers_version": "4.50.0.dev0", "use_cache": true, "vocab_size": 262144})", "gemma-3-1b-it/config.json");
    CHECK(full_layers(c) == std::vector<int>{5, 11, 17, 23});
    CHECK(c.sliding_window[0] == 512);
    CHECK(c.rope_theta == 1e6);
    CHECK(gemma(c).rope_local_base_freq == 1e4);
    CHECK(c.rope_scaling.type.empty());
    CHECK(gemma(c).attn_logit_softcapping == 0.0);
    CHECK(gemma(c).final_logit_softcapping == 0.0);
    CHECK(c.kv_heads == 1);
    CHECK(c.context == 32768);
}

TEST_CASE("gemma config: google/gemma-3-4b-it's text_config gives only what differs from Gemma3TextConfig") {
    const auto c = core::model::parse_config(R"({
        "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999, "eoi_token_index": 256000,
        "eos_token_id": [1, 106], "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
        "model_type": "gemma3",
        "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text", "num_hidden_layers": 34,
                        "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
        "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
        "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304, "model_type": "siglip_vision_model",
                          "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false}})",
                                             "gemma-3-4b-it/config.json");
    CHECK(c.d_model == 2560);
    CHECK(c.layers == 34);
    CHECK(c.heads == 8);
    CHECK(c.kv_heads == 4);
    CHECK(c.d_head == 256);
    CHECK(c.vocab == 262208);
    CHECK(c.context == 131072);
    CHECK(gemma(c).query_pre_attn_scalar == 256.0);
    CHECK(c.rope_scaling.type == "linear");
    CHECK(c.rope_scaling.factor == 8.0);
    CHECK(gemma(c).rope_local_base_freq == 1e4);
    CHECK(full_layers(c) == std::vector<int>{5, 11, 17, 23, 29});
    CHECK(c.sliding_window[33] == 1024);
    CHECK(c.is_eos(106));
}

TEST_CASE("gemma config: layer_types decides, and what is not Gemma's decoder is refused in one line") {
    const std::string base = R"("architectures": ["Gemma3ForCausalLM"], "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 3,
                                "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4)";
    const auto c = core::model::parse_config("{" + base + R"(, "sliding_window": 7,
        "layer_types": ["full_attention", "sliding_attention", "full_attention"]})", "c");
    CHECK(c.sliding_window == std::vector<int>{0, 7, 0});
    auto refusal = [&](const std::string& extra) {
        try {
            core::model::parse_config("{" + base + ", " + extra + "}", "m/config.json");
        } catch (const core::io::FileError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(refusal(R"("layer_types": ["full_attention"])").find("m/config.json: \"layer_types\"") == 0);
    CHECK(refusal(R"("layer_types": ["full_attention", "chunked_attention", "full_attention"])").find("chunked_attention") != std::string::npos);
    CHECK(refusal(R"("use_bidirectional_attention": true)").find("use_bidirectional_attention") != std::string::npos);
    CHECK(refusal(R"("final_logit_softcapping": -1)").find("final_logit_softcapping") != std::string::npos);
    CHECK_THROWS_WITH_AS(core::model::parse_config(R"({"architectures": ["Gemma3ForConditionalGeneration"], "text_config": 3})", "c"),
                         doctest::Contains("\"text_config\""), core::io::FileError);
}

TEST_CASE("gemma forward: one token at a time on the KV cache past the sliding window equals the full forward") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gemma2", "gemma3_text", "gemma3"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        const std::vector<int> ids = {2, 9, 40, 7, 7, 300, 12, 5};
        const auto full = m.model->forward(ids);
        const double cap = m.model->unembedding().softcap;
        if (cap > 0) CHECK(full.logits.cwiseAbs().maxCoeff() < cap);
        core::model::KvCache cache;
        core::model::ForwardResult step;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            step = m.model->extend(cache, {ids[i]}, {});
            for (Eigen::Index v = 0; v < full.logits.cols(); ++v)
                REQUIRE(std::abs(step.logits(0, v) - full.logits(static_cast<Eigen::Index>(i), v)) < 1e-4);
        }
        const core::model::MatrixF A = full.maps.head(0, 0);
        const float* last = A.data() + 7 * full.t_total; // layer 1 slides: 3 keys
        CHECK(last[4] == 0.0f);
        CHECK(last[5] > 0.0f);
    }
}

TEST_CASE("gemma head in the editor: every head opens with the model's window, soft-cap and score scale — A equals the model's to 1e-6") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gemma2", "gemma3_text", "gemma3"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        const auto& c = m.model->config();
        const std::vector<int> ids = {2, 9, 40, 7, 7, 300, 12, 5}; // longer than the window of 3
        const core::model::ForwardResult r = m.model->forward(ids);
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                CAPTURE(l);
                CAPTURE(h);
                const core::Scenario s = core::model::head_scenario(*m.model, ids, {l, h}, std::vector<std::string>(ids.size(), "t"));
                CHECK(s.window == c.sliding_window[static_cast<std::size_t>(l)]);
                CHECK(s.softcap == gemma(c).attn_logit_softcapping); // 50 for Gemma 2; Gemma 3 applies none
                CHECK(s.score_factor() == doctest::Approx(1.0 / std::sqrt(gemma(c).query_pre_attn_scalar)).epsilon(1e-15));
                const core::Result res = core::compute(s);
                const core::model::MatrixF A = r.maps.head(l, h); // (t, t)
                CHECK((res.heads[0].weights - A.cast<double>()).cwiseAbs().maxCoeff() < 1e-6);
            }
    }
}
