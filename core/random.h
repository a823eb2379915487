// core/random.h — NumPy's default generator: np.random.default_rng(seed).
//
// PCG64 (XSL-RR output on a 128-bit LCG) seeded through NumPy's SeedSequence, and NumPy's
// standard normal sampler (a 256-layer ziggurat), so that
//     NumpyRng(seed).normal(n, d)  ==  np.random.default_rng(seed).normal(size=(n, d))
// bit for bit, for any seed.
#pragma once

#include "core/scenario.h"

#include <cstdint>
#include <vector>

namespace core {

class NumpyRng {
public:
    explicit NumpyRng(std::uint64_t seed);
    // A seed past 64 bits, as its 32-bit words, least significant first (how NumPy splits an int).
    explicit NumpyRng(const std::vector<std::uint32_t>& seed_words);

    std::uint64_t next_uint64();   // PCG64().random_raw()
    double next_double();          // rng.random(): 53 random bits in [0, 1)
    double standard_normal();      // rng.standard_normal() / rng.normal()
    Matrix normal(int rows, int cols); // (rows, cols), filled row by row as NumPy fills C order

private:
    __extension__ typedef unsigned __int128 u128;
    u128 state_ = 0;
    u128 inc_ = 0;
};

} // namespace core
