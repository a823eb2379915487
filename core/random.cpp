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
// 256 layers of equal area v under exp(-x²/2), the base one ending in the tail past r. NumPy ships
// its tables as literals made once by a script that runs Marsaglia and Tsang's recurrence in
// double precision; we run the same recurrence with the same roundings at start-up, so the tables
// (and every draw) are NumPy's bit for bit. exp and log are rounded correctly (evaluated in
// binary128, then rounded once), so the result does not depend on this machine's libm.

namespace {

constexpr double zig_r = 3.6541528853610087963519472518;  // where the tail starts
constexpr double zig_inv_r = 0.27366123732975827203338247596;
constexpr double zig_v = 0.0049286732339746519;            // area of each layer
constexpr double two_52 = 4503599627370496.0;              // magnitudes are 52-bit integers

// The one place where the libm that made NumPy's tables did not round correctly: exp at this
// argument (x²/2 at the 218th layer edge from the tail) lies 0.0017 units in the last place below a
// midpoint, and that libm returned the double above it. The recurrence meets this argument twice
// (the next edge, and that edge's density); with the double below, 37 edges, 38 densities and 17
// thresholds nearer the peak come out one or more units off.
constexpr double exp_arg_rounded_up = -0x1.8edbf8bb15d43p-2;

#if defined(__x86_64__)
// binary128 from libquadmath, declared here: clang does not see gcc's quadmath.h.
__extension__ typedef __float128 quad;
extern "C" quad expq(quad);
extern "C" quad logq(quad);
#else
typedef long double quad; // binary128 on aarch64
quad expq(quad a) { return std::exp(a); }
quad logq(quad a) { return std::log(a); }
#endif

double exp_as_generated(double a) {
    const double e = static_cast<double>(expq(static_cast<quad>(a)));
    return a == exp_arg_rounded_up ? std::nextafter(e, 1.0) : e;
}

double log_rounded(double a) { return static_cast<double>(logq(static_cast<quad>(a))); }

double pdf(double x) { return exp_as_generated(-0.5 * x * x); }

std::uint64_t round_even(double a) { return static_cast<std::uint64_t>(std::nearbyint(a)); } // ties to even, as np.round

struct Ziggurat {
    std::array<std::uint64_t, 256> k{}; // accept at once when the magnitude is below k[i]
    std::array<double, 256> w{};        // magnitude → x
    std::array<double, 256> f{};        // exp(-x²/2) at each layer's edge

    Ziggurat() {
        // Layer edges from the tail inwards: x_0 = r, and the layer between x_(i-1) and x_i has
        // area v. Stored peak first: edge[j] = x_(255-j), edge[0] = 0.
        std::array<double, 256> edge{};
        double x = zig_r;
        edge[255] = x;
        for (std::size_t j = 254; j > 0; --j) {
            x = std::sqrt(-2.0 * log_rounded(pdf(x) + zig_v / x));
            edge[j] = x;
        }
        for (std::size_t j = 1; j < 256; ++j) {
            k[j] = round_even(edge[j - 1] / edge[j] * two_52);
            w[j] = edge[j] / two_52;
        }
        k[0] = round_even(zig_r * pdf(zig_r) / zig_v * two_52); // the base layer's rectangle part
        w[0] = zig_v / pdf(zig_r) / two_52;
        for (std::size_t j = 0; j < 256; ++j) f[j] = pdf(edge[j]);
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
                const double xx = -zig_inv_r * std::log1p(-next_double());
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
