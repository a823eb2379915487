// tests/test_attention_maps.cpp — the maps a forward rebuilds on demand against the full forward's,
// which writes every map as it runs (ForwardOptions::dense_attention): equal to the bit.
#include "core/background.h"
#include "core/heads/rollout.h"
#include "core/io/attention_file.h"
#include "core/model/format/checkpoint.h"
#include "core/model/map_cache.h"
#include "core/model/memory.h"
#include "core/model/ops.h"
#include "core/model/session.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using core::model::ForwardOptions;
using core::model::ForwardResult;
using fixtures::checkpoints;

namespace {

// t ids below the vocabulary, the same every run.
std::vector<int> some_ids(int t, int vocab) {
    std::mt19937 rng(7);
    std::vector<int> ids(static_cast<std::size_t>(t));
    for (int& id : ids) id = static_cast<int>(rng() % static_cast<unsigned>(vocab));
    return ids;
}

bool same_float_bits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

// Every head's map, and tiles of rows across the blocks of 64, of `kept` equal `dense`'s.
void check_equal(const ForwardResult& kept, const ForwardResult& dense) {
    REQUIRE(!kept.maps.dense());
    REQUIRE(dense.maps.dense());
    REQUIRE(kept.maps.t_new() == dense.maps.t_new());
    const int t = kept.t_new, keys = kept.t_total;
    int heads_equal = 0;
    for (int l = 0; l < kept.layers; ++l)
        for (int h = 0; h < kept.heads; ++h) {
            const core::model::MatrixF a = kept.maps.head(l, h), b = dense.maps.head(l, h);
            heads_equal += same_float_bits(a.data(), b.data(), static_cast<std::size_t>(a.size()));
            for (const auto& tile : std::vector<std::pair<int, int>>{{0, 1}, {t - 1, t}, {std::min(60, t - 1), std::min(70, t)}, {t / 3, t}}) {
                std::vector<float> rows(static_cast<std::size_t>(tile.second - tile.first) * static_cast<std::size_t>(keys));
                kept.maps.rows(l, h, tile.first, tile.second, rows.data());
                CHECK(same_float_bits(rows.data(), b.data() + static_cast<std::ptrdiff_t>(tile.first) * keys, rows.size()));
            }
        }
    CHECK(heads_equal == kept.layers * kept.heads);
    CHECK(kept.entropy == dense.entropy);
}

const std::vector<std::string> architectures = {"gpt2",  "llama_gqa", "qwen2",  "mistral",   "bert",   "qwen3",    "qwen3_sliding",
                                                "phi3",  "phi4_mini", "gemma2", "gemma3_text", "llama32", "tinyllama",
                                                "qwen3_yarn", "smollm3", "olmo2", "olmo3"};

} // namespace

TEST_CASE("attention maps: rebuilt on demand, every head and tile equals the full forward's on every fixture architecture") {
    fixtures::for_each_checkpoint(architectures, [](const core::model::OpenedModel& m) {
        const core::model::ModelConfig& c = m.model->config();
        const std::vector<int> ids = some_ids(std::min(c.context, 150), c.vocab); // more than two blocks where the context allows
        ForwardOptions dense;
        dense.dense_attention = true;
        dense.rollout = true;
        ForwardOptions kept;
        kept.rollout = true;
        const ForwardResult a = m.model->forward(ids, kept), b = m.model->forward(ids, dense);
        check_equal(a, b);
        CHECK(a.rollout == b.rollout);
        // The rollout the forward sums head by head as it runs, against the one made afterwards from
        // every head's whole map (core::heads::mean_over_heads, then the same products): the same bits.
        const int t = static_cast<int>(ids.size());
        const core::model::MatrixF after = core::heads::rollout(b.maps.all().data(), b.layers, b.heads, t, &core::model::ops::product);
        REQUIRE(a.rollout.rows() == t);
        CHECK((a.rollout - after).cwiseAbs().maxCoeff() == 0.0f);
        if (!m.model->causal()) return;
        // A decoding step after a cached prompt: one row over every key.
        core::model::KvCache ca, cb;
        const std::vector<int> prompt(ids.begin(), ids.end() - 1);
        kept.rollout = dense.rollout = false; // rollout needs the whole sequence
        m.model->extend(ca, prompt, kept);
        m.model->extend(cb, prompt, dense);
        check_equal(m.model->extend(ca, {ids.back()}, kept), m.model->extend(cb, {ids.back()}, dense));
    });
}

TEST_CASE("attention maps: a long run's linear layers keep their input, and M from the q and k projected again is the full forward's to the bit") {
    fixtures::for_each_checkpoint(std::vector<std::string>{"qwen3_5", "qwen3_next"}, [](const core::model::OpenedModel& m) {
        const core::model::ModelConfig& c = m.model->config();
        const std::vector<int> ids = some_ids(1100, c.vocab); // past the length from which the input is kept, 18 chunks of M
        ForwardOptions dense;
        dense.dense_attention = true;
        const ForwardResult a = m.model->forward(ids, {}), b = m.model->forward(ids, dense);
        const std::size_t t = ids.size();
        std::size_t floats = 0; // what the maps should hold: each linear layer's input, β and g; the full layer's q and k
        for (int l = 0; l < 3; ++l) { // the linear layers: their input (t, 16), not q and k (t, 2 · 16)
            const core::model::AttentionMaps::Layer* kept = a.maps.kept(l);
            REQUIRE(kept);
            CHECK(kept->q.capacity() == 0); // never copied, so no buffer left behind
            CHECK(kept->k.capacity() == 0);
            REQUIRE(kept->source);
            CHECK(kept->source->input.size() == t * static_cast<std::size_t>(c.d_model));
            floats += t * static_cast<std::size_t>(c.d_model + 2 * kept->v_heads);
        }
        CHECK(a.maps.kept(3)->source == nullptr); // the full layer keeps its queries and keys
        floats += t * static_cast<std::size_t>((c.heads + c.kv_heads) * c.d_head);
        CHECK(a.maps.bytes() == floats * sizeof(float));
        check_equal(a, b);
        const ForwardResult shorter = m.model->forward(std::vector<int>(ids.begin(), ids.begin() + 150), {});
        CHECK(shorter.maps.kept(0)->source == nullptr); // a short run keeps q and k, read without projecting
    });
}

TEST_CASE("attention maps: the attention file and --forward's JSON, streamed head by head, hold the full forward's maps") {
    NEED_CHECKPOINTS();
    for (const std::string& name : {std::string("llama_gqa"), std::string("gemma2"), std::string("bert")}) {
        CAPTURE(name);
        const std::string dir = checkpoints() + "/" + name;
        const auto m = core::model::open_model(dir);
        const std::vector<int> ids = some_ids(std::min(m.model->config().context, 70), m.model->config().vocab);
        ForwardOptions dense;
        dense.dense_attention = true;
        const ForwardResult kept = m.model->forward(ids), full = m.model->forward(ids, dense);
        const std::string out = fixtures::temp_dir() + "/maps.safetensors";
        core::model::write_attention_file(out, kept, std::vector<std::string>(ids.size(), "x"), name);
        const auto file = core::io::AttentionFile::open(out);
        REQUIRE(file->n() == static_cast<int>(ids.size()));
        const int t = file->n();
        int equal = 0;
        for (int l = 0; l < full.layers; ++l)
            for (int h = 0; h < full.heads; ++h) {
                const core::model::MatrixF A = full.maps.head(l, h);
                bool same = true;
                for (int i = 0; i < t; ++i)
                    for (int j = 0; j < t; ++j) same = same && file->at(l, h, i, j) == A(i, j);
                equal += same;
            }
        CHECK(equal == full.layers * full.heads);
        const Run json = run({"--forward", dir, "--sequence", ids_text(ids)});
        REQUIRE(json.code == 0);
        const auto j = nlohmann::json::parse(json.out);
        equal = 0;
        for (int l = 0; l < full.layers; ++l)
            for (int h = 0; h < full.heads; ++h) {
                const core::model::MatrixF A = full.maps.head(l, h);
                bool same = true;
                for (int i = 0; i < t; ++i)
                    for (int k = 0; k < t; ++k) same = same && j["attention"][l][h][i][k].get<float>() == A(i, k);
                equal += same;
            }
        CHECK(equal == full.layers * full.heads);
    }
}

TEST_CASE("attention maps: the memory check counts the queries and keys kept, and the dense maps of the full forward") {
    NEED_CHECKPOINTS();
    const auto m = core::model::open_model(checkpoints() + "/llama32");
    const core::model::ModelConfig& c = m.model->config();
    ForwardOptions kept, dense;
    dense.dense_attention = true;
    const auto a = core::model::forward_footprint(c, kept, 0, 8192), b = core::model::forward_footprint(c, dense, 0, 8192);
    const std::uint64_t L = static_cast<std::uint64_t>(c.layers), H = static_cast<std::uint64_t>(c.heads), t = 8192;
    CHECK(a.maps == 4 * L * (t * H * c.d_head + t * c.kv_heads * c.d_head + H * t));
    CHECK(b.maps == 4 * L * H * (t * t + t));
    const ForwardResult r = m.model->forward(some_ids(100, c.vocab));
    CHECK(r.maps.bytes() == core::model::AttentionMaps::bytes_for(c.layers, c.heads, c.kv_heads, c.d_head, 100, 100, false));
}

TEST_CASE("attention maps: the scores and thumbnails a forward makes from each map as it runs equal those of the full forward's maps") {
    NEED_CHECKPOINTS();
    fixtures::for_each_checkpoint(architectures, [](const core::model::OpenedModel& m) {
        const core::model::ModelConfig& c = m.model->config();
        std::vector<int> ids = some_ids(std::min(c.context, 150) / 2, c.vocab);
        ids.insert(ids.end(), ids.begin(), ids.end()); // repeated: duplicate and induction rows
        const core::heads::ScoreIndex index = core::heads::score_index(ids);
        ForwardOptions o;
        o.scores = &index;
        o.thumbnail_side = 24;
        ForwardOptions dense;
        dense.dense_attention = true;
        const ForwardResult r = m.model->forward(ids, o), full = m.model->forward(ids, dense);
        const std::vector<float> maps = full.maps.all();
        const std::vector<core::heads::HeadScores> want = core::heads::all_head_scores(maps.data(), full.layers, full.heads, index, full.entropy.data());
        REQUIRE(r.scores.size() == want.size());
        const int t = static_cast<int>(ids.size()), side = 24;
        int equal = 0;
        for (std::size_t k = 0; k < want.size(); ++k) {
            const bool same = r.scores[k].previous == want[k].previous && r.scores[k].duplicate == want[k].duplicate &&
                              r.scores[k].induction == want[k].induction && r.scores[k].entropy == want[k].entropy;
            // The grid's thumbnail: each block the sum of its weights (here in float64), scaled to a
            // largest block of 1; the forward's float32 sums in another order agree to rounding.
            std::vector<double> thumb(static_cast<std::size_t>(side * side), 0.0);
            const float* a = maps.data() + k * static_cast<std::size_t>(t) * t;
            for (int i = 0; i < t; ++i)
                for (int j = 0; j < t; ++j) thumb[static_cast<std::size_t>((i * side / t) * side + j * side / t)] += a[i * t + j];
            const double top = *std::max_element(thumb.begin(), thumb.end());
            double off = 0;
            for (std::size_t b = 0; b < thumb.size(); ++b) off = std::max(off, std::abs(thumb[b] / top - r.thumbnails[k * thumb.size() + b]));
            equal += same && off < 1e-6;
        }
        CHECK(equal == static_cast<int>(want.size()));
        CHECK(want[0].duplicate.has_value());
    });
    const auto gpt2 = core::model::open_model(checkpoints() + "/gpt2");
    core::model::KvCache cache;
    gpt2.model->extend(cache, {1, 2}, {});
    const core::heads::ScoreIndex two = core::heads::score_index({3});
    ForwardOptions o;
    o.scores = &two;
    CHECK_THROWS_AS(gpt2.model->extend(cache, {3}, o), core::model::InputError); // scores need the whole sequence
}

TEST_CASE("attention maps: a large map for a frame is rebuilt apart, null until it is in, then the full forward's") {
    NEED_CHECKPOINTS();
    const auto m = core::model::open_model(checkpoints() + "/llama32");
    const std::vector<int> ids = some_ids(600, m.model->config().vocab); // 600² weights: past what a frame rebuilds at once
    ForwardOptions dense;
    dense.dense_attention = true;
    auto kept = std::make_shared<const ForwardResult>(m.model->forward(ids));
    const ForwardResult full = m.model->forward(ids, dense);
    auto cache = std::make_shared<core::model::MapCache>();
    CHECK(cache->soon(kept, kept->maps, 1, 2) == nullptr);
    CHECK(cache->soon(kept, kept->maps, 0, 0) == nullptr); // one at a time
    core::background::wait_all(); // the rebuild is counted: once nothing runs, the map is in
    const std::shared_ptr<const core::model::MatrixF> map = cache->held(1, 2);
    REQUIRE(map);
    const core::model::MatrixF want = full.maps.head(1, 2);
    CHECK(same_float_bits(map->data(), want.data(), static_cast<std::size_t>(want.size())));
    CHECK(cache->soon(kept, kept->maps, 1, 2) == map);
}
