// core/model/prompt_compare.cpp — aligning two token sequences and comparing every head's map on them.
#include "core/model/prompt_compare.h"

#include "core/heads/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace core::model {

namespace {

// The middle of the two sequences (after their shared prefix, before their shared suffix): a
// longest common subsequence by the usual table, traced back from the end. Pairs (i, j) increasing.
std::vector<std::pair<int, int>> common_subsequence(const int* a, int n, const int* b, int m) {
    if (static_cast<double>(n + 1) * (m + 1) > 64e6)
        throw InputError("the two prompts differ in " + std::to_string(n) + " and " + std::to_string(m) + " tokens: too many to align");
    const std::size_t w = static_cast<std::size_t>(m) + 1;
    std::vector<std::int32_t> L((static_cast<std::size_t>(n) + 1) * w, 0); // L[i][j]: LCS of a[i…], b[j…]
    for (int i = n - 1; i >= 0; --i)
        for (int j = m - 1; j >= 0; --j)
            L[i * w + j] = a[i] == b[j] ? L[(i + 1) * w + j + 1] + 1 : std::max(L[(i + 1) * w + j], L[i * w + j + 1]);
    std::vector<std::pair<int, int>> out;
    for (int i = 0, j = 0; i < n && j < m;) {
        if (a[i] == b[j]) out.emplace_back(i++, j++);
        else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) ++i;
        else ++j;
    }
    return out;
}

// The shared tokens, with the gaps between them paired position by position where they are as long.
Alignment with_equal_gaps(const std::vector<std::pair<int, int>>& shared, int n, int m) {
    Alignment al;
    int i0 = 0, j0 = 0;
    auto gap = [&](int i1, int j1) { // a[i0 … i1), b[j0 … j1) hold no shared token
        if (i1 - i0 == j1 - j0)
            for (int k = 0; k < i1 - i0; ++k) al.a.push_back(i0 + k), al.b.push_back(j0 + k);
    };
    for (const auto& p : shared) {
        gap(p.first, p.second);
        al.a.push_back(p.first);
        al.b.push_back(p.second);
        i0 = p.first + 1;
        j0 = p.second + 1;
    }
    gap(n, m);
    return al;
}

} // namespace

Alignment align_tokens(const std::vector<int>& first, const std::vector<int>& second) {
    const int n = static_cast<int>(first.size()), m = static_cast<int>(second.size());
    int prefix = 0;
    while (prefix < n && prefix < m && first[prefix] == second[prefix]) ++prefix;
    int suffix = 0;
    while (suffix < n - prefix && suffix < m - prefix && first[n - 1 - suffix] == second[m - 1 - suffix]) ++suffix;
    std::vector<std::pair<int, int>> shared;
    for (int k = 0; k < prefix; ++k) shared.emplace_back(k, k);
    for (const auto& p : common_subsequence(first.data() + prefix, n - prefix - suffix, second.data() + prefix, m - prefix - suffix))
        shared.emplace_back(p.first + prefix, p.second + prefix);
    for (int k = suffix; k > 0; --k) shared.emplace_back(n - k, m - k);
    return with_equal_gaps(shared, n, m);
}

Comparison compare_prompts(const ForwardResult& first, const std::vector<int>& first_ids, const ForwardResult& second,
                           const std::vector<int>& second_ids) {
    if (first.layers != second.layers || first.heads != second.heads)
        throw InputError("the two runs come from models of different sizes");
    if (first.t_new != first.t_total || second.t_new != second.t_total || first.t_total != static_cast<int>(first_ids.size()) ||
        second.t_total != static_cast<int>(second_ids.size()) || first.maps.empty() || second.maps.empty())
        throw InputError("comparing prompts needs each one's whole attention from its first position");
    Comparison c;
    c.aligned = align_tokens(first_ids, second_ids);
    c.layers = first.layers;
    c.heads = first.heads;
    const int n = c.aligned.size();
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
            const MatrixF A = first.maps.head(l, h);  // (t1, t1)
            const MatrixF B = second.maps.head(l, h); // (t2, t2)
            MatrixF P(n, n), Q(n, n); // (n, n) the aligned queries' weights on the aligned keys
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    P(i, j) = A(c.aligned.a[static_cast<std::size_t>(i)], c.aligned.a[static_cast<std::size_t>(j)]);
                    Q(i, j) = B(c.aligned.b[static_cast<std::size_t>(i)], c.aligned.b[static_cast<std::size_t>(j)]);
                }
            c.difference.push_back(Q - P);
            Eigen::VectorXd js = n ? core::heads::js_divergence_rows(P, Q) : Eigen::VectorXd();
            double sum = 0.0;
            int rows = 0;
            for (Eigen::Index i = 0; i < js.size(); ++i)
                if (std::isfinite(js[i])) sum += js[i], ++rows;
            c.mean_js.push_back(rows ? sum / rows : std::numeric_limits<double>::quiet_NaN());
            c.js.push_back(std::move(js));
        }
    return c;
}

} // namespace core::model
