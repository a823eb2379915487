// core/model/next_token.cpp — the LM head streamed over the vocabulary: per block and row, the
// largest logit, Σ exp and the top candidates; then per row, the merge.
//
//   1. per block b (ids v0 … v1−1), per row i:  m_bi = max logit, s_bi = Σ exp(logit − m_bi),
//      the target's logit when it falls in b, the block's `top` largest (id, logit)
//   2. per row:  M = max_b m_bi,  log Z = M + log Σ_b s_bi exp(m_bi − M),
//      loss term log Z − target logit,  top = the best of the blocks' candidates, p = exp(v − log Z)
#include "core/model/next_token.h"

#include "core/model/ops.h"
#include "core/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace core::model {

namespace {

// Higher logit first, the lower id on a tie.
bool better(const Candidate& a, const Candidate& b) { return a.logit > b.logit || (a.logit == b.logit && a.id < b.id); }

// Each of `lanes` columns of the row (values j ≡ c mod lanes) has its largest; those are `lanes`
// logits, so the top-th largest of them is at most the row's top-th largest. False when there is no
// such floor: fewer columns than `top`, or a NaN (then every logit is offered in order).
constexpr int lanes = 16;

bool floor_of_top(const float* row, int n, int top, float* least) {
    if (top > lanes || n < lanes) return false;
    float most[lanes];
    int nan = 0;
    for (int c = 0; c < lanes; ++c) most[c] = row[c];
    int j = lanes;
    for (; j + lanes <= n; j += lanes)
        for (int c = 0; c < lanes; ++c) {
            const float v = row[j + c];
            nan |= v != v;
            most[c] = v > most[c] ? v : most[c];
        }
    for (int c = 0; c < lanes; ++c) nan |= most[c] != most[c];
    for (; j < n; ++j) nan |= row[j] != row[j];
    if (nan) return false;
    std::nth_element(most, most + (top - 1), most + lanes, [](float a, float b) { return a > b; });
    *least = most[top - 1];
    return true;
}

bool any_at_least(const float* x, float least) {
    int hit = 0;
    for (int c = 0; c < lanes; ++c) hit |= x[c] >= least;
    return hit != 0;
}

struct Stream {
    const Model* model;
    const MatrixF* input;             // (rows, width) the head's input
    const std::vector<int>* targets;  // (rows) the id whose logit each row needs, or −1
    const std::vector<char>* want;    // (rows) 1 where the top is wanted
    int rows, vocab, top, blocks;
    std::vector<float> max;           // (blocks, rows)
    std::vector<double> sum;          // (blocks, rows)
    std::vector<float> target_logit;  // (rows)
    std::vector<Candidate> candidates; // (blocks, rows, top)
    std::vector<int> counts;          // (blocks, rows)
    bool fast = false;                // the head's products fast (ForwardOptions::fast_products)

    static void block(void* context, std::ptrdiff_t b) { static_cast<Stream*>(context)->run(static_cast<int>(b)); }

    void run(int b) {
        thread_local MatrixF logits; // (rows, head_block)
        const int v0 = b * Model::head_block, v1 = std::min(vocab, v0 + Model::head_block), n = v1 - v0;
        logits.resize(rows, Model::head_block);
        model->head_logits(input->data(), rows, v0, v1, logits.data(), Model::head_block, fast);
        const ops::Set& op = ops::active();
        for (int i = 0; i < rows; ++i) {
            const float* row = logits.data() + static_cast<std::ptrdiff_t>(i) * Model::head_block;
            const std::size_t at = static_cast<std::size_t>(b) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(i);
            op.max_exp_sum(row, n, &max[at], &sum[at]);
            const int target = (*targets)[static_cast<std::size_t>(i)];
            if (target >= v0 && target < v1) target_logit[static_cast<std::size_t>(i)] = row[target - v0];
            if ((*want)[static_cast<std::size_t>(i)]) counts[at] = keep_top(row, v0, n, top, &candidates[at * static_cast<std::size_t>(top)]);
        }
    }

    // log Z of row i over every block.
    double log_normaliser(int i) const {
        float top_max = -std::numeric_limits<float>::infinity();
        for (int b = 0; b < blocks; ++b) top_max = std::max(top_max, max[static_cast<std::size_t>(b) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(i)]);
        double z = 0.0;
        for (int b = 0; b < blocks; ++b) {
            const std::size_t at = static_cast<std::size_t>(b) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(i);
            z += sum[at] * std::exp(static_cast<double>(max[at]) - static_cast<double>(top_max));
        }
        return static_cast<double>(top_max) + std::log(z);
    }

    std::vector<TopToken> merged_top(int i, double log_z) const {
        std::vector<Candidate> all;
        for (int b = 0; b < blocks; ++b) {
            const std::size_t at = static_cast<std::size_t>(b) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(i);
            all.insert(all.end(), candidates.begin() + static_cast<std::ptrdiff_t>(at) * top,
                       candidates.begin() + static_cast<std::ptrdiff_t>(at) * top + counts[at]);
        }
        const auto keep = std::min<std::size_t>(all.size(), static_cast<std::size_t>(top));
        std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(), better);
        std::vector<TopToken> out;
        for (std::size_t k = 0; k < keep; ++k) out.push_back({all[k].id, std::exp(static_cast<double>(all[k].logit) - log_z)});
        return out;
    }
};

Stream stream(const Model& model, const MatrixF& input, const std::vector<int>& targets, const std::vector<char>& want, int top, bool fast = false) {
    Stream s{&model, &input, &targets, &want, static_cast<int>(input.rows()), model.config().vocab, std::max(top, 1), 0, {}, {}, {}, {}, {}, fast};
    s.blocks = (s.vocab + Model::head_block - 1) / Model::head_block;
    const std::size_t cells = static_cast<std::size_t>(s.blocks) * static_cast<std::size_t>(s.rows);
    s.max.resize(cells);
    s.sum.resize(cells);
    s.target_logit.assign(static_cast<std::size_t>(s.rows), 0.0f);
    s.counts.assign(cells, 0);
    if (std::find(want.begin(), want.end(), 1) != want.end()) s.candidates.resize(cells * static_cast<std::size_t>(s.top));
    core::parallel::for_each(s.blocks, &Stream::block, &s);
    return s;
}

void check(const Model& model, const MatrixF& hidden, std::size_t t) {
    const ModelConfig& c = model.config();
    if (!model.unembedding().weight) throw InputError(c.name + " has no LM head: it predicts no tokens");
    if (hidden.cols() != c.d_model || t == 0 || hidden.rows() % static_cast<Eigen::Index>(t) != 0)
        throw InputError("next tokens: hidden states (" + std::to_string(hidden.rows()) + ", " + std::to_string(hidden.cols()) + ") for " +
                         std::to_string(t) + " tokens of " + c.name);
}

} // namespace

// Only logits at or above a floor under the top-th largest can be among the best, so only those are
// offered, in id order: the same candidates as offering every logit, from a few dozen insertions.
int keep_top(const float* row, int v0, int n, int top, Candidate* out) {
    int count = 0;
    const auto offer = [&](int j) {
        if (count == top && !(row[j] > out[count - 1].logit)) return; // ids rise: a tie keeps the lower
        int k = count < top ? count++ : top - 1;
        for (; k > 0 && row[j] > out[k - 1].logit; --k) out[k] = out[k - 1];
        out[k] = {row[j], v0 + j};
    };
    if (top < 1) return 0;
    float least = 0.0f;
    if (!floor_of_top(row, n, top, &least)) {
        for (int j = 0; j < n; ++j) offer(j);
        return count;
    }
    int j = 0;
    for (; j + lanes <= n; j += lanes)
        if (any_at_least(row + j, least))
            for (int i = j; i < j + lanes; ++i)
                if (row[i] >= least) offer(i);
    for (; j < n; ++j)
        if (row[j] >= least) offer(j);
    return count;
}

NextTokens next_tokens(const Model& model, const MatrixF& hidden, const std::vector<int>& ids, int top, const std::vector<bool>& rows, bool fast) {
    check(model, hidden, ids.size());
    const int t = static_cast<int>(ids.size());
    if (hidden.rows() != t || (!rows.empty() && rows.size() != ids.size()))
        throw InputError("next tokens: " + std::to_string(hidden.rows()) + " rows of hidden states for " + std::to_string(t) + " tokens");
    const bool loss = model.causal() && t >= 2;
    std::vector<int> targets(static_cast<std::size_t>(t), -1);
    for (int i = 0; loss && i + 1 < t; ++i) targets[static_cast<std::size_t>(i)] = ids[static_cast<std::size_t>(i) + 1];
    std::vector<char> want(static_cast<std::size_t>(t), top > 0 ? 1 : 0);
    for (std::size_t i = 0; i < rows.size(); ++i) want[i] = want[i] && rows[i];
    const Stream s = stream(model, model.head_input(hidden), targets, want, top, fast);
    NextTokens out;
    out.top.resize(static_cast<std::size_t>(t));
    double total = 0.0;
    for (int i = 0; i < t; ++i) {
        if (!want[static_cast<std::size_t>(i)] && targets[static_cast<std::size_t>(i)] < 0) continue;
        const double log_z = s.log_normaliser(i);
        if (want[static_cast<std::size_t>(i)]) out.top[static_cast<std::size_t>(i)] = s.merged_top(i, log_z);
        if (targets[static_cast<std::size_t>(i)] >= 0) total += log_z - static_cast<double>(s.target_logit[static_cast<std::size_t>(i)]);
    }
    if (loss) out.loss = total / (t - 1);
    return out;
}

std::vector<double> prompt_losses(const Model& model, const MatrixF& hidden, const std::vector<int>& ids) {
    check(model, hidden, ids.size());
    const int t = static_cast<int>(ids.size()), copies = static_cast<int>(hidden.rows()) / t;
    if (t < 2) return {};
    std::vector<int> targets(static_cast<std::size_t>(copies) * static_cast<std::size_t>(t), -1);
    for (int c = 0; c < copies; ++c)
        for (int i = 0; i + 1 < t; ++i) targets[static_cast<std::size_t>(c * t + i)] = ids[static_cast<std::size_t>(i) + 1];
    const Stream s = stream(model, model.head_input(hidden), targets, std::vector<char>(targets.size(), 0), 0);
    std::vector<double> out(static_cast<std::size_t>(copies), 0.0);
    for (int c = 0; c < copies; ++c) {
        double total = 0.0;
        for (int i = 0; i + 1 < t; ++i) total += s.log_normaliser(c * t + i) - static_cast<double>(s.target_logit[static_cast<std::size_t>(c * t + i)]);
        out[static_cast<std::size_t>(c)] = total / (t - 1);
    }
    return out;
}

} // namespace core::model
