// core/learn/patch_run.cpp — see patch_run.h.
#include "core/learn/patch_run.h"

#include "core/model/circuits/attribution.h"
#include "core/model/circuits/composition.h"
#include "core/model/circuits/lens.h"
#include "core/model/circuits/patching.h"
#include "core/model/circuits/qk.h"
#include "core/model/format/checkpoint.h"
#include "core/model/tokenizer/tokenizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace core::learn {

namespace {

// The (layer, head) of the largest entry, layer-major.
int best_head(const Matrix& m) {
    Eigen::Index l = 0, h = 0;
    m.maxCoeff(&l, &h);
    return static_cast<int>(l * m.cols() + h);
}

// The answer's logit-lens rank and the top token after each layer, at the clean prompt's last token.
void lens_at_end(const core::model::Model& model, const core::model::Tokenizer& tokenizer, std::vector<int> ids, int answer, PatchRun& r) {
    ids.push_back(answer); // so that the answer is the last token's next one
    const core::model::LogitLens lens = core::model::logit_lens(model, ids, 1);
    const size_t at = ids.size() - 2;
    for (int l = 0; l < lens.layers; ++l) {
        const size_t k = static_cast<size_t>(l) * static_cast<size_t>(lens.t) + at;
        r.lens_rank.push_back(lens.rank_next[k]);
        r.lens_top.push_back(tokenizer.token_display(lens.top[k]));
    }
}

// The best-recovering head past the first layer (none in a one-layer model).
int reader_of(const Matrix& recovery) {
    if (recovery.rows() < 2) return -1;
    return best_head(recovery.bottomRows(recovery.rows() - 1)) + static_cast<int>(recovery.cols());
}

// Each earlier head's K-composition into the reader, and why the reader's strongest score at the
// last token is what it is: its query–key pairs.
void how_the_reader_reads(const core::model::Model& model, const core::model::Tokenizer& tokenizer, const std::vector<int>& ids, PatchRun& r) {
    const int L = r.layers, H = r.heads, rl = r.reader / H, rh = r.reader % H;
    const core::model::CompositionScores c = core::model::composition_scores(model, core::model::CompositionKind::k);
    r.k_composition = Matrix::Constant(L, H, std::numeric_limits<double>::quiet_NaN());
    for (int l = 0; l < rl; ++l)
        for (int h = 0; h < H; ++h) r.k_composition(l, h) = c.at(l, h, rl, rh);
    const core::model::QkStream s = core::model::qk_stream(model, ids, rl);
    r.query = static_cast<int>(ids.size()) - 1;
    r.score = -std::numeric_limits<double>::infinity();
    core::model::QkAttribution best;
    for (const int j : core::model::visible_keys(s, r.query)) {
        core::model::QkAttribution a = core::model::qk_attribution(s, rh, r.query, j);
        if (a.score > r.score) r.score = a.score, r.key = j, best = std::move(a);
    }
    r.query_token = tokenizer.token_display(ids[static_cast<std::size_t>(r.query)]);
    r.key_token = tokenizer.token_display(ids[static_cast<std::size_t>(r.key)]);
    r.qk_pairs = core::model::top_pairs_in_words(best, 3);
}

} // namespace

std::string patch_key(const std::string& model, const std::string& clean, const Actions::Patch& patch) {
    return model + '\n' + clean + '\n' + patch.corrupt + '\n' + patch.answer + '\n' + patch.vs;
}

PatchRun run_patch(const std::string& model, const std::string& clean, const Actions::Patch& patch, const std::atomic<bool>* cancel,
                   const std::function<void(int done, int total)>& progress) {
    const core::model::OpenedModel m = core::model::open_model(model);
    const core::model::Tokenizer tokenizer = core::model::load_tokenizer(m.dir);
    const std::vector<int> clean_ids = tokenizer.encode_ids(clean), corrupt_ids = tokenizer.encode_ids(patch.corrupt);
    // The lesson's loading checked that each is one token.
    const core::model::PatchMetric metric{tokenizer.encode_ids(patch.answer, false).at(0), tokenizer.encode_ids(patch.vs, false).at(0), false};
    const core::model::Patching p = core::model::activation_patching(*m.model, clean_ids, corrupt_ids, metric, core::model::PatchBy::head, cancel, progress);
    PatchRun r;
    r.name = m.name;
    r.layers = static_cast<int>(p.recovery.rows());
    r.heads = static_cast<int>(p.recovery.cols());
    r.answer = tokenizer.token_display(metric.answer);
    r.vs = tokenizer.token_display(metric.vs);
    r.clean_metric = p.clean_metric;
    r.corrupt_metric = p.corrupt_metric;
    r.recovery = p.recovery;
    r.attribution = core::model::direct_attribution(*m.model, clean_ids, metric.answer, metric.vs, static_cast<int>(clean_ids.size()) - 1).heads;
    lens_at_end(*m.model, tokenizer, clean_ids, metric.answer, r);
    r.reader = reader_of(r.recovery);
    if (r.reader >= 0) how_the_reader_reads(*m.model, tokenizer, clean_ids, r);
    return r;
}

void add_patch_facts(const PatchRun& r, int picked, Facts& f) {
    f["best_recovery"] = r.recovery.maxCoeff();
    f["recovery_layer"] = best_head(r.recovery) / r.heads + 1;
    f["attribution_layer"] = best_head(r.attribution) / r.heads + 1;
    const auto first = std::find(r.lens_rank.begin(), r.lens_rank.end(), 1);
    f["lens_layer"] = first == r.lens_rank.end() ? 0 : static_cast<double>(first - r.lens_rank.begin() + 1);
    if (r.reader >= 0) {
        f["reader_layer"] = r.reader / r.heads + 1;
        f["composition_layer"] = best_head(r.k_composition.topRows(r.reader / r.heads)) / r.heads + 1;
    }
    if (picked < 0 || picked >= r.layers * r.heads) return;
    const int l = picked / r.heads, h = picked % r.heads;
    f["picked_recovery"] = r.recovery(l, h);
    f["picked_attribution"] = r.attribution(l, h);
    if (r.reader >= 0 && l < r.reader / r.heads) f["picked_composition"] = r.k_composition(l, h);
}

} // namespace core::learn
