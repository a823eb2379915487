// core/learn/heads_run.cpp — see heads_run.h.
#include "core/learn/heads_run.h"

#include "core/error_text.h"
#include "core/model/open.h"
#include "core/model/head_importance.h"
#include "core/model/tokenizer/tokenizer.h"

#include <algorithm>

namespace core::learn {

namespace {

// The most tokens whose patterns, every head's, fit `most_cells` cells.
int most_tokens(int heads, bool causal, int most_cells) {
    const auto cells = [causal](int t) { return causal ? t * (t + 1) / 2 : t * t; };
    int t = 1;
    while (heads * cells(t + 1) <= most_cells) ++t;
    return t;
}

} // namespace

HeadsRun run_heads(const std::string& model, const std::string& text, int most_cells) {
    HeadsRun r;
    try {
        const core::model::OpenedModel m = core::model::open_model(model);
        const core::model::Tokenizer tokenizer = core::model::load_tokenizer(m.dir);
        std::vector<int> ids = tokenizer.encode_ids(text);
        const core::model::ModelConfig& c = m.model->config();
        const size_t most = static_cast<size_t>(most_tokens(c.layers * c.heads, m.model->causal(), most_cells));
        r.cut = ids.size() > most;
        ids.resize(std::min(ids.size(), most));
        core::model::ForwardOptions options;
        options.logits = core::model::Logits::none; // the attention alone
        const core::model::ForwardResult f = m.model->forward(ids, options);
        r.name = m.name;
        r.causal = m.model->causal();
        r.layers = f.layers;
        r.heads = f.heads;
        for (int id : ids) r.tokens.push_back(tokenizer.token_display(id));
        r.scores = core::model::all_head_scores(f, core::heads::score_index(ids));
        for (int l = 0; l < f.layers; ++l)
            for (int h = 0; h < f.heads; ++h) r.patterns.push_back(f.maps.head(l, h).cast<double>());
    } catch (const std::exception& e) {
        r = HeadsRun{};
        r.error = core::error_text(e);
    }
    return r;
}

} // namespace core::learn
