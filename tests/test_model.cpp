// Real checkpoints in core/model: config.json and shard-index errors, the KV cache against a full
// forward, captures, ablations, cancelling, progress, the Hugging Face cache layout, attnviz's own
// trained models through the same interface. The numbers against a NumPy reference are in
// tests/model_numpy_test.py.
#include "core/io/attention_file.h"
#include "core/model/decode_steps.h"
#include "core/model/format/checkpoint.h"
#include "core/model/arch/feed_forward.h"
#include "core/model/attention_kind.h"
#include "core/model/config.h"
#include "core/model/format/weights.h"
#include "core/train/model_file.h"
#include "core/train/trainer.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"
#include "tests/train_fixtures.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using core::model::ForwardOptions;
using core::model::ForwardResult;

using fixtures::checkpoints;

std::string config_error(const std::string& text) {
    try {
        core::model::parse_config(text, "m/config.json");
    } catch (const core::io::FileError& e) {
        return e.what();
    }
    return "";
}

using fixtures::max_diff;

} // namespace

TEST_CASE("model config: transformers' fields and defaults, one line per error") {
    const auto gpt2 = core::model::parse_config(R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 64, "n_head": 4, "n_layer": 3})", "c");
    CHECK(gpt2.d_head == 16);
    CHECK(gpt2.vocab == 50257);
    CHECK(gpt2.context == 1024);
    CHECK(gpt2.d_ff == 256);
    CHECK(gpt2.activation == "gelu_new");
    const auto llama = core::model::parse_config(
        R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 100, "hidden_size": 64, "intermediate_size": 96,
            "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 16,
            "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
                             "original_max_position_embeddings": 8192}, "eos_token_id": [7, 9]})", "c");
    CHECK(llama.kv_heads == 2);
    CHECK(llama.d_head == 16);
    CHECK(llama.rope_scaling.type == "llama3");
    CHECK(llama.eos_token_id == 7);
    CHECK(!llama.tie_word_embeddings);
    const auto bert = core::model::parse_config(R"({"architectures": ["BertModel"]})", "c");
    CHECK(!bert.causal);
    CHECK(!bert.lm_head);
    CHECK(bert.norm_eps == doctest::Approx(1e-12));

    const std::string unknown = config_error(R"({"architectures": ["MambaForCausalLM"]})");
    CHECK(unknown.find("m/config.json") == 0);
    CHECK(unknown.find("MambaForCausalLM") != std::string::npos);
    CHECK(unknown.find("Qwen2ForCausalLM") != std::string::npos);
    CHECK(config_error("{").find("m/config.json: not valid JSON") == 0);
    CHECK(config_error(R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 10, "n_head": 4})").find("n_embd") != std::string::npos);
    CHECK(config_error(R"({"architectures": ["GPT2LMHeadModel"], "n_layer": -1})").find("\"n_layer\"") != std::string::npos);
    CHECK(config_error(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 9, "hidden_size": 8, "intermediate_size": 8,
                           "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 3})")
              .find("num_key_value_heads") != std::string::npos);
    CHECK(config_error(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 9, "hidden_size": 8, "intermediate_size": 8,
                           "num_hidden_layers": 1, "num_attention_heads": 2, "rope_scaling": {"rope_type": "dynamic", "factor": 4}})")
              .find("dynamic") != std::string::npos);
    CHECK(config_error(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 9, "hidden_size": 8, "intermediate_size": 8,
                           "num_hidden_layers": 1, "num_attention_heads": 2, "rope_scaling": {"rope_type": "yarn"}})")
              .find("factor") != std::string::npos);
    CHECK(config_error(R"({"architectures": ["GPT2LMHeadModel"], "activation_function": "mish"})").find("mish") != std::string::npos);
    CHECK(config_error(R"({"architectures": ["BertModel"], "position_embedding_type": "relative_key"})").find("relative_key") != std::string::npos);
    // The file's own names come quoted with their control characters escaped: still one line.
    const std::string newline = config_error(R"({"architectures": ["Qw\n3ForCausalLM"]})");
    CHECK(newline.find(R"(m/config.json: architecture "Qw\n3ForCausalLM" is not supported)") == 0);
    const char* const named[][2] = {
        {R"({"architectures": ["GPT2LMHeadModel"], "activation_function": "mi\nsh"})", R"("mi\nsh")"},
        {R"({"architectures": ["BertModel"], "position_embedding_type": "rel\rative"})", R"("rel\rative")"},
        {R"({"architectures": ["BertModel"], "position_embedding_type": "rel\u0001ative"})", R"("rel\x01ative")"},
        {R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 9, "hidden_size": 8, "intermediate_size": 8, "num_hidden_layers": 1,
             "num_attention_heads": 2, "rope_scaling": {"rope_type": "ya\nrn", "factor": 4}})", R"("ya\nrn")"}};
    for (const auto& [text, shown] : named) {
        const std::string e = config_error(text);
        CHECK(e.find(shown) != std::string::npos);
        CHECK(e.find_first_of("\n\r") == std::string::npos);
    }
}

TEST_CASE("model config: Qwen3's and Phi-3's fields and defaults") {
    const auto qwen3 = core::model::parse_config(
        R"({"architectures": ["Qwen3ForCausalLM"], "hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 8,
            "num_hidden_layers": 4, "use_sliding_window": false, "sliding_window": null, "max_window_layers": 2})", "c");
    CHECK(qwen3.d_head == 128); // Qwen3Config's head_dim, not hidden / heads
    CHECK(qwen3.vocab == 151936);
    CHECK(!qwen3.attention_bias);
    CHECK(qwen3.sliding_window == std::vector<int>(4, 0));
    const auto sliding = core::model::parse_config(
        R"({"architectures": ["Qwen3ForCausalLM"], "num_key_value_heads": 32, "num_hidden_layers": 4, "use_sliding_window": true,
            "sliding_window": 64, "max_window_layers": 2})", "c");
    CHECK(sliding.sliding_window == std::vector<int>{0, 0, 64, 64});
    const auto typed = core::model::parse_config(
        R"({"architectures": ["Qwen3ForCausalLM"], "num_key_value_heads": 32, "num_hidden_layers": 3, "use_sliding_window": true,
            "sliding_window": 64, "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]})", "c");
    CHECK(typed.sliding_window == std::vector<int>{64, 0, 64});
    CHECK(config_error(R"({"architectures": ["Qwen3ForCausalLM"], "num_key_value_heads": 32, "num_hidden_layers": 2,
                           "use_sliding_window": true, "layer_types": ["full_attention"]})").find("layer_types") != std::string::npos);

    const auto phi3 = core::model::parse_config(R"({"architectures": ["Phi3ForCausalLM"], "partial_rotary_factor": 0.75, "sliding_window": 2047})", "c");
    CHECK(phi3.d_head == 96);
    CHECK(phi3.rotary_dim == 72);
    CHECK(phi3.kv_heads == 32);
    CHECK(phi3.norm_eps == doctest::Approx(1e-5));
    CHECK(phi3.sliding_window == std::vector<int>(32, 2047));
    CHECK(!phi3.tie_word_embeddings);
    const auto longrope = core::model::parse_config(
        R"({"architectures": ["Phi3ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4, "partial_rotary_factor": 0.5,
            "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
            "rope_scaling": {"type": "longrope", "short_factor": [1, 2, 3, 4], "long_factor": [5, 6, 7, 8]}})", "c");
    CHECK(longrope.rotary_dim == 8);
    CHECK(longrope.rope_scaling.short_factor == std::vector<double>{1, 2, 3, 4});
    CHECK(longrope.rope_scaling.attention_factor == doctest::Approx(std::sqrt(1 + std::log(32.0) / std::log(4096.0))));
    CHECK(longrope.context == 4096); // the short factors' reach; attnviz does not switch to the long ones
    const std::string short_list = config_error(R"({"architectures": ["Phi3ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
        "rope_scaling": {"type": "longrope", "short_factor": [1, 2], "long_factor": [5, 6]}})");
    CHECK(short_list.find("m/config.json: \"rope_scaling\"") == 0);
    CHECK(short_list.find("8 numbers") != std::string::npos);
    const std::string su = config_error(R"({"architectures": ["Phi3ForCausalLM"], "rope_scaling": {"type": "su", "short_factor": [1], "long_factor": [1]}})");
    CHECK(su.find("m/config.json: \"rope_scaling\" has type \"su\"") == 0);
    CHECK(su.find('\n') == std::string::npos);
    CHECK(config_error(R"({"architectures": ["Phi3ForCausalLM"], "partial_rotary_factor": 0.01})").find("partial_rotary_factor") != std::string::npos);
    for (const char* name : {"Qwen3ForCausalLM", "Phi3ForCausalLM"}) CHECK(config_error(R"({"architectures": ["Mamba"]})").find(name) != std::string::npos);
}

TEST_CASE("model config: Qwen3 MoE's experts, sparse layers and defaults") {
    const auto moe = core::model::parse_config(
        R"({"architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 6, "decoder_sparse_step": 2, "mlp_only_layers": [3],
            "norm_topk_prob": true, "use_sliding_window": false})", "c");
    const auto& mix = moe.own_as<core::model::feed_forward::MixtureFields>(); // the mixture kind's fields
    CHECK(mix.experts == 128); // Qwen3MoeConfig's defaults
    CHECK(mix.experts_per_token == 8);
    CHECK(mix.d_expert == 768);
    CHECK(moe.d_ff == 6144);
    CHECK(moe.d_head == 64); // no head_dim: hidden / heads
    CHECK(mix.renormalise_chosen);
    CHECK(mix.sparse_layers == std::vector<bool>{false, true, false, false, false, true}); // (l + 1) % 2 == 0, not layer 3
    CHECK(moe.sliding_window == std::vector<int>(6, 0));
    const auto windowed = core::model::parse_config(
        R"({"architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 2, "use_sliding_window": true, "sliding_window": 64})", "c");
    CHECK(windowed.sliding_window == std::vector<int>{64, 64});
    CHECK(!windowed.own_as<core::model::feed_forward::MixtureFields>().renormalise_chosen);
    CHECK(config_error(R"({"architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 2, "mlp_only_layers": [2]})").find("mlp_only_layers") !=
          std::string::npos);
    CHECK(config_error(R"({"architectures": ["Qwen3MoeForCausalLM"], "num_experts": 4, "num_experts_per_tok": 5})").find("num_experts_per_tok") !=
          std::string::npos);
    CHECK(config_error(R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_act": "gelu"})").find("hidden_act") != std::string::npos);
}

TEST_CASE("model config: a kind's fields belong to the architectures that have the kind, not to every configuration") {
    using core::model::LinearAttentionFields;
    using core::model::feed_forward::MixtureFields;
    const auto next = core::model::parse_config(R"({"architectures": ["Qwen3NextForCausalLM"], "num_hidden_layers": 4, "num_experts": 8,
        "num_experts_per_tok": 2, "decoder_sparse_step": 1, "linear_num_key_heads": 2, "linear_num_value_heads": 4})", "c");
    REQUIRE(next.own_if<MixtureFields>() != nullptr); // both kinds, in the hybrid's one struct
    REQUIRE(next.own_if<LinearAttentionFields>() != nullptr);
    CHECK(next.own_if<MixtureFields>()->experts == 8);
    CHECK(next.own_if<MixtureFields>()->sparse(3));
    CHECK(next.own_if<LinearAttentionFields>()->layers == std::vector<bool>{true, true, true, false}); // every fourth full
    CHECK(next.own_if<LinearAttentionFields>()->v_heads == 4);
    const auto dense = core::model::parse_config(R"({"architectures": ["Qwen3_5ForCausalLM"], "num_hidden_layers": 4})", "c");
    CHECK(dense.own_if<MixtureFields>()->experts == 0); // Qwen3.5's dense model: no mixture, linear layers all the same
    CHECK(!dense.own_if<MixtureFields>()->sparse(0));
    CHECK(dense.own_if<LinearAttentionFields>()->linear(0));
    const auto small_gpt2 = core::model::parse_config(R"({"architectures": ["GPT2LMHeadModel"], "vocab_size": 64})", "c"); // its own fields, no kind's
    CHECK(small_gpt2.own_if<MixtureFields>() == nullptr);
    CHECK(small_gpt2.own_if<LinearAttentionFields>() == nullptr);
    CHECK_THROWS_AS(small_gpt2.own_as<MixtureFields>(), std::logic_error);
    const auto llama = core::model::parse_config(
        R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 32})", "c");
    CHECK(llama.own_if<MixtureFields>() == nullptr);
    CHECK(llama.own_as<MixtureFields>().experts == 0); // no own fields: the kind's defaults
}

TEST_CASE("model config: gpt-oss's windows, experts and defaults") {
    const auto oss = core::model::parse_config(R"({"architectures": ["GptOssForCausalLM"], "num_hidden_layers": 4, "num_local_experts": 32,
        "experts_per_token": 4, "rope_theta": 150000, "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
        "beta_slow": 1.0, "truncate": false, "original_max_position_embeddings": 4096}})", "c");
    const auto& mix = oss.own_as<core::model::feed_forward::MixtureFields>();
    CHECK(mix.experts == 32);
    CHECK(mix.experts_per_token == 4); // experts_per_token, where num_experts_per_tok is absent
    CHECK(mix.d_expert == 2880);       // GptOssConfig's intermediate_size
    CHECK(oss.d_head == 64);
    CHECK(oss.kv_heads == 8);
    CHECK(mix.swiglu_limit == 7.0);
    CHECK(oss.attention_bias);
    CHECK(oss.o_bias);
    CHECK(!oss.tie_word_embeddings);
    CHECK(mix.sparse_layers == std::vector<bool>(4, true));
    CHECK(oss.sliding_window == std::vector<int>{128, 0, 128, 0}); // sliding from the first layer, every other
    CHECK(oss.rope_scaling.type == "yarn");
    CHECK(!oss.rope_scaling.truncate);
    const auto bare = core::model::parse_config(R"({"architectures": ["GptOssForCausalLM"], "attention_bias": false})", "c");
    CHECK(bare.rope_theta == 150000.0);        // GptOssConfig's defaults where config.json is silent
    CHECK(bare.rope_scaling.type == "yarn");
    CHECK(bare.rope_scaling.factor == 32.0);
    CHECK(bare.rope_scaling.original_max_position_embeddings == 4096.0);
    CHECK(!bare.rope_scaling.truncate);
    CHECK(bare.attention_bias); // GptOssConfig sets it, whatever the file says
    CHECK(bare.own_as<core::model::feed_forward::MixtureFields>().experts == 128);
    CHECK(bare.own_as<core::model::feed_forward::MixtureFields>().experts_per_token == 4);
    const auto typed = core::model::parse_config(
        R"({"architectures": ["GptOssForCausalLM"], "num_hidden_layers": 2, "sliding_window": 4, "num_experts_per_tok": 2, "experts_per_token": 3,
            "layer_types": ["full_attention", "sliding_attention"]})", "c");
    CHECK(typed.sliding_window == std::vector<int>{0, 4});
    CHECK(typed.own_as<core::model::feed_forward::MixtureFields>().experts_per_token == 2);
    const std::string short_types =
        config_error(R"({"architectures": ["GptOssForCausalLM"], "num_hidden_layers": 3, "layer_types": ["full_attention"]})");
    CHECK(short_types.find("layer_types") != std::string::npos);
    CHECK(short_types.find('\n') == std::string::npos);
    CHECK(config_error(R"({"architectures": ["GptOssForCausalLM"], "num_local_experts": 4, "num_experts_per_tok": 5})").find("num_experts_per_tok") !=
          std::string::npos);
}

TEST_CASE("model forward: a mixture's routing covers every position, a block of mlp_rows at a time, and knocked-out experts weigh 0") {
    NEED_CHECKPOINTS();
    const auto m = core::model::open_model(checkpoints() + "/qwen3_moe");
    std::vector<int> ids(static_cast<std::size_t>(core::model::mlp_rows) + 40);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i * 7 % 200);
    ForwardOptions o;
    o.attention = false;
    o.logits = core::model::Logits::none;
    const ForwardResult r = m.model->forward(ids, o);
    REQUIRE(r.routing.size() == 1); // layer 0 is dense (mlp_only_layers)
    const core::model::LayerRouting& long_run = r.routing[0];
    CHECK(long_run.layer == 1);
    CHECK(long_run.probabilities.rows() == static_cast<Eigen::Index>(ids.size()));
    CHECK(long_run.chosen.size() == ids.size() * 2);
    const ForwardResult last = m.model->forward(std::vector<int>(ids.begin(), ids.begin() + 8), o);
    CHECK(max_diff(last.routing[0].probabilities.data(), long_run.probabilities.data(), 8 * 8) < 1e-5); // causal: the first 8 as alone
    o.ablate_experts = {{1, long_run.chosen[0]}};
    const ForwardResult knocked = m.model->forward(std::vector<int>(ids.begin(), ids.begin() + 8), o);
    CHECK(knocked.routing[0].weights(0, 0) == 0.0f);
    CHECK(knocked.routing[0].weights(0, 1) == last.routing[0].weights(0, 1)); // the other keeps its weight
    CHECK(max_diff(knocked.hidden.data(), last.hidden.data(), static_cast<std::size_t>(knocked.hidden.size())) > 1e-3);
}

TEST_CASE("model shard index: file names in the same directory only") {
    const auto files = core::model::parse_shard_index(R"({"metadata": {}, "weight_map": {"a": "x.safetensors", "b": "y.safetensors"}})", "i.json");
    CHECK(files.at("b") == "y.safetensors");
    for (const char* bad : {R"({"weight_map": {"a": "../x.safetensors"}})", R"({"weight_map": {"a": "/etc/passwd"}})",
                            R"({"weight_map": {"a": 3}})", R"({"weight_map": {}})", R"([1])", R"({"metadata": {}})"}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH_AS(core::model::parse_shard_index(bad, "i.json"), doctest::Contains("i.json: "), core::io::FileError);
    }
    // The file's own names, quoted and escaped: one line.
    CHECK_THROWS_WITH_AS(core::model::parse_shard_index(R"({"weight_map": {"a\nb": 3}})", "i.json"),
                         R"(i.json: weight_map "a\nb" is not a file name)", core::io::FileError);
    CHECK_THROWS_WITH_AS(core::model::parse_shard_index(R"({"weight_map": {"a": "x/\ty"}})", "i.json"),
                         R"(i.json: weight_map names "x/\ty", not a file name in the same directory)", core::io::FileError);
}

TEST_CASE("model forward: the KV cache, one token at a time, equals the full forward") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa", "qwen2", "mistral", "qwen3", "qwen3_sliding", "phi3", "qwen3_moe", "gpt_oss"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(checkpoints() + "/" + name);
        const std::vector<int> ids = {5, 9, 2, 7, 7, 3};
        const ForwardResult full = m.model->forward(ids);
        core::model::KvCache cache;
        ForwardResult step = m.model->extend(cache, {ids[0], ids[1]}, {});
        for (std::size_t i = 2; i < ids.size(); ++i) {
            step = m.model->extend(cache, {ids[i]}, {});
            const int t = static_cast<int>(i) + 1;
            CHECK(step.t_total == t);
            CHECK(max_diff(step.logits.data(), full.logits.data() + static_cast<std::ptrdiff_t>(i) * full.logits.cols(),
                           static_cast<std::size_t>(full.logits.cols())) < 1e-4);
            for (int l = 0; l < full.layers; ++l)
                for (int h = 0; h < full.heads; ++h) {
                    const core::model::MatrixF A = full.maps.head(l, h);
                    CHECK(max_diff(step.maps.head(l, h).data(), A.data() + static_cast<std::ptrdiff_t>(i) * full.t_total, static_cast<std::size_t>(t)) < 1e-5);
                }
        }
        CHECK(cache.length == 6);
        CHECK(cache.bytes() == 2u * static_cast<std::size_t>(m.model->config().layers) * static_cast<std::size_t>(m.model->config().kv_heads *
                                   m.model->config().d_head) * 6u * 4u);
    }
}

TEST_CASE("model forward: captures reproduce each head's weights — ablations change only what follows") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa", "bert"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(checkpoints() + "/" + name);
        const auto& c = m.model->config();
        const std::vector<int> ids = {4, 1, 6, 2, 8};
        ForwardOptions o;
        o.capture_qkv = true;
        const ForwardResult r = m.model->forward(ids, o);
        REQUIRE(r.captures.size() == static_cast<std::size_t>(c.layers * c.heads));
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                const auto& cap = r.captures[static_cast<std::size_t>(l * c.heads + h)];
                core::model::MatrixF s = cap.q * cap.k.transpose() / std::sqrt(static_cast<float>(c.d_head)); // (t, t)
                for (int i = 0; i < s.rows(); ++i) {
                    const int visible = c.causal ? i + 1 : static_cast<int>(s.cols());
                    const float top = s.row(i).head(visible).maxCoeff();
                    double sum = 0;
                    for (int j = 0; j < visible; ++j) sum += std::exp(static_cast<double>(s(i, j) - top));
                    for (int j = 0; j < visible; ++j)
                        CHECK(std::abs(std::exp(static_cast<double>(s(i, j) - top)) / sum - r.maps.head(l, h)(i, j)) < 1e-5);
                }
            }
        // Zeroing a head of the last layer leaves every attention map as it was and moves the output.
        ForwardOptions ab;
        ab.ablate = {{c.layers - 1, 1}};
        const ForwardResult z = m.model->forward(ids, ab);
        CHECK(max_diff(z.maps.all().data(), r.maps.all().data(), r.maps.all().size()) < 1e-6);
        const core::model::MatrixF& before = c.lm_head ? r.logits : r.hidden;
        const core::model::MatrixF& after = c.lm_head ? z.logits : z.hidden;
        CHECK((before - after).cwiseAbs().maxCoeff() > 1e-3);
        ab.ablation = core::model::Ablation::mean;
        const ForwardResult mean = m.model->forward(ids, ab);
        CHECK(((c.lm_head ? mean.logits : mean.hidden) - after).cwiseAbs().maxCoeff() > 1e-4);
    }
}

TEST_CASE("model forward: cancelled between layers from another flag, progress after each layer") {
    NEED_CHECKPOINTS();
    const auto m = core::model::open_model(checkpoints() + "/llama_gqa");
    std::vector<int> seen;
    std::atomic<bool> stop{false};
    ForwardOptions o;
    o.cancel = &stop;
    o.progress = [&](int done, int total) {
        seen.push_back(done);
        CHECK(total == 2);
        stop = true; // as the UI's thread would, after the first layer
    };
    core::model::KvCache cache;
    CHECK_THROWS_AS(m.model->extend(cache, {1, 2, 3}, o), core::model::Cancelled);
    CHECK(seen == std::vector<int>{1});
    CHECK(cache.length == 0);
    for (const auto& k : cache.k) CHECK(k.empty()); // the half-run layer's keys were taken back
    stop = false;
    seen.clear();
    o.progress = [&](int done, int) { seen.push_back(done); };
    m.model->extend(cache, {1, 2, 3}, o);
    CHECK(seen == std::vector<int>{1, 2});
    CHECK(cache.length == 3);
}

TEST_CASE("model checkpoint: a Hugging Face cache snapshot of symbolic links, and the cache listing") {
    NEED_CHECKPOINTS();
    const std::string hub = fixtures::temp_dir() + "/hub";
    const fs::path entry = fs::path(hub) / "models--tiny--gpt2";
    const std::string revision = "0123456789abcdef0123456789abcdef01234567";
    fs::create_directories(entry / "blobs");
    fs::create_directories(entry / "snapshots" / revision);
    fs::create_directories(entry / "refs");
    std::ofstream(entry / "refs" / "main") << revision;
    std::uint64_t bytes = 0;
    for (const char* file : {"config.json", "model.safetensors", "tokenizer.json"}) {
        const fs::path blob = entry / "blobs" / (std::string("blob-") + file);
        fs::copy_file(fs::path(checkpoints()) / "gpt2" / file, blob);
        bytes += fs::file_size(blob);
        fs::create_symlink(fs::path("../../blobs") / blob.filename(), entry / "snapshots" / revision / file);
    }
    fs::create_directories(fs::path(hub) / "models--broken--one" / "snapshots" / "abc");
    const auto listed = core::model::list_cached_models(hub);
    REQUIRE(listed.size() == 2);
    CHECK(listed[0].name == "broken/one");
    CHECK(!listed[0].complete);
    CHECK(listed[1].name == "tiny/gpt2");
    CHECK(listed[1].revision == revision);
    CHECK(listed[1].bytes == bytes);
    CHECK(listed[1].complete);
    for (const std::string& path : {listed[1].snapshot, entry.string()}) {
        const auto m = core::model::open_model(path);
        CHECK(m.name == "tiny/gpt2");
        CHECK(m.model->config().architecture == "GPT2LMHeadModel");
    }
    const auto direct = core::model::open_model(checkpoints() + "/gpt2");
    const std::vector<int> ids = {3, 4};
    CHECK(max_diff(core::model::open_model(entry.string()).model->forward(ids).logits.data(), direct.model->forward(ids).logits.data(),
                   static_cast<std::size_t>(direct.model->config().vocab * 2)) == 0.0);
    CHECK(core::model::list_cached_models(hub + "/missing").empty());
    setenv("HF_HUB_CACHE", hub.c_str(), 1);
    CHECK(core::model::hub_cache_dir() == hub);
    unsetenv("HF_HUB_CACHE");
    setenv("HF_HOME", "/x/hf", 1);
    CHECK(core::model::hub_cache_dir() == "/x/hf/hub");
    unsetenv("HF_HOME");
}

TEST_CASE("model checkpoint: attnviz's own trained model through the same forward") {
    core::train::TrainConfig tc;
    tc.model = train_fixtures::model_of(2, 2, 8, 8, 7);
    tc.model.mlp = true;
    tc.steps = 5;
    core::train::Trainer trainer(tc);
    for (int i = 0; i < tc.steps; ++i) trainer.step();
    const std::string path = fixtures::temp_dir() + "/m.safetensors";
    core::train::save_model(path, {trainer.model(), tc.task, tc.init, tc.seed, trainer.steps_done()});
    const std::vector<int> ids = {3, 1, 4, 1, 5};
    const Run reference = run({"--forward", path, "--sequence", "3 1 4 1 5"}); // the trainer's own float64 forward
    REQUIRE(reference.code == 0);
    const auto want = nlohmann::json::parse(reference.out);
    const auto m = core::model::open_model(path);
    const ForwardResult r = m.model->forward(ids);
    double d = 0;
    for (int i = 0; i < 5; ++i)
        for (int v = 0; v < 7; ++v) d = std::max(d, std::abs(r.logits(i, v) - want["logits"][i][v].get<double>()));
    CHECK(d < 1e-4);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 5; ++i)
                for (int j = 0; j < 5; ++j) CHECK(std::abs(r.maps.head(l, h)(i, j) - want["attention"][l][h][i][j].get<double>()) < 1e-5);
    const Run generated = run({"--generate", path, "--sequence", "3 1 4", "--tokens", "3"});
    CHECK(generated.code == 0);
    CHECK(nlohmann::json::parse(generated.out)["ids"].size() == 3);
}

TEST_CASE("model command line: the export opens in the attention viewer — usage errors are one line") {
    NEED_CHECKPOINTS();
    const std::string out = fixtures::temp_dir() + "/att.safetensors";
    const Run r = run({"--export-attention", checkpoints() + "/qwen2", "--sequence", "4 8 15 16", "--out", out});
    REQUIRE(r.code == 0);
    const auto f = core::io::AttentionFile::open(out);
    CHECK(f->layers() == 2);
    CHECK(f->heads() == 4);
    CHECK(f->n() == 4);
    CHECK(f->labels().size() == 4);
    CHECK(f->at(1, 2, 0, 0) == doctest::Approx(1.0));
    const Run bench = run({"--bench-model", checkpoints() + "/gpt2", "--tokens", "8", "--reps", "2"});
    REQUIRE(bench.code == 0);
    const auto b = nlohmann::json::parse(bench.out);
    CHECK(b["tokens"] == 8);
    CHECK(b["median_ms"].get<double>() > 0);
    CHECK(b["rss_mb"].get<double>() > 0);
    CHECK(b["step_ms"].get<double>() > 0); // a decoding step after the 8 ids
    // A hybrid's linear layers continue from their kept state: the step is timed too.
    const Run hybrid = run({"--bench-model", checkpoints() + "/qwen3_5", "--tokens", "8", "--reps", "1"});
    REQUIRE(hybrid.code == 0);
    const auto h = nlohmann::json::parse(hybrid.out);
    CHECK(h["forward_ms"].get<double>() > 0);
    CHECK(h["step_ms"].get<double>() > 0);
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"--forward", checkpoints() + "/gpt2"},
             {"--forward", checkpoints() + "/gpt2", "--sequence", "1", "--text", "a"},
             {"--generate", checkpoints() + "/gpt2", "--sequence", "1"},
             {"--forward", checkpoints() + "/gpt2", "--sequence", "1 x"},
             {"--forward", checkpoints() + "/gpt2", "--sequence", "99999999"},
             {"--bench-model", checkpoints() + "/gpt2", "--tokens", "33"},
             {"--export-attention", checkpoints() + "/gpt2", "--sequence", "1"},
             {"--forward", "/nonexistent/model", "--sequence", "1"}}) {
        const Run bad = run(args);
        CAPTURE(bad.err);
        CHECK(bad.code == 2);
        CHECK(bad.out.empty());
        CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    }
}

namespace {

// The largest difference of two runs' rows, over the largest value of `want`: r_got's row `row_got` of
// logits (or of head (l, h)'s map) against r_want's last row.
double last_row_error(const Eigen::Ref<const core::heads::MatrixF>& got, const Eigen::Ref<const core::heads::MatrixF>& want) {
    const Eigen::RowVectorXf a = got.row(got.rows() - 1), b = want.row(want.rows() - 1);
    return (a - b).cwiseAbs().maxCoeff() / std::max(b.cwiseAbs().maxCoeff(), 1e-30f);
}

} // namespace

TEST_CASE("hybrid models continue a cached sequence: each step's logits and maps are a whole forward's last row, a cancelled step changes nothing") {
    NEED_CHECKPOINTS();
    std::vector<int> ids;
    for (int i = 0; i < 70; ++i) ids.push_back((i * 37 + 11) % 250); // a prompt past one chunk of 64, then steps
    for (const char* name : {"qwen3_5", "qwen3_next"}) {
        CAPTURE(name);
        const core::model::OpenedModel m = core::model::open_model(checkpoints() + "/" + name);
        const core::model::Model& model = *m.model;
        core::model::KvCache cache;
        ForwardOptions o;
        ForwardResult r = model.extend(cache, std::vector<int>(ids.begin(), ids.begin() + 66), o);
        for (int i = 66; i < 70; ++i) {
            CAPTURE(i);
            if (i == 68) { // a step cancelled after its first two layers (two linear ones) leaves the cache as it was
                std::atomic<bool> cancel{false};
                ForwardOptions cancelled = o;
                cancelled.cancel = &cancel;
                cancelled.progress = [&](int done, int) { cancel = done >= 2; };
                CHECK_THROWS_AS(model.extend(cache, {ids[static_cast<std::size_t>(i)]}, cancelled), core::model::Cancelled);
                CHECK(cache.length == i);
            }
            r = model.extend(cache, {ids[static_cast<std::size_t>(i)]}, o);
            const ForwardResult whole = model.forward(std::vector<int>(ids.begin(), ids.begin() + i + 1), o);
            CHECK(last_row_error(r.logits, whole.logits) < 1e-4);
            for (int l = 0; l < model.config().layers; ++l)
                for (int h = 0; h < model.config().heads; ++h) {
                    CAPTURE(l);
                    CAPTURE(h);
                    CHECK(last_row_error(r.maps.head(l, h), whole.maps.head(l, h)) < 1e-4);
                }
        }
    }
}

TEST_CASE("a hybrid's cache from runs without maps keeps no q and k of its linear layers: a run with maps on it is refused in one line") {
    NEED_CHECKPOINTS();
    const core::model::OpenedModel m = core::model::open_model(checkpoints() + "/qwen3_5");
    std::vector<int> ids;
    for (int i = 0; i < 20; ++i) ids.push_back((i * 37 + 11) % 250);
    ForwardOptions plain;
    plain.attention = false;
    core::model::KvCache cache;
    m.model->extend(cache, ids, plain);
    CHECK(cache.linear[0].q.empty());              // no maps: no q and k kept
    CHECK(cache.linear[0].beta.size() == 20 * 4); // β for each position of the 4 value heads
    m.model->extend(cache, {5}, plain);            // a step without maps continues
    CHECK(cache.length == 21);
    try {
        m.model->extend(cache, {6}, ForwardOptions{});
        FAIL("a run with maps on a cache without q and k ran");
    } catch (const core::model::InputError& e) {
        CHECK(std::string(e.what()).find("kept no q and k of linear layer 1") != std::string::npos);
    }
    CHECK(cache.length == 21); // the refused run changed nothing
}

TEST_CASE("the window's decoding steps on a hybrid: the tokens greedy generation gives, each linear head's newest row a whole forward's") {
    NEED_CHECKPOINTS();
    const core::model::OpenedModel m = core::model::open_model(checkpoints() + "/qwen3_5");
    const std::vector<int> prompt = {5, 9, 2, 7, 7, 3};
    core::model::Stepper stepper;
    stepper.start(*m.model, prompt);
    for (int i = 0; i < 3; ++i) stepper.step(*m.model);
    CHECK(stepper.generated() == core::model::generate_greedy(*m.model, prompt, 3));
    const ForwardResult whole = m.model->forward(stepper.ids());
    for (int h = 0; h < m.model->config().heads; ++h) { // layer 1 is linear
        const std::vector<float> row = stepper.newest_row({1, h});
        const core::heads::MatrixF want = whole.maps.head(1, h);
        REQUIRE(row.size() == static_cast<std::size_t>(want.cols()));
        CHECK(max_diff(row.data(), want.row(want.rows() - 1).eval().data(), row.size()) < 1e-5);
    }
}
