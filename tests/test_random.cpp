// NumPy's default_rng in core/random: raw PCG64 output and normals bit-equal to NumPy's (fixtures
// printed by NumPy: tests/fixtures/make_fixtures.py), and arrays printed as NumPy prints them.
#include "core/numpy_print.h"
#include "core/random.h"
#include "tests/fixture_files.h"

#include <nlohmann/json.hpp>

#include <cstring>

using nlohmann::json;

namespace {

const json& rng_fixture() {
    static const json j = json::parse(fixtures::read(fixtures::path("rng.json")));
    return j;
}

// The seed's 32-bit words, least significant first, from its decimal text.
std::vector<std::uint32_t> seed_words(std::string decimal) {
    std::vector<std::uint32_t> words;
    while (decimal != "0" && !decimal.empty()) {
        std::string quotient;
        std::uint64_t rem = 0;
        for (char c : decimal) {
            rem = rem * 10 + static_cast<std::uint64_t>(c - '0');
            const std::uint64_t q = rem >> 32;
            rem &= 0xffffffffULL;
            if (!quotient.empty() || q) quotient += std::to_string(q);
        }
        words.push_back(static_cast<std::uint32_t>(rem));
        decimal = quotient.empty() ? "0" : quotient;
    }
    return words.empty() ? std::vector<std::uint32_t>{0} : words;
}

} // namespace

TEST_CASE("PCG64 seeded through SeedSequence gives NumPy's raw numbers, for small and huge seeds") {
    CHECK(seed_words("4294967301") == std::vector<std::uint32_t>{5, 1});
    for (const auto& [seed, draws] : rng_fixture()["seeds"].items()) {
        const std::string& seed_key = seed; // INFO cannot name a structured binding under clang
        INFO("seed " << seed_key);
        core::NumpyRng rng(seed_words(seed));
        for (const json& raw : draws["raw"]) CHECK(std::to_string(rng.next_uint64()) == raw.get<std::string>());
    }
    core::NumpyRng a(std::uint64_t{4294967301}), b(std::vector<std::uint32_t>{5, 1});
    CHECK(a.next_uint64() == b.next_uint64());
}

TEST_CASE("default_rng(seed).normal() draws NumPy's numbers") {
    int total = 0;
    for (const auto& [seed, draws] : rng_fixture()["seeds"].items()) {
        const std::string& seed_key = seed; // INFO cannot name a structured binding under clang
        INFO("seed " << seed_key);
        core::NumpyRng rng(seed_words(seed));
        for (const json& want : draws["normal"]) {
            CHECK(rng.standard_normal() == want.get<double>());
            ++total;
        }
    }
    CHECK(total == 1400);
}

namespace {

const json& normal_fixture() {
    static const json j = json::parse(fixtures::read(fixtures::path("normal.json")));
    return j;
}

std::uint64_t bits_of(double x) {
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

} // namespace

TEST_CASE("10^6 normals per seed are NumPy's bit for bit, through the rectangles, the wedges and the tail") {
    for (const auto& [seed, want] : normal_fixture()["seeds"].items()) {
        const std::string& seed_key = seed; // INFO cannot name a structured binding under clang
        INFO("seed " << seed_key);
        const auto count = want["count"].get<std::size_t>();
        std::vector<double> got(count);
        core::NumpyRng rng(seed_words(seed));
        std::uint64_t hash = 0;
        for (std::size_t i = 0; i < count; ++i) {
            got[i] = rng.standard_normal();
            hash += bits_of(got[i]) * (2 * i + 1); // wraps modulo 2^64, as the fixture's sum
        }
        for (std::size_t i = 0; i < want["first"].size(); ++i) CHECK(got[i] == want["first"][i].get<double>());
        REQUIRE(want["tail"].size() > 200); // past r ≈ 3.654: the tail sampler's draws
        for (const json& t : want["tail"]) CHECK(got[t[0].get<std::size_t>()] == t[1].get<double>());
        REQUIRE(want["wedge"].size() > 20); // outside a rectangle, accepted under the curve
        for (const json& w : want["wedge"]) CHECK(got[w[0].get<std::size_t>()] == w[1].get<double>());
        CHECK(std::to_string(hash) == want["bits_hash"].get<std::string>());
        CHECK(std::to_string(rng.next_uint64()) == want["next_raw"].get<std::string>()); // as many raw numbers used
    }
}

TEST_CASE("normal(rows, cols) fills row by row, as NumPy's normal(size=(rows, cols)) one call after another") {
    core::NumpyRng rng(7);
    for (const json& s : normal_fixture()["shapes_seed_7"]) {
        const core::Matrix want = fixtures::matrix(s["values"]);
        INFO("shape " << want.rows() << " x " << want.cols());
        CHECK(rng.normal(static_cast<int>(want.rows()), static_cast<int>(want.cols())) == want);
    }
}

TEST_CASE("the article's Q, K, V: default_rng(0).normal(size=(4, 8)) three times") {
    const json& art = rng_fixture()["article"];
    core::NumpyRng rng(0);
    for (const char* name : {"Q", "K", "V"}) {
        INFO(name);
        const core::Matrix want = fixtures::matrix(art[name]); // (4, 8)
        CHECK(rng.normal(4, 8) == want); // (4, 8)
    }
}

TEST_CASE("a matrix printed as NumPy prints m.round(decimals)") {
    const json& art = rng_fixture()["article"];
    CHECK(core::numpy_print_rounded(fixtures::matrix(art["weights"]), 2) == art["print_w_round_2"].get<std::string>());
    core::Matrix m(2, 3);
    m << 1, -0.5, 0.125, 10.25, 0.001, -3;
    CHECK(core::numpy_print_rounded(m, 2) == "[[ 1.   -0.5   0.12]\n [10.25  0.   -3.  ]]");
    CHECK(core::numpy_print_rounded(m, 3) == "");  // 0.001 next to 10.25: NumPy switches to e-notation
    const std::string python = fixtures::numpy_python();
    if (python.empty()) return;
    CHECK(fixtures::run_python(python, "import numpy as np\nprint(np.array([[1, -0.5, 0.125], [10.25, 0.001, -3]]).round(2))\n") ==
          core::numpy_print_rounded(m, 2) + "\n");
}
