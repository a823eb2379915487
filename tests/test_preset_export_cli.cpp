// attnviz --preset ID with --export WHAT --format FMT --out PATH: the preset's matrices come out as
// NumPy drew them (fixtures printed by NumPy) and as core::compute makes them, bit for bit.
#include "core/attention.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/presets.h"
#include "tests/fixture_files.h"
#include "tests/python.h"

#include "cli_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace {

core::Matrix matrix_of(const nlohmann::json& rows) {
    core::Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    return m;
}

// A 2-d .npy read back as a matrix; its shape checked.
core::Matrix npy_matrix(const core::io::Tensor& t) {
    REQUIRE(t.shape.size() == 2);
    core::Matrix m(t.shape[0], t.shape[1]);
    std::copy(t.values.begin(), t.values.end(), m.data());
    return m;
}

bool same_bits(const core::Matrix& a, const core::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
}

} // namespace

TEST_CASE("--preset numpy-example --export A/Q --format npy: the article's numbers, read back") {
    const std::string dir = test_python::temp_dir();
    const Run a = run({"--preset", "numpy-example", "--export", "A", "--format", "npy", "--out", dir + "/A.npy"});
    REQUIRE(a.code == 0);
    CHECK(a.err.empty());
    REQUIRE(run({"--preset", "numpy-example", "--export", "Q", "--format", "npy", "--out", dir + "/Q.npy"}).code == 0);
    const core::Matrix A = npy_matrix(core::io::read_npy(dir + "/A.npy")); // (4, 4)
    const core::Matrix Q = npy_matrix(core::io::read_npy(dir + "/Q.npy")); // (4, 8)

    const nlohmann::json article = nlohmann::json::parse(fixtures::read(fixtures::path("rng.json")))["article"];
    CHECK(Q == matrix_of(article["Q"])); // default_rng(0).normal(size=(4, 8)), as NumPy drew it
    CHECK(same_bits(A, core::compute(core::preset_numpy_example()).heads[0].weights));
    // NumPy's own softmax of the same Q and K: equal up to rounding.
    CHECK((A - matrix_of(article["weights"])).cwiseAbs().maxCoeff() < 1e-15);
    test_python::run_or_skip("import sys, numpy as np\n"
                             "rng = np.random.default_rng(0)\n"
                             "Q, K, V = (rng.normal(size=(4, 8)) for _ in range(3))\n"
                             "s = Q @ K.T / np.sqrt(8)\n"
                             "w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
                             "w /= w.sum(axis=-1, keepdims=True)\n"
                             "A = np.load(sys.argv[1] + '/A.npy')\n"
                             "assert A.dtype == np.float64 and A.shape == (4, 4)\n"
                             "assert np.abs(A - w).max() < 1e-15, np.abs(A - w).max()\n"
                             "assert (np.load(sys.argv[1] + '/Q.npy') == Q).all()\n",
                             {dir}, true);
}

TEST_CASE("--preset numpy-random --seed --tokens --dim --export all --format npz: Q, K, V as NumPy drew them") {
    const std::string dir = test_python::temp_dir();
    REQUIRE(run({"--preset", "numpy-random", "--seed", "3", "--tokens", "6", "--dim", "5", "--export", "all", "--format", "npz",
                 "--out", dir + "/all.npz"})
                .code == 0);
    const core::io::TensorFile npz = core::io::read_npz(dir + "/all.npz");
    const nlohmann::json fixture = nlohmann::json::parse(fixtures::read(fixtures::path("normal.json")))["numpy_random_preset"];
    const auto drawn = std::find_if(fixture.begin(), fixture.end(), [](const nlohmann::json& p) { return p["seed"] == "3"; });
    REQUIRE(drawn != fixture.end());
    for (const char* name : {"Q", "K", "V"}) {
        INFO(name);
        CHECK(npy_matrix(npz.tensors.at(name)) == matrix_of((*drawn)[name])); // (6, 5)
    }
    CHECK(npz.tensors.at("X").values.empty()); // given directly: X and the W's are empty
    const core::Result r = core::compute(core::numpy_random_qkv(3, 6, 5));
    CHECK(same_bits(npy_matrix(npz.tensors.at("A")), r.heads[0].weights));
}

TEST_CASE("--preset eight-heads --export with --head, and what does not fit, name the preset") {
    const std::string dir = test_python::temp_dir();
    REQUIRE(run({"--preset", "eight-heads", "--export", "scores", "--format", "npy", "--head", "8", "--out", dir + "/s8.npy"}).code == 0);
    CHECK(same_bits(npy_matrix(core::io::read_npy(dir + "/s8.npy")), core::compute(core::preset_eight_heads()).heads[7].scores));
    Run bad = run({"--preset", "eight-heads", "--export", "A", "--format", "npy", "--head", "9", "--out", dir + "/x.npy"});
    CHECK(bad.code == 2);
    CHECK(bad.err == "attnviz: preset eight-heads: --head 9, but the scenario has 8 heads\n");
    bad = run({"--preset", "eight-heads", "--export", "A", "--format", "csv", "--out", dir + "/x.npy"});
    CHECK(bad.code == 2);
    CHECK(bad.err == "attnviz: preset eight-heads: the scenario has 8 heads; say which with --head 1..8\n");
    bad = run({"--preset", "nope", "--export", "A", "--format", "npy", "--out", dir + "/x.npy"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("no preset \"nope\"") != std::string::npos);
    CHECK_FALSE(fixtures::read(dir + "/x.npy").size()); // nothing written after a refusal
}
