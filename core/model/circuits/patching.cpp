// core/model/circuits/patching.cpp — activation patching by head and by position.
#include "core/model/circuits/patching.h"

#include "core/model/next_token.h"
#include "core/model/prompt_compare.h"

#include <algorithm>
#include <limits>

namespace core::model {

namespace {

void check(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& m) {
    const ModelConfig& c = model.config();
    if (!model.unembedding().weight) throw InputError(c.name + " has no LM head: patching scores its logits");
    if (clean.empty() || corrupt.empty()) throw InputError("patching needs a clean and a corrupted prompt of at least one token each");
    model.check_ids(clean, 0);
    model.check_ids(corrupt, 0);
    if (m.loss && (!model.causal() || clean.size() != corrupt.size() || clean.size() < 2))
        throw InputError("the loss metric needs a model that predicts the next token and two prompts of one length (at least 2 tokens); these have " +
                         std::to_string(clean.size()) + " and " + std::to_string(corrupt.size()));
    for (const int id : {m.answer, m.vs})
        if (!m.loss && (id < 0 || id >= c.vocab))
            throw InputError("answer id " + std::to_string(id) + " is outside " + c.name + "'s vocabulary (0 … " + std::to_string(c.vocab - 1) + ")");
}

// The logits of `id` for rows of a head input (rows, width), one block of the vocabulary's.
Eigen::VectorXd logits_of(const Model& model, const MatrixF& input, int id) {
    const int v0 = id / Model::head_block * Model::head_block, v1 = std::min(v0 + Model::head_block, model.config().vocab);
    MatrixF out(input.rows(), v1 - v0); // (rows, v1 − v0)
    model.head_logits(input.data(), static_cast<int>(input.rows()), v0, v1, out.data(), out.cols());
    return out.col(id - v0).cast<double>();
}

// Each copy's metric from hidden (copies · t, D), runs of the corrupted prompt (or the clean one).
std::vector<double> metrics(const Model& model, const MatrixF& hidden, int t, const std::vector<int>& clean, const PatchMetric& m) {
    if (m.loss) return prompt_losses(model, hidden, clean);
    const Eigen::Index copies = hidden.rows() / t;
    MatrixF last(copies, hidden.cols()); // (copies, D) each copy's last position
    for (Eigen::Index c = 0; c < copies; ++c) last.row(c) = hidden.row((c + 1) * t - 1);
    const MatrixF input = model.head_input(last);
    const Eigen::VectorXd d = logits_of(model, input, m.answer) - logits_of(model, input, m.vs);
    return {d.data(), d.data() + d.size()};
}

ForwardOptions quiet(const PatchMetric& m, const std::atomic<bool>* cancel) {
    ForwardOptions o;
    o.attention = false;
    o.logits = Logits::none;
    o.last_position_only = !m.loss;
    o.cancel = cancel;
    return o;
}

// What every patch reuses: both runs' streams entering each layer, the corrupted run's head outputs
// with the clean run's at the aligned positions, and both metrics.
struct Runs {
    Alignment aligned;
    std::vector<MatrixF> clean_stream, corrupt_stream; // (layers) × (t, D) of each prompt
    std::vector<MatrixF> patch_from;                   // (layers) × (t_corrupt, heads · d_head)
    std::vector<bool> rows;                            // (t_corrupt) the aligned positions
    double clean = 0.0, corrupt = 0.0;
};

Runs prepare(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& m, const std::atomic<bool>* cancel) {
    Runs runs;
    runs.aligned = align_tokens(clean, corrupt);
    std::vector<MatrixF> clean_out;
    ForwardOptions o = quiet(m, cancel);
    o.residuals = &runs.clean_stream;
    o.head_outputs = &clean_out;
    runs.clean = metrics(model, model.forward(clean, o).hidden, static_cast<int>(clean.size()), clean, m)[0];
    o.residuals = &runs.corrupt_stream;
    o.head_outputs = &runs.patch_from;
    runs.corrupt = metrics(model, model.forward(corrupt, o).hidden, static_cast<int>(corrupt.size()), clean, m)[0];
    runs.rows.assign(corrupt.size(), false);
    for (int k = 0; k < runs.aligned.size(); ++k) {
        const int a = runs.aligned.a[static_cast<std::size_t>(k)], b = runs.aligned.b[static_cast<std::size_t>(k)];
        runs.rows[static_cast<std::size_t>(b)] = true;
        for (std::size_t l = 0; l < runs.patch_from.size(); ++l) runs.patch_from[l].row(b) = clean_out[l].row(a);
    }
    return runs;
}

double recovery(const Runs& runs, double m) { return (m - runs.corrupt) / (runs.clean - runs.corrupt); }

// Head (l, h) patched in copy h − h0 of a rerun from layer l, a batch of heads at a time.
void by_head(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& m, const Runs& runs,
             ForwardOptions& o, Patching& out, const std::function<void(int, int)>& progress) {
    const ModelConfig& c = model.config();
    const int t = static_cast<int>(corrupt.size()), batch = std::clamp(2048 / t, 1, c.heads);
    out.recovery.resize(c.layers, c.heads);
    o.patch_from = &runs.patch_from;
    o.patch_rows = runs.rows;
    for (int l = 0; l < c.layers; ++l) {
        o.resume_layer = l;
        o.resume_from = &runs.corrupt_stream[static_cast<std::size_t>(l)];
        for (int h0 = 0; h0 < c.heads; h0 += batch) {
            const int h1 = std::min(c.heads, h0 + batch);
            o.copies.clear();
            for (int h = h0; h < h1; ++h) o.copies.push_back({{l, h}});
            const std::vector<double> ms = metrics(model, model.forward(corrupt, o).hidden, t, clean, m);
            for (int h = h0; h < h1; ++h) out.recovery(l, h) = recovery(runs, ms[static_cast<std::size_t>(h - h0)]);
            if (progress) progress(l * c.heads + h1, c.layers * c.heads);
        }
    }
}

// The stream entering layer l at aligned position b set to the clean run's, one copy per position.
void by_position(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& m, const Runs& runs,
                 ForwardOptions& o, Patching& out, const std::function<void(int, int)>& progress) {
    const ModelConfig& c = model.config();
    const int t = static_cast<int>(corrupt.size()), n = runs.aligned.size(), batch = std::clamp(2048 / t, 1, std::max(n, 1));
    out.recovery = core::Matrix::Constant(c.layers, t, std::numeric_limits<double>::quiet_NaN());
    for (int l = 0; l < c.layers; ++l) {
        const MatrixF& corrupt_l = runs.corrupt_stream[static_cast<std::size_t>(l)]; // (t, D)
        const MatrixF& clean_l = runs.clean_stream[static_cast<std::size_t>(l)];
        o.resume_layer = l;
        for (int k0 = 0; k0 < n; k0 += batch) {
            const int k1 = std::min(n, k0 + batch);
            MatrixF streams = corrupt_l.replicate(k1 - k0, 1); // (copies · t, D)
            for (int k = k0; k < k1; ++k)
                streams.row((k - k0) * t + runs.aligned.b[static_cast<std::size_t>(k)]) = clean_l.row(runs.aligned.a[static_cast<std::size_t>(k)]);
            o.copies.assign(static_cast<std::size_t>(k1 - k0), {});
            o.resume_from = &streams;
            const std::vector<double> ms = metrics(model, model.forward(corrupt, o).hidden, t, clean, m);
            for (int k = k0; k < k1; ++k) out.recovery(l, runs.aligned.b[static_cast<std::size_t>(k)]) = recovery(runs, ms[static_cast<std::size_t>(k - k0)]);
            if (progress) progress(l * n + k1, c.layers * n);
        }
    }
}

} // namespace

Patching activation_patching(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& metric,
                             PatchBy by, const std::atomic<bool>* cancel, const std::function<void(int, int)>& progress) {
    check(model, clean, corrupt, metric);
    const Runs runs = prepare(model, clean, corrupt, metric, cancel);
    Patching out;
    out.by = by;
    out.metric = metric;
    out.clean_metric = runs.clean;
    out.corrupt_metric = runs.corrupt;
    ForwardOptions o = quiet(metric, cancel);
    if (by == PatchBy::head) by_head(model, clean, corrupt, metric, runs, o, out, progress);
    else by_position(model, clean, corrupt, metric, runs, o, out, progress);
    return out;
}

double patched_metric(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& metric,
                      const std::vector<HeadRef>& heads) {
    check(model, clean, corrupt, metric);
    const Runs runs = prepare(model, clean, corrupt, metric, nullptr);
    ForwardOptions o = quiet(metric, nullptr);
    o.patch_from = &runs.patch_from;
    o.patch_rows = runs.rows;
    o.patch = heads;
    return metrics(model, model.forward(corrupt, o).hidden, static_cast<int>(corrupt.size()), clean, metric)[0];
}

} // namespace core::model
