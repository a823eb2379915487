// A real model's head in the editor, greedy decoding one step at a time on its KV cache, and two
// prompts compared head by head, on the fixture checkpoints. The comparison is checked against a
// NumPy reference written below; the forwards themselves against NumPy in tests/model_numpy_test.py.
#include "core/attention.h"
#include "core/model/format/checkpoint.h"
#include "core/model/decode_steps.h"
#include "core/model/head_scenario.h"
#include "core/model/prompt_compare.h"
#include "core/model/tokenizer/tokenizer.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"
#include "tests/python.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

using core::model::ForwardOptions;
using core::model::ForwardResult;
using core::model::HeadRef;
using fixtures::checkpoints;

std::vector<std::string> labels(const std::string& dir, const std::vector<int>& ids) {
    const core::model::Tokenizer tok = core::model::load_tokenizer(dir);
    std::vector<std::string> out;
    for (int id : ids) out.push_back(tok.token_display(id));
    return out;
}

// The largest |A − the forward's weights| of head (l, h) over its (t, t) map.
double weights_gap(const core::Scenario& s, const ForwardResult& r, int l, int h) {
    const core::Result res = core::compute(s);
    const core::model::MatrixF A = r.maps.head(l, h); // (t, t)
    return (res.heads[0].weights - A.cast<double>()).cwiseAbs().maxCoeff();
}

// Greedy decoding by a full forward at each step: `count` ids after `ids`, fewer at the context's
// end or after any id of `eos` (kept, as transformers' generate keeps it).
std::vector<int> greedy_recomputed(const core::model::Model& model, std::vector<int> ids, int count, const std::vector<int>& eos,
                                   const ForwardOptions& o = {}) {
    std::vector<int> made;
    while (static_cast<int>(made.size()) < count && static_cast<int>(ids.size()) < model.config().context) {
        const ForwardResult r = model.forward(ids, o);
        const int V = static_cast<int>(r.logits.cols());
        const float* last = r.logits.data() + static_cast<std::ptrdiff_t>(r.t_new - 1) * V;
        made.push_back(static_cast<int>(std::max_element(last, last + V) - last));
        ids.push_back(made.back());
        if (std::find(eos.begin(), eos.end(), made.back()) != eos.end()) break;
    }
    return made;
}

// The index ≥ 1 of the first id of `path` not earlier in it (so that it ends the path there), or -1.
int first_new(const std::vector<int>& path) {
    for (std::size_t k = 1; k < path.size(); ++k)
        if (std::find(path.begin(), path.begin() + static_cast<long>(k), path[k]) == path.begin() + static_cast<long>(k)) return static_cast<int>(k);
    return -1;
}

} // namespace

TEST_CASE("real head in the editor: A equals the model's for every head of GPT-2, Llama (RoPE, GQA), Qwen2, BERT, Qwen3 and Phi-3") {
    NEED_CHECKPOINTS();
    const std::vector<int> eight = {4, 9, 6, 2, 8, 9, 6, 3};
    // Qwen3 (q_norm, k_norm, heads wider than hidden / heads), Phi-3 (fused, partial rotary) and
    // Phi-4-mini (longrope); eight tokens are more than the sliding Qwen3's and Phi-3's windows (3 and 4).
    for (const auto& run : std::vector<std::pair<std::string, std::vector<int>>>{
             {"gpt2", eight}, {"llama_gqa", eight}, {"qwen2", eight}, {"bert", eight}, {"qwen3", eight},
             {"qwen3_sliding", eight}, {"phi3", eight}, {"phi4_mini", {4, 9, 6, 2, 8, 9}}}) {
        const std::string& name = run.first; // a structured binding cannot be captured in C++17 (CAPTURE)
        const std::vector<int>& ids = run.second;
        CAPTURE(name);
        const std::string dir = checkpoints() + "/" + name;
        const auto m = core::model::open_model(dir);
        const auto& c = m.model->config();
        const ForwardResult r = m.model->forward(ids);
        const int last = static_cast<int>(ids.size()) - 1;
        double largest_change = 0.0;
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                CAPTURE(l);
                CAPTURE(h);
                const core::Scenario s = core::model::head_scenario(*m.model, ids, {l, h}, labels(dir, ids));
                CHECK(s.direct);
                CHECK(s.causal == c.causal);
                CHECK(s.scale == core::ScoreScale::inv_sqrt_d_k);
                CHECK(s.n() == last + 1);
                CHECK(s.d_k() == c.d_head);
                CHECK(s.tokens == labels(dir, ids));
                CHECK(weights_gap(s, r, l, h) < 1e-6);
                // The map is not uniform, so the comparison means something.
                const core::Result res = core::compute(s);
                largest_change = std::max(largest_change, (res.heads[0].weights.row(last).array() - res.heads[0].weights.row(last).mean()).abs().maxCoeff());
            }
        CHECK(largest_change > 0.05);
    }
    CHECK(core::model::open_model(checkpoints() + "/qwen3").model->config().d_head == 8); // with hidden 16 and 4 heads
}

TEST_CASE("real head in the editor: GQA heads of one group share K and V — RoPE is in Q and K") {
    NEED_CHECKPOINTS();
    const std::string dir = checkpoints() + "/llama_gqa"; // 4 query heads, 2 key/value heads
    const auto m = core::model::open_model(dir);
    const std::vector<int> ids = {4, 9, 6, 2, 8};
    const std::vector<std::string> names(5, "x");
    const core::Scenario h0 = core::model::head_scenario(*m.model, ids, {1, 0}, names);
    const core::Scenario h1 = core::model::head_scenario(*m.model, ids, {1, 1}, names);
    const core::Scenario h2 = core::model::head_scenario(*m.model, ids, {1, 2}, names);
    CHECK(h0.heads[0].K == h1.heads[0].K);
    CHECK(h0.heads[0].V == h1.heads[0].V);
    CHECK((h0.heads[0].K - h2.heads[0].K).cwiseAbs().maxCoeff() > 1e-3);
    CHECK((h0.heads[0].Q - h1.heads[0].Q).cwiseAbs().maxCoeff() > 1e-3);
    // The same token at another position has another key: the rotation depends on the position.
    const core::Scenario again = core::model::head_scenario(*m.model, {4, 4}, {0, 0}, {"a", "a"});
    CHECK((again.heads[0].K.row(0) - again.heads[0].K.row(1)).norm() > 1e-3);
    CHECK(again.heads[0].K.row(0).norm() == doctest::Approx(again.heads[0].K.row(1).norm()).epsilon(1e-5)); // a rotation keeps the norm
}

TEST_CASE("real head in the editor: GPT-2's inverse-layer scaling is the scenario's score factor, Q stays the model's q") {
    NEED_CHECKPOINTS();
    namespace fs = std::filesystem;
    const std::string dir = fixtures::temp_dir() + "/gpt2_inverse";
    fs::copy(checkpoints() + "/gpt2", dir);
    nlohmann::json config = nlohmann::json::parse(fixtures::read(dir + "/config.json"));
    config["scale_attn_by_inverse_layer_idx"] = true;
    std::ofstream(dir + "/config.json") << config.dump();
    const auto m = core::model::open_model(dir);
    const std::vector<int> ids = {4, 9, 6, 2, 8};
    ForwardOptions o;
    o.capture_qkv = true;
    const ForwardResult r = m.model->forward(ids, o);
    const core::Scenario s = core::model::head_scenario(*m.model, ids, {1, 1}, std::vector<std::string>(5, "t"));
    CHECK(weights_gap(s, r, 1, 1) < 1e-6);
    CHECK(s.scale == core::ScoreScale::custom);
    CHECK(s.scale_factor == doctest::Approx(1.0 / (std::sqrt(static_cast<double>(s.d_k())) * 2.0)).epsilon(1e-15));
    const auto& q = r.captures[static_cast<std::size_t>(1 * r.heads + 1)].q; // (t, d_head)
    CHECK((s.heads[0].Q - q.cast<double>()).cwiseAbs().maxCoeff() == 0.0);
    const ForwardResult plain = core::model::open_model(checkpoints() + "/gpt2").model->forward(ids);
    CHECK(std::abs(plain.maps.head(1, 1)(4, 0) - r.maps.head(1, 1)(4, 0)) > 1e-4); // the setting matters

    const auto gpt2 = core::model::open_model(checkpoints() + "/gpt2");
    CHECK_THROWS_WITH_AS(core::model::head_scenario(*gpt2.model, {1, 2}, {2, 0}, {"a", "b"}), doctest::Contains("layer 3 head 1 is not in"),
                         core::model::InputError);
    CHECK_THROWS_AS(core::model::head_scenario(*gpt2.model, {1, 2}, {0, 0}, {"a"}), core::model::InputError);
    CHECK_THROWS_AS(core::model::head_scenario(gpt2.model->config(), gpt2.model->forward({1, 2}), {0, 0}, {"a", "b"}), core::model::InputError);
}

TEST_CASE("real head in the editor: Mistral's sliding window of 3 on 9 tokens, every head, A equals the model's to 1e-6") {
    NEED_CHECKPOINTS();
    const std::string dir = checkpoints() + "/mistral";
    const auto m = core::model::open_model(dir);
    const auto& c = m.model->config();
    const std::vector<int> ids = {5, 9, 2, 7, 4, 9, 6, 3, 8};
    const ForwardResult r = m.model->forward(ids);
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
            CAPTURE(l);
            CAPTURE(h);
            const core::Scenario s = core::model::head_scenario(*m.model, ids, {l, h}, labels(dir, ids));
            CHECK(s.window == 3);
            CHECK(s.causal);
            CHECK(weights_gap(s, r, l, h) < 1e-6);
            // Without the window the editor's map is another one: the window is what makes it equal.
            core::Scenario full = s;
            full.window = 0;
            CHECK(weights_gap(full, r, l, h) > 1e-3);
        }
}

TEST_CASE("decode steps: one token per step equals attnviz --generate, each new row the full recompute's last") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa", "qwen2", "qwen3_sliding", "phi3"}) {
        CAPTURE(name);
        const std::string dir = checkpoints() + "/" + name;
        const auto m = core::model::open_model(dir);
        const auto& c = m.model->config();
        const std::vector<int> prompt = {5, 9, 2, 7};
        core::model::Stepper st;
        st.start(*m.model, prompt);
        CHECK(st.cache().length == 4);
        for (int k = 1; k <= 6; ++k) {
            const int id = st.step(*m.model);
            CHECK(st.ids().back() == id);
            CHECK(st.cache().length == 4 + k);
            const ForwardResult full = m.model->forward(st.ids());
            const int t = full.t_total;
            for (int l = 0; l < c.layers; ++l)
                for (int h = 0; h < c.heads; ++h) {
                    const std::vector<float> row = st.newest_row({l, h});
                    REQUIRE(static_cast<int>(row.size()) == t);
                    double gap = 0.0;
                    const core::model::MatrixF A = full.maps.head(l, h);
                    for (int j = 0; j < t; ++j) gap = std::max(gap, std::abs(static_cast<double>(row[j]) - A(t - 1, j)));
                    CHECK(gap < 4e-6); // float32: a step's one-row products sum in another order than the full forward's
                }
            const core::model::CacheSize size = core::model::cache_size(c, st.cache());
            CHECK(size.bytes() == st.cache().bytes());
            CHECK(size.bytes() == 2u * static_cast<std::size_t>(c.layers * c.kv_heads * c.d_head) * static_cast<std::size_t>(4 + k) * 4u);
            CHECK(size.bytes_without_gqa() * static_cast<std::size_t>(c.kv_heads) == size.bytes() * static_cast<std::size_t>(c.heads));
        }
        const Run cli = run({"--generate", dir, "--sequence", ids_text(prompt), "--tokens", "6"});
        REQUIRE(cli.code == 0);
        CHECK(nlohmann::json::parse(cli.out)["ids"].get<std::vector<int>>() == st.generated());
        if (name == "llama_gqa") CHECK(core::model::cache_size(c, st.cache()).bytes_without_gqa() == 2 * st.cache().bytes());
    }
}

TEST_CASE("decode steps: the context's end, models that do not generate, knock-outs") {
    NEED_CHECKPOINTS();
    const auto gpt2 = core::model::open_model(checkpoints() + "/gpt2"); // a context of 32
    core::model::Stepper st;
    CHECK_THROWS_WITH_AS(st.step(*gpt2.model), doctest::Contains("prompt first"), core::model::InputError);
    st.start(*gpt2.model, std::vector<int>(30, 3));
    st.step(*gpt2.model);
    CHECK(st.can_step(*gpt2.model));
    st.step(*gpt2.model);
    CHECK(!st.can_step(*gpt2.model));
    CHECK_THROWS_WITH_AS(st.step(*gpt2.model), doctest::Contains("at most 32 tokens"), core::model::InputError);
    CHECK(st.ids().size() == 32u);

    const auto bert = core::model::open_model(checkpoints() + "/bert");
    CHECK_THROWS_WITH_AS(st.start(*bert.model, {2, 5, 3}), doctest::Contains("does not generate"), core::model::InputError);
    CHECK_THROWS_AS(st.start(*gpt2.model, {}), core::model::InputError);
    ForwardOptions mean;
    mean.ablate = {{0, 1}};
    mean.ablation = core::model::Ablation::mean;
    CHECK_THROWS_WITH_AS(st.start(*gpt2.model, {1, 2}, mean), doctest::Contains("to zero"), core::model::InputError);
    CHECK(st.ids().size() == 32u); // a refused start leaves the decoding as it was

    ForwardOptions zero = mean;
    zero.ablation = core::model::Ablation::zero;
    st.start(*gpt2.model, {5, 9, 2});
    for (int k = 0; k < 4; ++k) st.step(*gpt2.model);
    core::model::Stepper knocked;
    knocked.start(*gpt2.model, {5, 9, 2}, zero);
    for (int k = 0; k < 4; ++k) knocked.step(*gpt2.model);
    const Run cli = run({"--generate", checkpoints() + "/gpt2", "--sequence", "5 9 2", "--tokens", "4", "--ablate", "1.2"});
    REQUIRE(cli.code == 0);
    CHECK(nlohmann::json::parse(cli.out)["ids"].get<std::vector<int>>() == knocked.generated());
}

TEST_CASE("decode steps: generating stops at an end-of-text id, keeping it, in --generate, its recomputing path and the stepper") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa"}) {
        CAPTURE(name);
        const auto plain = core::model::open_model(checkpoints() + "/" + name);
        const std::vector<int> prompt = {10, 20, 30, 40};
        const std::vector<int> path = greedy_recomputed(*plain.model, prompt, 8, {});
        const int k = first_new(path);
        REQUIRE(k >= 1);
        // Two end-of-text ids, as Llama 3 lists them: one never generated here, and path[k].
        int unused = 0;
        while (std::find(path.begin(), path.end(), unused) != path.end()) ++unused;
        const std::string dir = fixtures::with_eos(name, {unused, path[static_cast<std::size_t>(k)]});
        const auto m = core::model::open_model(dir);
        CHECK(m.model->config().eos_token_ids == std::vector<int>{unused, path[static_cast<std::size_t>(k)]});
        const std::vector<int> want(path.begin(), path.begin() + k + 1);
        CHECK(greedy_recomputed(*m.model, prompt, 8, {unused, path[static_cast<std::size_t>(k)]}) == want);

        const Run cli = run({"--generate", dir, "--sequence", ids_text(prompt), "--tokens", "8"});
        REQUIRE(cli.code == 0);
        CHECK(nlohmann::json::parse(cli.out)["ids"].get<std::vector<int>>() == want);
        CHECK(core::model::generate_greedy(*m.model, prompt, 8) == want);

        core::model::Stepper st;
        st.start(*m.model, prompt);
        while (st.can_step(*m.model)) st.step(*m.model);
        CHECK(st.generated() == want);
        CHECK(st.ended(*m.model));
        CHECK_THROWS_WITH_AS(st.step(*m.model), doctest::Contains("end-of-text"), core::model::InputError);
        CHECK(st.generated() == want);

        // Knocked out by their mean, --generate recomputes the sequence at each step: it stops there too.
        ForwardOptions mean;
        mean.ablate = {{1, 1}};
        mean.ablation = core::model::Ablation::mean;
        const std::vector<int> knocked = greedy_recomputed(*plain.model, prompt, 8, {}, mean);
        const int kk = first_new(knocked);
        REQUIRE(kk >= 1);
        const std::string dir_mean = fixtures::with_eos(name, {knocked[static_cast<std::size_t>(kk)]});
        const Run cli_mean = run({"--generate", dir_mean, "--sequence", ids_text(prompt), "--tokens", "8", "--ablate", "2.2", "--ablate-mode", "mean"});
        REQUIRE(cli_mean.code == 0);
        CHECK(nlohmann::json::parse(cli_mean.out)["ids"].get<std::vector<int>>() == std::vector<int>(knocked.begin(), knocked.begin() + kk + 1));
    }
}

TEST_CASE("prompt compare: tokens aligned by what they share, replacements of the same length position by position") {
    using core::model::align_tokens;
    const auto same = align_tokens({1, 2, 3}, {1, 2, 3});
    CHECK(same.a == std::vector<int>{0, 1, 2});
    CHECK(same.b == std::vector<int>{0, 1, 2});
    const auto replaced = align_tokens({1, 2, 3, 4}, {1, 7, 3, 4}); // cat -> dog
    CHECK(replaced.a == std::vector<int>{0, 1, 2, 3});
    CHECK(replaced.b == std::vector<int>{0, 1, 2, 3});
    const auto inserted = align_tokens({1, 2, 3, 4}, {1, 2, 8, 8, 3, 4}); // two tokens more
    CHECK(inserted.a == std::vector<int>{0, 1, 2, 3});
    CHECK(inserted.b == std::vector<int>{0, 1, 4, 5});
    const auto split = align_tokens({1, 2, 3, 4}, {1, 7, 8, 3, 4}); // one token became two: left out
    CHECK(split.a == std::vector<int>{0, 2, 3});
    CHECK(split.b == std::vector<int>{0, 3, 4});
    const auto middle = align_tokens({5, 1, 2, 9, 3, 6}, {5, 2, 1, 9, 9, 3, 6}); // the middle needs the table
    CHECK(middle.a.size() == middle.b.size());
    CHECK(middle.size() == 5);
    for (int k = 0; k < middle.size(); ++k) CHECK(std::vector<int>{5, 1, 2, 9, 3, 6}[middle.a[k]] == std::vector<int>{5, 2, 1, 9, 9, 3, 6}[middle.b[k]]);
    CHECK(align_tokens({}, {1, 2}).size() == 0);
    CHECK(align_tokens({1, 2}, {3, 4}).size() == 2); // all replaced, the same count
}

TEST_CASE("prompt compare: every head's difference and each row's Jensen-Shannon divergence against NumPy") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(checkpoints() + "/" + name);
        const std::vector<int> a = {4, 9, 6, 2, 8, 9, 6, 3}, b = {4, 9, 7, 2, 5, 5, 8, 9, 6, 3};
        const ForwardResult ra = m.model->forward(a), rb = m.model->forward(b);
        const core::model::Comparison cmp = core::model::compare_prompts(ra, a, rb, b);
        CHECK(cmp.aligned.a == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
        CHECK(cmp.aligned.b == std::vector<int>{0, 1, 2, 3, 6, 7, 8, 9});
        nlohmann::json j = {{"a", a}, {"b", b}, {"L", ra.layers}, {"H", ra.heads}, {"A", ra.maps.all()}, {"B", rb.maps.all()}};
        for (std::size_t k = 0; k < cmp.difference.size(); ++k) {
            std::vector<std::vector<double>> d;
            for (int i = 0; i < cmp.aligned.size(); ++i) {
                d.emplace_back();
                for (int jj = 0; jj < cmp.aligned.size(); ++jj) d.back().push_back(cmp.difference[k](i, jj));
            }
            j["diff"].push_back(d);
            j["js"].push_back(std::vector<double>(cmp.js[k].data(), cmp.js[k].data() + cmp.js[k].size()));
            j["mean_js"].push_back(cmp.mean_js[k]);
        }
        const std::string file = fixtures::temp_dir() + "/compare.json";
        std::ofstream(file) << j.dump();
        test_python::run_or_skip(R"(
import json, sys
import numpy as np
j = json.load(open(sys.argv[1]))
a, b, L, H = j["a"], j["b"], j["L"], j["H"]
A = np.array(j["A"], dtype=np.float64).reshape(L, H, len(a), len(a))
B = np.array(j["B"], dtype=np.float64).reshape(L, H, len(b), len(b))
# "cat sat" -> "dog sat" style: 6 -> 7 is one replaced token, 8 -> 5 5 8 an insertion before 8
ia, ib = [0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 6, 7, 8, 9]
assert [a[i] for i in ia if i != 2] == [b[i] for i in ib if i != 2]
def kl(p, q):
    m = p > 0
    return float(np.sum(p[m] * np.log(p[m] / q[m])))
for k in range(L * H):
    P = A[k // H, k % H][np.ix_(ia, ia)]
    Q = B[k // H, k % H][np.ix_(ib, ib)]
    assert np.abs(np.array(j["diff"][k]) - (Q - P)).max() < 1e-6, k
    js = []
    for i in range(len(ia)):
        p, q = P[i] / P[i].sum(), Q[i] / Q[i].sum()
        mid = (p + q) / 2
        js.append(0.5 * kl(p, mid) + 0.5 * kl(q, mid))
    assert np.abs(np.array(j["js"][k]) - js).max() < 1e-6, (k, j["js"][k], js)
    assert abs(j["mean_js"][k] - np.mean(js)) < 1e-6
    assert max(js) > 1e-4 and max(js) <= np.log(2)
)",
                                 {file}, true);
        CHECK_THROWS_AS(core::model::compare_prompts(ra, a, m.model->forward({1, 2}, {}), {1, 2, 3}), core::model::InputError);
    }
}
