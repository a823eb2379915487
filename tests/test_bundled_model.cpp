// The GPT-2 directory `--train text` writes opens in core/model (as any Hugging Face GPT-2 does) and
// gives the trainer's own logits and attention; the model attnviz ships is found with the assets.
#include "core/assets.h"
#include "core/model/format/checkpoint.h"
#include "core/heads/probe.h"
#include "core/heads/scores.h"
#include "core/model/tokenizer/tokenizer.h"
#include "core/train/gpt2_file.h"
#include "core/train/text_trainer.h"

#include "tests/fixture_files.h"
#include "tests/train_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

using namespace core::train;

namespace {

// The largest |a - b| / (1 + |b|) between core/model's forward and the trainer's, logits and attention.
struct Agreement {
    double logits = 0, attention = 0;
};

Agreement compare_forwards(const std::string& dir, const std::vector<int>& ids) {
    const Gpt2Saved saved = load_gpt2_dir(dir);
    const Gpt2Layout lay(saved.config);
    Gpt2Activations<float> acts;
    const int t = static_cast<int>(ids.size());
    gpt2_forward(lay, saved.params.data(), ids.data(), nullptr, 1, t, acts, gpt2_ops::best_f32());

    const core::model::OpenedModel opened = core::model::open_model(dir);
    const core::model::ForwardResult r = opened.model->forward(ids);
    REQUIRE(r.logits.rows() == t);
    REQUIRE(r.logits.cols() == saved.config.vocab);
    REQUIRE(r.layers == saved.config.n_layer);
    REQUIRE(r.heads == saved.config.n_head);
    Agreement a;
    for (int i = 0; i < t; ++i)
        for (int v = 0; v < saved.config.vocab; ++v) {
            const double want = acts.logits[static_cast<std::size_t>(i) * static_cast<std::size_t>(saved.config.vocab) + static_cast<std::size_t>(v)];
            a.logits = std::max(a.logits, std::abs(r.logits(i, v) - want) / (1 + std::abs(want)));
        }
    for (int l = 0; l < r.layers; ++l)
        for (int h = 0; h < r.heads; ++h)
            for (int k = 0; k < t * t; ++k)
                a.attention = std::max(a.attention, static_cast<double>(std::abs(r.maps.head(l, h).data()[k] - acts.attention(l, 0, h)[k])));
    return a;
}

// prose written for this test, not a line of the corpus; its names and words recur
const std::string bennet_text = "When Mr. Bennet came home, Elizabeth told him that the letter was from her aunt, and that her "
                                "aunt would come to Longbourn in a week. He said nothing, but he was pleased; and Elizabeth was "
                                "pleased to see him so.";

// The highest score of each kind among the heads, and where: (layer, head) from 0.
struct Best {
    double previous = 0, duplicate = 0, induction = 0;
    std::pair<int, int> previous_head, duplicate_head, induction_head;
};

// Every head's scores, layer by layer.
std::vector<core::heads::HeadScores> head_scores(const core::model::OpenedModel& m, const std::vector<int>& ids) {
    const core::model::ForwardResult r = m.model->forward(ids);
    return core::heads::all_head_scores(r.maps.all().data(), r.layers, r.heads, core::heads::score_index(ids));
}

Best best_heads(const core::model::OpenedModel& m, const std::vector<int>& ids) {
    const core::model::ForwardResult r = m.model->forward(ids);
    const std::vector<core::heads::HeadScores> scores = core::heads::all_head_scores(r.maps.all().data(), r.layers, r.heads, core::heads::score_index(ids));
    Best b;
    auto keep = [](const std::optional<double>& v, double& best, std::pair<int, int>& where, int l, int h) {
        if (v && *v > best) { best = *v; where = {l, h}; }
    };
    for (int l = 0; l < r.layers; ++l)
        for (int h = 0; h < r.heads; ++h) {
            const core::heads::HeadScores& s = scores[static_cast<std::size_t>(l * r.heads + h)];
            keep(s.previous, b.previous, b.previous_head, l, h);
            keep(s.duplicate, b.duplicate, b.duplicate_head, l, h);
            keep(s.induction, b.induction, b.induction_head, l, h);
        }
    return b;
}

} // namespace

TEST_CASE("Bundled model: the directory --train text writes opens as a GPT-2 and gives the trainer's logits and attention") {
    std::string text;
    for (int i = 0; i < 50; ++i) text += "The cat sat on the mat; the dog sat by the door.\n";
    const TextTrainConfig c = train_fixtures::short_text_run(Gpt2Config{0, 16, 16, 2, 2}, 40, 5, 1, 4);
    TextTrainer trainer(c, make_text_corpus(text, c.merges, 0.1));
    for (int i = 0; i < c.steps; ++i) trainer.step();
    const std::string dir = fixtures::temp_dir() + "/cat-model";
    save_gpt2_dir(dir, trainer.saved(), trainer.corpus().bpe.tokenizer_json());

    const core::model::Tokenizer tok = core::model::load_tokenizer(dir);
    const std::vector<int> ids = tok.encode_ids("the cat sat on the mat");
    CHECK(ids == trainer.corpus().bpe.encode("the cat sat on the mat"));
    const Agreement a = compare_forwards(dir, ids);
    CHECK(a.logits < 1e-4);
    CHECK(a.attention < 1e-5);
}

TEST_CASE("Bundled model: Jane Austen's GPT-2 ships with the assets, opens as a GPT-2 and gives the trainer's forward") {
    const std::string dir = core::asset_path("models/austen-gpt2");
    REQUIRE(std::filesystem::is_regular_file(dir + "/config.json"));
    const core::model::Tokenizer tok = core::model::load_tokenizer(dir);
    const std::vector<int> ids = tok.encode_ids(bennet_text);
    REQUIRE(ids.size() >= 40);
    REQUIRE(ids.size() <= 128);
    CHECK(tok.decode(ids) == bennet_text);
    const Agreement a = compare_forwards(dir, ids);
    CHECK(a.logits < 1e-4);
    CHECK(a.attention < 1e-5);
}

TEST_CASE("Bundled model: core/model's head scores find its previous-token heads in layer 1, induction heads and a duplicate-token head") {
    const std::string dir = core::asset_path("models/austen-gpt2");
    const core::model::OpenedModel opened = core::model::open_model(dir);
    const core::model::Tokenizer tok = core::model::load_tokenizer(dir);
    const int eos = opened.model->config().eos_token_id;
    REQUIRE(eos >= 0);
    // prose: the best previous-token head is in layer 1
    const Best prose = best_heads(opened, tok.encode_ids(bennet_text));
    CAPTURE(prose.previous);
    CHECK(prose.previous_head.first == 0);
    CHECK(prose.previous > 0.3);
    // a sentence read twice: on the second reading, heads look up the earlier copy of each token
    const std::string sentence = "Elizabeth told him that the letter was from her aunt, and that her aunt would come to Longbourn in a week.";
    const Best twice = best_heads(opened, tok.encode_ids(sentence + " " + sentence));
    CAPTURE(twice.duplicate);
    CAPTURE(twice.induction);
    CHECK(twice.induction > 0.5);
    CHECK(twice.induction_head.first >= 1); // an induction head reads what an earlier layer wrote
    // a duplicate-token head: its weight on the earlier copy itself, not on the token after it, and
    // well above every other head's
    CHECK(twice.duplicate > 0.35);
    CHECK(twice.duplicate_head != twice.induction_head);
    const std::vector<core::heads::HeadScores> scores = head_scores(opened, tok.encode_ids(sentence + " " + sentence));
    const int heads = opened.model->config().heads;
    for (int k = 0; k < static_cast<int>(scores.size()); ++k) {
        CAPTURE(k);
        if (std::make_pair(k / heads, k % heads) == twice.duplicate_head)
            CHECK(scores[static_cast<std::size_t>(k)].induction.value_or(1.0) < 0.5 * twice.duplicate);
        else
            CHECK(scores[static_cast<std::size_t>(k)].duplicate.value_or(1.0) < 0.6 * twice.duplicate);
    }
    // the probe: 50 random ids twice after BOS, as --heads --probe 50 --seed 1 runs it
    const Best probe = best_heads(opened, core::heads::probe_sequence(50, 1, opened.model->config().vocab, {eos}, eos));
    CAPTURE(probe.induction);
    CHECK(probe.induction > 0.15);
}
