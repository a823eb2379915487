// core/heads/probe.h — the probe sequence that brings out induction heads: random tokens, repeated.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace core::heads {

// [bos,] r₁ … r_m, r₁ … r_m: m distinct token ids drawn from 0 … vocab−1 without those in `exclude`
// (the special tokens), repeated twice, after BOS when `bos` is given; 2m (+1) ids.
// The draw is a partial Fisher–Yates shuffle of the allowed ids in increasing order, driven by NumPy's
// default generator (core::NumpyRng, PCG64): step k swaps position k with k + ⌊u · (n − k)⌋, u =
// rng.random(), so that
//     rng = np.random.default_rng(seed); p = allowed.copy()
//     for k in range(m): j = k + int(rng.random() * (n - k)); p[k], p[j] = p[j], p[k]
// gives r = p[:m] in NumPy. Throws std::invalid_argument when m < 1 or fewer than m ids are allowed.
std::vector<int> probe_sequence(int m, std::uint64_t seed, int vocab, const std::vector<int>& exclude = {},
                                std::optional<int> bos = std::nullopt);

} // namespace core::heads
