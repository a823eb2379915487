// core/random.cpp — PCG64, SeedSequence and the ziggurat, written from NumPy's documented algorithms.
//
// [SECTION] SeedSequence
// [SECTION] PCG64
// [SECTION] the normal ziggurat
#include "core/random.h"

#include <array>
#include <cmath>

namespace core {

// [SECTION] SeedSequence ------------------------------------------------------------------------
// NumPy hashes the seed's 32-bit words into a pool of 4 words, then draws the generator's state
// from the pool with a second hash (after Melissa O'Neill's seed_seq).

namespace {

constexpr std::uint32_t init_a = 0x43b0d7e5, mult_a = 0x931e8875;
constexpr std::uint32_t init_b = 0x8b51f9dd, mult_b = 0x58f38ded;
constexpr std::uint32_t mix_mult_l = 0xca01f9dd, mix_mult_r = 0x4973f715;
constexpr int xshift = 16;
constexpr std::size_t pool_size = 4;

std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hash_const) {
    value ^= hash_const;
    hash_const *= mult_a;
    value *= hash_const;
    return value ^ (value >> xshift);
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) {
    const std::uint32_t r = mix_mult_l * x - mix_mult_r * y;
    return r ^ (r >> xshift);
}

std::array<std::uint32_t, pool_size> mix_entropy(const std::vector<std::uint32_t>& entropy) {
    std::array<std::uint32_t, pool_size> pool{};
    std::uint32_t hash_const = init_a;
    for (std::size_t i = 0; i < pool_size; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0, hash_const);
    for (std::size_t src = 0; src < pool_size; ++src)
        for (std::size_t dst = 0; dst < pool_size; ++dst)
            if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash_const));
    for (std::size_t src = pool_size; src < entropy.size(); ++src)
        for (std::size_t dst = 0; dst < pool_size; ++dst) pool[dst] = mix(pool[dst], hashmix(entropy[src], hash_const));
    return pool;
}

// generate_state(n, uint64): 2n 32-bit words, paired little-end first.
std::vector<std::uint64_t> generate_state(const std::array<std::uint32_t, pool_size>& pool, std::size_t n) {
    std::vector<std::uint64_t> out(n, 0);
    std::uint32_t hash_const = init_b;
    for (std::size_t i = 0; i < 2 * n; ++i) {
        std::uint32_t v = pool[i % pool_size] ^ hash_const;
        hash_const *= mult_b;
        v *= hash_const;
        v ^= v >> xshift;
        out[i / 2] |= static_cast<std::uint64_t>(v) << (32 * (i % 2));
    }
    return out;
}

std::vector<std::uint32_t> words_of(std::uint64_t seed) {
    if (seed >> 32) return {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
    return {static_cast<std::uint32_t>(seed)}; // 0 is one zero word, as in NumPy
}

} // namespace

// [SECTION] PCG64 -------------------------------------------------------------------------------

NumpyRng::NumpyRng(std::uint64_t seed) : NumpyRng(words_of(seed)) {}

NumpyRng::NumpyRng(const std::vector<std::uint32_t>& seed_words) {
    const std::vector<std::uint64_t> s = generate_state(mix_entropy(seed_words.empty() ? std::vector<std::uint32_t>{0} : seed_words), 4);
    const u128 init_state = (static_cast<u128>(s[0]) << 64) | s[1];
    const u128 init_seq = (static_cast<u128>(s[2]) << 64) | s[3];
    // PCG's srandom: the increment must be odd; step, add the initial state, step.
    inc_ = (init_seq << 1) | 1u;
    state_ = 0;
    next_uint64();
    state_ += init_state;
    next_uint64();
}

std::uint64_t NumpyRng::next_uint64() {
    const u128 multiplier = (static_cast<u128>(0x2360ed051fc65da4ULL) << 64) | 0x4385df649fccf645ULL;
    state_ = state_ * multiplier + inc_;
    // XSL-RR: xor the halves, rotate right by the top 6 bits.
    const auto folded = static_cast<std::uint64_t>(state_ >> 64) ^ static_cast<std::uint64_t>(state_);
    const unsigned rot = static_cast<unsigned>(state_ >> 122);
    return (folded >> rot) | (folded << ((64 - rot) & 63));
}

double NumpyRng::next_double() { return static_cast<double>(next_uint64() >> 11) * (1.0 / 9007199254740992.0); }

// [SECTION] the normal ziggurat -----------------------------------------------------------------
// 256 layers of equal area v under exp(-x²/2), the base one ending in the tail past r. The tables
// are computed once from their defining recurrence (Marsaglia and Tsang), for 52-bit magnitudes,
// in long double. NumPy ships tables made with a slightly different recipe: ours differ from them
// by at most ~80 units in the last place, so a draw can differ from NumPy's in its last digits
// (relative 2e-14), and which branch a draw takes differs with odds of about 1e-14.

namespace {

constexpr long double zig_r_exact = 3.6541528853610087963519472518L; // where the tail starts
constexpr long double zig_v = 4.92867323397465524494e-3L;             // area of each layer
constexpr long double two_52 = 4503599627370496.0L;                   // magnitudes are 52-bit integers
constexpr double zig_r = static_cast<double>(zig_r_exact);

struct Ziggurat {
    std::array<std::uint64_t, 256> k{}; // accept at once when the magnitude is below k[i]
    std::array<double, 256> w{};        // magnitude → x
    std::array<double, 256> f{};        // exp(-x²/2) at each layer's edge

    Ziggurat() {
        long double x1 = zig_r_exact;
        long double f_next = std::exp(-0.5L * x1 * x1);
        w[255] = static_cast<double>(x1 / two_52);
        f[255] = static_cast<double>(f_next);
        k[0] = static_cast<std::uint64_t>(x1 * f_next / zig_v * two_52);
        w[0] = static_cast<double>(zig_v / f_next / two_52);
        f[0] = 1.0;
        for (std::size_t i = 254; i > 0; --i) { // x_i from x_(i+1): the layer between them has area v
            const long double x = std::sqrt(-2.0L * std::log(zig_v / x1 + f_next));
            k[i + 1] = static_cast<std::uint64_t>(x / x1 * two_52);
            w[i] = static_cast<double>(x / two_52);
            f_next = std::exp(-0.5L * x * x);
            f[i] = static_cast<double>(f_next);
            x1 = x;
        }
        k[1] = 0;
    }
};

const Ziggurat& ziggurat() {
    static const Ziggurat z;
    return z;
}

} // namespace

double NumpyRng::standard_normal() {
    const Ziggurat& z = ziggurat();
    for (;;) {
        std::uint64_t r = next_uint64();
        const auto idx = static_cast<std::size_t>(r & 0xff);
        r >>= 8;
        const bool negative = r & 1;
        const std::uint64_t magnitude = (r >> 1) & 0x000fffffffffffffULL;
        double x = static_cast<double>(magnitude) * z.w[idx];
        if (negative) x = -x;
        if (magnitude < z.k[idx]) return x; // inside the layer's rectangle: most draws end here
        if (idx == 0) {                     // the tail beyond r
            for (;;) {
                const double xx = -(1.0 / zig_r) * std::log1p(-next_double());
                const double yy = -std::log1p(-next_double());
                if (yy + yy > xx * xx) return ((magnitude >> 8) & 1) ? -(zig_r + xx) : zig_r + xx;
            }
        }
        if ((z.f[idx - 1] - z.f[idx]) * next_double() + z.f[idx] < std::exp(-0.5 * x * x)) return x;
    }
}

Matrix NumpyRng::normal(int rows, int cols) {
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = standard_normal();
    return m;
}

} // namespace core
