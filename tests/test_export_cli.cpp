// attnviz --export: every WHAT and FORMAT that go together, and a clear exit 2 for those that do not.
#include "app/cli/cli.h"
#include "core/io/export.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/presets.h"
#include "core/io/scenario_io.h"
#include "tests/python.h"

#include "cli_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace {

// Exit 2, nothing on stdout, one line on stderr: that line.
std::string export_fails(std::vector<std::string> args) {
    const Run r = run(std::move(args));
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    return r.err;
}

} // namespace

TEST_CASE("--export A --format tex writes the article's A") {
    const std::string dir = test_python::temp_dir();
    const Run r = run({"--export", "A", "--format", "tex", "--out", dir + "/A.tex"});
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(fixtures::read(dir + "/A.tex") == "\\begin{pmatrix} 0.446 & 0.108 & 0.446 \\\\ 0.164 & 0.164 & 0.673 \\\\ 0.187 & 0.045 & 0.768 \\end{pmatrix}\n");
    REQUIRE(run({"--export", "Q", "--format", "csv", "--out", dir + "/Q.csv"}).code == 0);
    CHECK(fixtures::read(dir + "/Q.csv") == "the,1,0\ncat,1,2\nsat,2,2\n");
    REQUIRE(run({"--export", "W_Q", "--format", "md", "--out", dir + "/W_Q.md"}).code == 0);
    CHECK(fixtures::read(dir + "/W_Q.md") == "| 1 | 2 |\n|---:|---:|\n| 1 | 0 |\n| 1 | 2 |\n");
}

TEST_CASE("--export all --format json gives back every matrix of every head") {
    const core::Scenario s = core::preset_eight_heads();
    const std::string dir = test_python::temp_dir();
    core::io::save_scenario_file(dir + "/eight.json", s);
    REQUIRE(run({"--export", "all", "--format", "json", "--out", dir + "/all.json", dir + "/eight.json"}).code == 0);
    const auto j = nlohmann::json::parse(fixtures::read(dir + "/all.json"));
    const core::Result r = core::compute(s);
    CHECK(j["tokens"].get<std::vector<std::string>>() == s.tokens);
    REQUIRE(j["A"].size() == 8);
    CHECK(j["A"][5][2][1].get<double>() == r.heads[5].weights(2, 1));
    CHECK(j["W_O"][3][4].get<double>() == s.W_O(3, 4));
    CHECK(j["output"][1][0].get<double>() == r.output(1, 0));
    // One head of a per-head matrix, as JSON.
    REQUIRE(run({"--export", "V", "--format", "json", "--head", "8", "--out", dir + "/V.json", dir + "/eight.json"}).code == 0);
    CHECK(nlohmann::json::parse(fixtures::read(dir + "/V.json"))[0][1].get<double>() == r.heads[7].V(0, 1));
}

TEST_CASE("--export heatmap writes the labelled figure — A as png one pixel per cell") {
    const std::string dir = test_python::temp_dir();
    REQUIRE(run({"--export", "heatmap", "--format", "svg", "--out", dir + "/A.svg"}).code == 0);
    const std::string svg = fixtures::read(dir + "/A.svg");
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find(">sat</text>") != std::string::npos);
    REQUIRE(run({"--export", "A", "--format", "png", "--out", dir + "/A.png"}).code == 0);
    const std::string png = fixtures::read(dir + "/A.png");
    CHECK(png == core::io::png_bytes(core::io::heatmap_texels(core::compute(core::preset_three_tokens()).heads[0].weights, false)));
}

TEST_CASE("--export refuses what does not go together, with exit 2 and a reason") {
    CHECK(export_fails({"--export", "B", "--format", "csv", "--out", "x"}).find("--export takes X, W_Q") != std::string::npos);
    CHECK(export_fails({"--export", "A", "--format", "xls", "--out", "x"}) ==
          "attnviz: --format takes csv, tsv, npy, npz, tex, md, png, svg or json, not \"xls\" (see attnviz --help)\n");
    CHECK(export_fails({"--export", "A", "--format", "csv"}) == "attnviz: --export needs --out PATH (see attnviz --help)\n");
    CHECK(export_fails({"--export", "X", "--format", "svg", "--out", "x"}).find("try --export heatmap --format svg") != std::string::npos);
    CHECK(export_fails({"--export", "Q", "--format", "png", "--out", "x"}).find("png draws the weights A") != std::string::npos);
    CHECK(export_fails({"--export", "heatmap", "--format", "csv", "--out", "x"}).find("the heatmap is a png or svg figure") != std::string::npos);
    CHECK(export_fails({"--export", "all", "--format", "md", "--out", "x"}).find("all is written as npz or json") != std::string::npos);
    CHECK(export_fails({"--export", "A", "--format", "npz", "--out", "x"}).find("--export all --format npz") != std::string::npos);
    CHECK(export_fails({"--export", "X", "--format", "csv", "--head", "1", "--out", "x"}).find("--head goes with a per-head matrix") != std::string::npos);
    CHECK(export_fails({"--dump", "--format", "csv"}) == "attnviz: --format goes with --export (see attnviz --help)\n");
    CHECK(export_fails({"--export", "A", "--format", "csv", "--head", "0", "--out", "x"}).find("--head takes a whole number from 1 to 16") != std::string::npos);
}

TEST_CASE("--export checks the head and the file against the scenario") {
    const std::string dir = test_python::temp_dir();
    core::io::save_scenario_file(dir + "/eight.json", core::preset_eight_heads());
    CHECK(export_fails({"--export", "A", "--format", "csv", "--out", dir + "/x", dir + "/eight.json"}) ==
          "attnviz: " + dir + "/eight.json: the scenario has 8 heads; say which with --head 1..8\n");
    CHECK(export_fails({"--export", "A", "--format", "csv", "--head", "2", "--out", dir + "/x"}) ==
          "attnviz: default scenario: --head 2, but the scenario has 1 head\n");
    CHECK(export_fails({"--export", "W_O", "--format", "csv", "--out", dir + "/x"}) ==
          "attnviz: default scenario: the scenario has no W_O (output projection)\n");
    CHECK(export_fails({"--export", "A", "--format", "csv", "--out", dir + "/x", dir + "/missing.json"}).find(dir + "/missing.json") != std::string::npos);
    CHECK(export_fails({"--export", "A", "--format", "csv", "--out", dir + "/no/such/dir/x"}).find(dir + "/no/such/dir/x") != std::string::npos);
    CHECK_FALSE(std::ifstream(dir + "/x").good()); // nothing written after a failure
}

TEST_CASE("--export npy and npz read back bit for bit, by attnviz and by NumPy") {
    core::Scenario s = core::preset_eight_heads();
    const core::Result r = core::compute(s);
    const std::string dir = test_python::temp_dir();
    const std::string scenario = dir + "/eight.json";
    core::io::save_scenario_file(scenario, s);
    REQUIRE(run({"--export", "all", "--format", "npz", "--out", dir + "/all.npz", scenario}).code == 0);
    // Masked scores are −∞ in "scaled": NumPy reads them (attnviz's importers refuse them as input).
    s.causal = true;
    core::io::save_scenario_file(dir + "/causal.json", s);
    REQUIRE(run({"--export", "all", "--format", "npz", "--out", dir + "/causal.npz", dir + "/causal.json"}).code == 0);
    REQUIRE(run({"--export", "all", "--format", "json", "--out", dir + "/causal-all.json", dir + "/causal.json"}).code == 0);
    REQUIRE(run({"--export", "A", "--format", "npy", "--head", "3", "--out", dir + "/A3.npy", scenario}).code == 0);
    REQUIRE(run({"--export", "Q", "--format", "npy", "--out", dir + "/Q.npy", scenario}).code == 0);

    const core::io::TensorFile npz = core::io::read_npz(dir + "/all.npz");
    const auto arrays = core::io::scenario_arrays(s, r);
    REQUIRE(npz.tensors.size() == arrays.size());
    for (const auto& a : arrays) {
        const auto& t = npz.tensors.at(a.name);
        CHECK(t.shape == a.shape);
        CHECK(std::memcmp(t.values.data(), a.values.data(), a.values.size() * sizeof(double)) == 0);
    }
    const core::io::Tensor A3 = core::io::read_npy(dir + "/A3.npy");
    CHECK(A3.shape == std::vector<std::int64_t>{s.n(), s.n()});
    CHECK(std::memcmp(A3.values.data(), r.heads[2].weights.data(), A3.values.size() * sizeof(double)) == 0);
    CHECK(core::io::read_npy(dir + "/Q.npy").shape == std::vector<std::int64_t>{8, s.n(), s.d_k()});

    test_python::run_or_skip("import json, sys, numpy as np\n"
                             "d = sys.argv[1]\n"
                             "z = np.load(d + '/causal.npz')\n"
                             "j = json.load(open(d + '/causal-all.json'))\n"
                             "for name in j:\n"
                             "    if name == 'tokens': continue\n"
                             "    want = np.array([[np.nan if x is None else x for x in row] for row in np.array(j[name], dtype=object).reshape(-1, np.shape(j[name])[-1])], dtype=np.float64)\n"
                             "    got = z[name]\n"
                             "    assert got.dtype == np.float64, name\n"
                             "    flat = got.reshape(-1, got.shape[-1])\n"
                             "    masked = np.isnan(want)\n"
                             "    assert (flat[masked] == -np.inf).all(), name\n"
                             "    assert (flat[~masked].view(np.uint64) == want[~masked].view(np.uint64)).all(), name\n"
                             "n = len(j['tokens'])\nassert z['A'].shape == (8, n, n) and z['W_O'].ndim == 2, z['A'].shape\n"
                             "a3 = np.load(d + '/A3.npy')\n"
                             "assert (a3 == np.load(d + '/all.npz')['A'][2]).all() and np.allclose(a3.sum(axis=1), 1)\n"
                             "assert np.load(d + '/Q.npy').shape == z['Q'].shape\n",
                             {dir}, true);
}
