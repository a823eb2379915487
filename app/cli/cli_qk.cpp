// app/cli/cli_qk.cpp — --composition and --qk on a checkpoint.
//
// [SECTION] flags
// [SECTION] modes
#include "app/cli/cli_qk.h"
#include "app/options.h"

#include "app/cli/cli_flags.h"
#include "app/cli/cli_model.h"
#include "core/model/circuits/composition.h"
#include "core/model/requests/qk.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>
#include <string>

namespace app {

namespace {

using Json = nlohmann::ordered_json;

// [SECTION] flags ---------------------------------------------------------------------------------

struct QkOptions {
    bool qk = false; // --qk, else --composition
    std::string model, text, sequence, head, kind = "k";
    bool text_given = false, sequence_given = false, kind_given = false;
    std::string query, key; // positions from 1, read once the prompt's length is known; empty: not given
};

void check(const QkOptions& o) {
    if (o.model.empty()) throw UsageError("give --composition MODEL or --qk MODEL");
    if (o.kind != "q" && o.kind != "k" && o.kind != "v") throw UsageError("--kind takes q, k or v, not \"" + o.kind + "\"");
    if (!o.qk) {
        if (o.text_given || o.sequence_given || !o.head.empty() || !o.query.empty() || !o.key.empty())
            throw UsageError("--composition reads the weights alone: no --text, --sequence, --head, --query or --key");
        return;
    }
    if (o.kind_given) throw UsageError("--kind goes with --composition");
    if (o.text_given == o.sequence_given) throw UsageError("--qk needs --text TEXT or --sequence \"ids\" (one of them)");
    if (o.head.empty() || o.query.empty()) throw UsageError("--qk needs --head L.H and --query I (counting from 1)");
}

QkOptions parse(int argc, const char* const* argv) {
    QkOptions o;
    auto value_of = [&](int& i) { return flag_value(argc, argv, i); };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--composition" || a == "--qk") {
            if (!o.model.empty()) throw UsageError("only one of --composition and --qk at a time");
            o.qk = a == "--qk";
            o.model = value_of(i);
        } else if (a == "--kind") { o.kind = value_of(i); o.kind_given = true; }
        else if (a == "--text") { o.text = value_of(i); o.text_given = true; }
        else if (a == "--sequence") { o.sequence = value_of(i); o.sequence_given = true; }
        else if (a == "--head") o.head = value_of(i);
        else if (a == "--query") o.query = value_of(i);
        else if (a == "--key") o.key = value_of(i);
        else throw unknown_option(a, {"--qk", "--composition", "--kind", "--text", "--sequence", "--head", "--query", "--key"}, o.qk ? "--qk" : "--composition");
    }
    check(o);
    return o;
}

// [SECTION] modes ---------------------------------------------------------------------------------

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

int run_composition(const QkOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    using core::model::CompositionKind;
    const CompositionKind kind = o.kind == "q" ? CompositionKind::q : o.kind == "k" ? CompositionKind::k : CompositionKind::v;
    const core::model::CompositionScores s = core::model::composition_scores(*m.model, kind);
    Json scores = Json::array();
    for (int l1 = 0; l1 < s.layers; ++l1) {
        Json writers = Json::array();
        for (int h1 = 0; h1 < s.heads; ++h1) {
            Json readers = Json::array();
            for (int l2 = 0; l2 < s.layers; ++l2) {
                Json layer = Json::array();
                for (int h2 = 0; h2 < s.heads; ++h2) layer.push_back(number(s.at(l1, h1, l2, h2)));
                readers.push_back(std::move(layer));
            }
            writers.push_back(std::move(readers));
        }
        scores.push_back(std::move(writers));
    }
    out << Json{{"kind", o.kind}, {"scores", std::move(scores)}}.dump() << "\n";
    return 0;
}

// Position `text` (from 1) of `flag` among the input's t tokens, from 0.
int position(const std::string& flag, const std::string& text, int t) { return whole_flag(flag, text, 1, t) - 1; }

// The pairs of one key: components, pairs (C, C), bias, score and the top pairs in words.
void add_pairs(const core::model::QkAttribution& a, Json& j) {
    j["key"] = a.key + 1;
    j["components"] = a.components;
    Json rows = Json::array();
    for (Eigen::Index r = 0; r < a.pairs.rows(); ++r) {
        Json row = Json::array();
        for (Eigen::Index c = 0; c < a.pairs.cols(); ++c) row.push_back(number(a.pairs(r, c)));
        rows.push_back(std::move(row));
    }
    j["pairs"] = std::move(rows);
    j["bias"] = number(a.bias);
    j["score"] = number(a.score);
    j["top"] = core::model::top_pairs_in_words(a, 3);
}

int run_qk(const QkOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const core::model::ModelConfig& c = m.model->config();
    const ModelInput in = model_input(m, o.text_given, o.text, o.sequence);
    const std::vector<core::heads::HeadRef> heads = parse_head_list("--head", o.head, c.layers, c.heads, c.name);
    if (heads.size() != 1) throw UsageError("--head takes one head, L.H");
    const int t = static_cast<int>(in.ids.size()), i = position("--query", o.query, t);
    core::model::QkRequest q{in.ids, heads[0].layer, heads[0].head, i, o.key.empty() ? -1 : position("--key", o.key, t), true};
    const core::model::QkAnswer a = core::model::answer_qk(*m.model, q);
    Json j{{"head", o.head}, {"query", i + 1}, {"keys", Json::array()}, {"scores", Json::array()}};
    for (std::size_t n = 0; n < a.keys.size(); ++n) {
        j["keys"].push_back(a.keys[n] + 1);
        j["scores"].push_back(number(a.scores[n]));
    }
    // A learned sink's logit joins the row's softmax beside the scores (gpt-oss).
    if (a.sink) j["sink"] = number(*a.sink);
    if (!o.key.empty()) {
        if (!a.visible)
            throw UsageError("--key " + o.key + ": query " + o.query + " does not see it in head " + o.head +
                             (a.window ? " (a window of " + std::to_string(a.window) + ")" : " (causal)"));
        add_pairs(a.attribution, j);
    }
    out << j.dump() << "\n";
    return 0;
}

} // namespace

int run_qk_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_on_model(argc, argv, err, parse, [&](const QkOptions& o, const core::model::OpenedModel& m) {
        return o.qk ? run_qk(o, m, out) : run_composition(o, m, out);
    });
}

} // namespace app
