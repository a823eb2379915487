// core/heads/probe.cpp — the probe sequence, drawn as NumPy draws it.
#include "core/heads/probe.h"

#include "core/random.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace core::heads {

std::vector<int> probe_sequence(int m, std::uint64_t seed, int vocab, const std::vector<int>& exclude, std::optional<int> bos) {
    if (m < 1) throw std::invalid_argument("the probe needs at least 1 token, not " + std::to_string(m));
    std::vector<char> excluded(static_cast<size_t>(std::max(vocab, 0)), 0);
    for (int id : exclude)
        if (id >= 0 && id < vocab) excluded[static_cast<size_t>(id)] = 1;
    std::vector<int> pool;
    for (int id = 0; id < vocab; ++id)
        if (!excluded[static_cast<size_t>(id)]) pool.push_back(id);
    const int n = static_cast<int>(pool.size());
    if (n < m)
        throw std::invalid_argument("the probe needs " + std::to_string(m) + " distinct tokens; the vocabulary has " + std::to_string(n) +
                                    " that are not special");
    core::NumpyRng rng(seed);
    for (int k = 0; k < m; ++k) {
        const int j = k + std::min(n - k - 1, static_cast<int>(rng.next_double() * (n - k)));
        std::swap(pool[static_cast<size_t>(k)], pool[static_cast<size_t>(j)]);
    }
    std::vector<int> ids;
    if (bos) ids.push_back(*bos);
    for (int copy = 0; copy < 2; ++copy) ids.insert(ids.end(), pool.begin(), pool.begin() + m);
    return ids;
}

} // namespace core::heads
