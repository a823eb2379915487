// core/learn/patch_run.cpp — see patch_run.h.
#include "core/learn/patch_run.h"

#include "core/model/circuits/attribution.h"
#include "core/model/circuits/lens.h"
#include "core/model/circuits/patching.h"
#include "core/model/format/checkpoint.h"
#include "core/model/tokenizer/tokenizer.h"

#include <algorithm>

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
    return r;
}

void add_patch_facts(const PatchRun& r, int picked, Facts& f) {
    f["best_recovery"] = r.recovery.maxCoeff();
    f["recovery_layer"] = best_head(r.recovery) / r.heads + 1;
    f["attribution_layer"] = best_head(r.attribution) / r.heads + 1;
    const auto first = std::find(r.lens_rank.begin(), r.lens_rank.end(), 1);
    f["lens_layer"] = first == r.lens_rank.end() ? 0 : static_cast<double>(first - r.lens_rank.begin() + 1);
    if (picked < 0 || picked >= r.layers * r.heads) return;
    f["picked_recovery"] = r.recovery(picked / r.heads, picked % r.heads);
    f["picked_attribution"] = r.attribution(picked / r.heads, picked % r.heads);
}

} // namespace core::learn
