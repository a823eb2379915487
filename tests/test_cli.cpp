// The command-line modes, run in-process through the same entry point as the program.
#include "app/cli/cli.h"
#include "app/cli/cli_bench.h"
#include "cli_run.h"
#include "core/attention.h"
#include "core/presets.h"
#include "core/io/scenario_io.h"
#include "ui/panel_table.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {

std::string write_temp(const std::string& text) {
    std::string path = "/tmp/attnviz-cli-XXXXXX.json";
    const int fd = ::mkstemps(path.data(), 5);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    ::close(fd);
    return path;
}

// A run that must fail as bad input does: exit code 2, nothing on stdout, one line on stderr.
std::string one_line(const Run& r) {
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    return r.err;
}
std::string fails(std::vector<std::string> args) { return one_line(run(std::move(args))); }

double cell_of(const nlohmann::json& m, int r, int c) { return m.at(r).at(c).get<double>(); }

} // namespace

TEST_CASE("--dump prints the seed's matrices as JSON that round-trips") {
    const Run r = run({"--dump"});
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["tokens"] == nlohmann::json({"the", "cat", "sat"}));
    const auto& h = j["heads"][0];
    CHECK(cell_of(h["Q"], 2, 0) == 2);
    CHECK(cell_of(h["scores"], 2, 2) == 6);
    CHECK(cell_of(h["scaled"], 0, 0) == 2 / std::sqrt(2.0)); // exact: doubles round-trip
    CHECK(cell_of(h["weights"], 2, 2) == doctest::Approx(0.768).epsilon(1e-3));
    CHECK(cell_of(h["output"], 2, 1) == doctest::Approx(1.627).epsilon(1e-3));
    CHECK(cell_of(j["output"], 0, 0) == doctest::Approx(0.892).epsilon(1e-3));
    CHECK(j["concat"] == h["output"]);
}

TEST_CASE("--dump of a causal file writes masked scaled scores as null") {
    core::Scenario s = core::preset_three_tokens();
    s.causal = true;
    const std::string path = write_temp(core::io::to_json_text(s));
    const Run r = run({"--dump", path});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["heads"][0]["scaled"][0][1].is_null());
    CHECK(j["heads"][0]["weights"][0] == nlohmann::json({1.0, 0.0, 0.0}));
    std::remove(path.c_str());
}

TEST_CASE("--explain takes a token name or a 1-based index") {
    const Run by_name = run({"--explain", "sat"});
    REQUIRE(by_name.code == 0);
    CHECK(by_name.out.find("q_sat · k_the = 2·2 + 2·0 = 4") != std::string::npos);
    CHECK(by_name.out.find("0.187·(1, 0) + 0.045·(0, 2) + 0.768·(1, 2) = (0.955, 1.627)") != std::string::npos);
    CHECK(run({"--explain", "3"}).out == by_name.out);
    const Run missing = run({"--explain", "dog"});
    CHECK(missing.code == 2);
    CHECK(missing.out.empty());
    CHECK(missing.err == "attnviz: default scenario: no row \"dog\" (give 1..3 or a token name)\n");
    CHECK(run({"--explain", "4"}).code == 2);
}

TEST_CASE("--decode prints one step per token with the cache counters") {
    const Run r = run({"--decode"});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["steps"].size() == 3);
    CHECK(j["steps"][0]["weights"][0] == nlohmann::json({1.0}));
    CHECK(j["steps"][1]["weights"][0][0].get<double>() == doctest::Approx(0.5));
    CHECK(j["steps"][2]["token"] == "sat");
    CHECK(j["steps"][2]["new_kv_rows"] == 1);
    CHECK(j["steps"][2]["kv_rows_without_cache"] == 3);
    CHECK(j["steps"][2]["output"][0].get<double>() == doctest::Approx(0.955).epsilon(1e-3));
    CHECK(j["total_kv_rows_with_cache"] == 3);
    CHECK(j["total_kv_rows_without_cache"] == 6);
}

TEST_CASE("--dump and --decode of a file with several heads and W_O: every head, the concatenation and W_O's output") {
    core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(5).with_d_model(6).with_d_k(3).with_d_v(2).with_heads(3).with_W_O(), 17);
    const std::string path = write_temp(core::io::to_json_text(s));
    const core::Result r = core::compute(s);
    const Run dump = run({"--dump", path});
    REQUIRE(dump.code == 0);
    const auto j = nlohmann::json::parse(dump.out);
    REQUIRE(j["heads"].size() == 3);
    for (int h = 0; h < 3; ++h)
        for (int i = 0; i < 5; ++i)
            for (int k = 0; k < 5; ++k) CHECK(cell_of(j["heads"][h]["weights"], i, k) == r.heads[h].weights(i, k)); // exact: doubles round-trip
    REQUIRE(j["concat"][0].size() == 3 * 2); // n × (H·d_v)
    REQUIRE(j["output"][0].size() == 6);     // n × d_model, through W_O
    for (int c = 0; c < 6; ++c) CHECK(cell_of(j["output"], 4, c) == r.output(4, c));

    core::Scenario causal = s;
    causal.causal = true;
    const core::Result full = core::compute(causal);
    const Run decode = run({"--decode", path});
    REQUIRE(decode.code == 0);
    const auto d = nlohmann::json::parse(decode.out);
    REQUIRE(d["steps"].size() == 5);
    for (int t = 1; t <= 5; ++t) {
        const auto& step = d["steps"][t - 1];
        REQUIRE(step["weights"].size() == 3);
        for (int h = 0; h < 3; ++h) {
            REQUIRE(step["weights"][h].size() == size_t(t));
            for (int k = 0; k < t; ++k) CHECK(std::abs(step["weights"][h][k].get<double>() - full.heads[h].weights(t - 1, k)) <= 1e-12);
        }
        REQUIRE(step["output"].size() == 6);
        for (int c = 0; c < 6; ++c) CHECK(std::abs(step["output"][c].get<double>() - full.output(t - 1, c)) <= 1e-12);
    }
    CHECK(d["total_kv_rows_without_cache"] == 15);
    std::remove(path.c_str());
}

TEST_CASE("bad usage and bad files: exit code 2 and one line naming the file and field") {
    CHECK(one_line(run({"--frobnicate"})) == "attnviz: unknown option --frobnicate (see attnviz --help)\n");
    CHECK(one_line(run({"--explain"})) == "attnviz: --explain needs a value (see attnviz --help)\n");
    CHECK(one_line(run({"--dump", "--decode"})).find("only one of") != std::string::npos);
    CHECK(one_line(run({"--dump", "a.json", "b.json"})).find("more than one FILE") != std::string::npos);
    CHECK(one_line(run({"--dump", "/nonexistent.json"})) == "attnviz: /nonexistent.json: cannot open: No such file or directory\n");

    const std::string wrong_shape = write_temp(R"({"X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 0], [1, 2], [0, 0]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]})");
    const std::string before = [&] { std::ifstream in(wrong_shape); std::stringstream ss; ss << in.rdbuf(); return ss.str(); }();
    CHECK(one_line(run({"--dump", wrong_shape})) == "attnviz: " + wrong_shape + ": W_Q has 3 rows, expected 2 (the width of X)\n");
    CHECK(one_line(run({"--decode", wrong_shape})).find("W_Q has 3 rows") != std::string::npos);
    std::ifstream in(wrong_shape);
    std::stringstream after;
    after << in.rdbuf();
    CHECK(after.str() == before); // never a change to the input file
    std::remove(wrong_shape.c_str());

    const std::string deep = write_temp(std::string(200000, '['));
    CHECK(one_line(run({"--explain", "1", deep})) == "attnviz: " + deep + ": nesting is deeper than 32 levels\n");
    std::remove(deep.c_str());

    const std::string nan = write_temp(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1e999]]})");
    CHECK(one_line(run({"--dump", nan})) == "attnviz: " + nan + ": W_V[0][0] is 1e999, too large for a double (line 1, column 51)\n");
    std::remove(nan.c_str());
}

TEST_CASE("--help and --version") {
    CHECK(run({"--help"}).out.find("usage: attnviz") == 0);
    CHECK(run({"--version"}).out.rfind("attnviz ", 0) == 0);
    CHECK(run({"--version"}).code == 0);
    const Run window = run({});
    CHECK(window.code == 2); // no window runner in the tests
}

TEST_CASE("--bench-core parses --tokens, --dim and --reps") {
    auto parse = [](std::vector<const char*> args) {
        args.insert(args.begin(), "attnviz");
        return app::parse_args(static_cast<int>(args.size()), args.data());
    };
    const app::Options o = parse({"--bench-core", "--tokens", "1024", "--dim", "64", "--reps", "7"});
    CHECK(o.mode == app::Options::Mode::bench_core);
    CHECK(o.tokens == 1024);
    CHECK(o.dim == 64);
    CHECK(o.reps == 7);
    const app::Options defaults = parse({"--dim", "1", "--tokens", "4096", "--bench-core"}); // any order
    CHECK(defaults.tokens == 4096);
    CHECK(defaults.dim == 1);
    CHECK(defaults.reps == 20);
    CHECK(parse({"--bench-core", "--tokens", "1", "--dim", "512", "--reps", "100000"}).reps == 100000);
}

TEST_CASE("--bench-core prints one JSON line with the sizes and the times") {
    const Run r = run({"--bench-core", "--tokens", "3", "--dim", "2", "--reps", "3"});
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["tokens"] == 3);
    CHECK(j["dim"] == 2);
    CHECK(j["reps"] == 3);
    CHECK(j["threads"] == 1); // 3 tokens: never worth a second thread
    CHECK(j["kernels"].get<std::string>().size() > 0);
    CHECK(j["median_ms"].get<double>() >= j["min_ms"].get<double>());
    CHECK(j["min_ms"].get<double>() >= 0.0);
}

TEST_CASE("--bench-core with bad or missing values: exit code 2 and one line") {
    CHECK(fails({"--bench-core", "--tokens", "0", "--dim", "64"}) ==
          "attnviz: --tokens takes a whole number from 1 to 4096, not \"0\" (see attnviz --help)\n");
    CHECK(fails({"--bench-core", "--tokens", "4097", "--dim", "64"}).find("--tokens takes a whole number from 1 to 4096") != std::string::npos);
    CHECK(fails({"--bench-core", "--tokens", "64", "--dim", "513"}).find("--dim takes a whole number from 1 to 512") != std::string::npos);
    CHECK(fails({"--bench-core", "--tokens", "64", "--dim", "0"}).find("--dim takes") != std::string::npos);
    CHECK(fails({"--bench-core", "--tokens", "64", "--dim", "8", "--reps", "0"}).find("--reps takes a whole number from 1 to 100000") != std::string::npos);
    CHECK(fails({"--bench-core", "--tokens", "64", "--dim", "8", "--reps", "100001"}).find("--reps takes") != std::string::npos);
    for (const char* bad : {"-5", "12x", "1e3", "", " 8", "+8", "99999999999999999999", "8.0"})
        CHECK(fails({"--bench-core", "--tokens", bad, "--dim", "8"}).find("--tokens takes a whole number") != std::string::npos);
    CHECK(fails({"--bench-core", "--dim", "8"}) == "attnviz: --bench-core needs --tokens N and --dim D (see attnviz --help)\n");
    CHECK(fails({"--bench-core", "--tokens", "8"}).find("needs --tokens N and --dim D") != std::string::npos);
    CHECK(fails({"--bench-core"}).find("needs --tokens N and --dim D") != std::string::npos);
    CHECK(fails({"--bench-core", "--tokens", "8", "--dim"}) == "attnviz: --dim needs a value (see attnviz --help)\n");
    CHECK(fails({"--bench-core", "--tokens", "8", "--dim", "8", "scene.json"}).find("takes no FILE") != std::string::npos);
    CHECK(fails({"--dump", "--tokens", "8"}).find("--tokens goes with --bench-core") != std::string::npos);
    CHECK(fails({"--reps", "3"}).find("--reps goes with --bench-core") != std::string::npos);
    CHECK(fails({"--bench-core", "--dump", "--tokens", "8", "--dim", "8"}).find("only one of") != std::string::npos);
}

TEST_CASE("the usage text names --bench-core") {
    CHECK(run({"--help"}).out.find("attnviz --bench-core --tokens N --dim D [--reps R]") != std::string::npos);
}

TEST_CASE("--bench-frames parses F, --tokens and --dim, and needs the window") {
    auto parse = [](std::vector<const char*> args) {
        args.insert(args.begin(), "attnviz");
        return app::parse_args(static_cast<int>(args.size()), args.data());
    };
    const app::Options o = parse({"--bench-frames", "300", "--tokens", "1024", "--dim", "64"});
    CHECK(o.mode == app::Options::Mode::bench_frames);
    CHECK(o.frames == 300);
    CHECK(o.tokens == 1024);
    CHECK(o.dim == 64);
    const Run no_window = run({"--bench-frames", "3", "--tokens", "8", "--dim", "8"});
    CHECK(no_window.code == 2); // no window runner in the tests
    CHECK(no_window.err.find("this build has no window") != std::string::npos);
    CHECK(run({"--help"}).out.find("attnviz --bench-frames F --tokens N --dim D") != std::string::npos);
}

TEST_CASE("--bench-frames with bad or missing values: exit code 2 and one line") {
    CHECK(fails({"--bench-frames", "0", "--tokens", "8", "--dim", "8"}) ==
          "attnviz: --bench-frames takes a whole number from 1 to 100000, not \"0\" (see attnviz --help)\n");
    CHECK(fails({"--bench-frames", "100001", "--tokens", "8", "--dim", "8"}).find("--bench-frames takes") != std::string::npos);
    CHECK(fails({"--bench-frames", "x", "--tokens", "8", "--dim", "8"}).find("--bench-frames takes") != std::string::npos);
    CHECK(fails({"--bench-frames"}) == "attnviz: --bench-frames needs a value (see attnviz --help)\n");
    CHECK(fails({"--bench-frames", "10", "--dim", "8"}) == "attnviz: --bench-frames needs --tokens N and --dim D (or --attention FILE, or --model MODEL) (see attnviz --help)\n");
    CHECK(fails({"--bench-frames", "10", "--tokens", "4097", "--dim", "8"}).find("--tokens takes") != std::string::npos);
    CHECK(fails({"--bench-frames", "10", "--tokens", "8", "--dim", "513"}).find("--dim takes") != std::string::npos);
    CHECK(fails({"--bench-frames", "10", "--tokens", "8", "--dim", "8", "--reps", "3"}).find("--reps goes with --bench-core") != std::string::npos);
    CHECK(fails({"--bench-frames", "10", "--tokens", "8", "--dim", "8", "a.json"}).find("takes no FILE") != std::string::npos);
    CHECK(fails({"--bench-frames", "10", "--bench-core", "--tokens", "8", "--dim", "8"}).find("only one of") != std::string::npos);
    CHECK(fails({"--screenshot", "a.png", "--tokens", "8"}).find("--tokens goes with --bench-core or --bench-frames") != std::string::npos);
}

TEST_CASE("--bench-frames' line: the median and the 99th percentile by nearest rank, and the RSS") {
    app::Options o;
    o.tokens = 16;
    o.dim = 4;
    std::vector<double> ms;
    for (int i = 100; i >= 1; --i) ms.push_back(i); // 1 … 100 ms, in any order
    const auto j = nlohmann::json::parse(app::bench_frames_json(o, ms, 123.45, 321.6));
    CHECK(j["frames"] == 100);
    CHECK(j["tokens"] == 16);
    CHECK(j["dim"] == 4);
    CHECK(j["p50_ms"].get<double>() == 50.0);
    CHECK(j["p99_ms"].get<double>() == 99.0);
    CHECK(j["rss_mb"].get<double>() == doctest::Approx(123.5));
    CHECK(j["first_frame_ms"].get<double>() == 322.0);
    const auto one = nlohmann::json::parse(app::bench_frames_json(o, {7.0}, 1.0, 2.0));
    CHECK(one["p50_ms"].get<double>() == 7.0);
    CHECK(one["p99_ms"].get<double>() == 7.0);
    CHECK(app::peak_resident_set_mb() > 1.0); // this test process, from /proc/self/status
    // This process has been running for longer than 0 ms and for less than a day.
    CHECK(app::ms_since_process_start() > 0.0);
    CHECK(app::ms_since_process_start() < 86400e3);
}

TEST_CASE("what a user reads names examples by what they are, never by article number or work item") {
    std::vector<std::string> texts = {run({"--help"}).out};
    for (const core::PresetInfo& p : core::presets()) texts.insert(texts.end(), {p.name, p.description});
    for (const ui::PanelSpec& p : ui::panel_table()) texts.insert(texts.end(), {p.title, p.tip ? p.tip : ""});
    CHECK(texts.size() > 10);
    for (std::string text : texts) {
        INFO(text);
        std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        CHECK(text.find(std::string("seed ") + "00") == std::string::npos); // spelled in two, so that the scan of
        CHECK(text.find(std::string("iss") + "ue") == std::string::npos);  // the source tree below passes this file
    }
    const std::vector<std::string> names = {"the cat sat — worked example", "NumPy example — default_rng(0), 4 × 8",
                                            "the cat ate because it was hungry", "8 heads × 64, d_model 512"};
    REQUIRE(core::presets().size() >= names.size());
    for (size_t i = 0; i < names.size(); ++i) CHECK(core::presets()[i].name == names[i]);
}

TEST_CASE("no file name, test name or comment of the code says how the work was planned") {
    namespace fs = std::filesystem;
    // The word is put together here, so that this file does not find itself.
    const std::string work_item = std::string("iss") + "ue", article_number = std::string("seed ") + "00";
    const fs::path root = fs::path(ATTNVIZ_FIXTURES).parent_path().parent_path(); // tests/fixtures → the source tree
    const auto lower = [](std::string t) {
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return t;
    };
    int read = 0;
    for (const char* dir : {"app", "core", "ui", "tests", "packaging"})
        for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / dir)) {
            const std::string name = e.path().lexically_relative(root).string();
            INFO(name);
            CHECK(lower(name).find(work_item) == std::string::npos);
            const std::string ext = e.path().extension().string();
            if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".txt" && ext != ".sh" && ext != ".py" &&
                                         ext != ".cmake" && ext != ".md" && ext != ".1" && ext != ".desktop" && ext != ".xml"))
                continue;
            std::ifstream in(e.path(), std::ios::binary);
            const std::string text = lower(std::string(std::istreambuf_iterator<char>(in), {}));
            CHECK(text.find(work_item) == std::string::npos);
            CHECK(text.find(article_number) == std::string::npos);
            ++read;
        }
    CHECK(read > 100); // the tree was found
    std::ifstream readme(root / "README.md", std::ios::binary);
    const std::string text = lower(std::string(std::istreambuf_iterator<char>(readme), {}));
    CHECK(text.size() > 1000);
    CHECK(text.find(article_number) == std::string::npos);
    CHECK(text.find(work_item) == std::string::npos);
}
