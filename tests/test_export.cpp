// Exports: matrix text as the articles print it, the heatmap's exact colours as PNG, and the
// labelled figure as PNG and well-formed SVG.
#include "core/colormap.h"
#include "core/io/export.h"
#include "core/io/figure.h"
#include "core/presets.h"
#include "tests/python.h"
#include "ui/widgets.h"
#include "tests/png_pixels.h"

#include <doctest/doctest.h>
#include <stb_image.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

namespace {

using core::io::TextFormat;

core::Rgb rgb_of(ImU32 c) {
    return {static_cast<std::uint8_t>(c >> IM_COL32_R_SHIFT), static_cast<std::uint8_t>(c >> IM_COL32_G_SHIFT),
            static_cast<std::uint8_t>(c >> IM_COL32_B_SHIFT)};
}

std::string latex_of(const core::Matrix& m) {
    std::string t = core::io::matrix_text(m, TextFormat::latex);
    REQUIRE(!t.empty());
    t.pop_back(); // the final newline
    return t;
}

} // namespace

TEST_CASE("export: LaTeX of the worked example is the article's matrices, character for character") {
    const core::Scenario s = core::preset_three_tokens();
    const core::Result r = core::compute(s);
    const core::HeadResult& h = r.heads[0];
    CHECK(latex_of(s.heads[0].W_Q) == R"(\begin{pmatrix} 1 & 0 \\ 1 & 2 \end{pmatrix})");
    CHECK(latex_of(s.heads[0].W_K) == R"(\begin{pmatrix} 2 & 0 \\ 0 & 1 \end{pmatrix})");
    CHECK(latex_of(s.heads[0].W_V) == R"(\begin{pmatrix} 1 & 0 \\ 0 & 2 \end{pmatrix})");
    CHECK(latex_of(h.Q) == R"(\begin{pmatrix} 1 & 0 \\ 1 & 2 \\ 2 & 2 \end{pmatrix})");
    CHECK(latex_of(h.K) == R"(\begin{pmatrix} 2 & 0 \\ 0 & 1 \\ 2 & 1 \end{pmatrix})");
    CHECK(latex_of(h.V) == R"(\begin{pmatrix} 1 & 0 \\ 0 & 2 \\ 1 & 2 \end{pmatrix})");
    CHECK(latex_of(h.scores) == R"(\begin{pmatrix} 2 & 0 & 2 \\ 2 & 2 & 4 \\ 4 & 2 & 6 \end{pmatrix})");
    CHECK(latex_of(h.scaled) == R"(\begin{pmatrix} 1.414 & 0.000 & 1.414 \\ 1.414 & 1.414 & 2.828 \\ 2.828 & 1.414 & 4.243 \end{pmatrix})");
    CHECK(latex_of(h.weights) == R"(\begin{pmatrix} 0.446 & 0.108 & 0.446 \\ 0.164 & 0.164 & 0.673 \\ 0.187 & 0.045 & 0.768 \end{pmatrix})");
    CHECK(latex_of(h.output) == R"(\begin{pmatrix} 0.892 & 1.108 \\ 0.836 & 1.673 \\ 0.955 & 1.627 \end{pmatrix})");
}

TEST_CASE("export: masked scores and wide matrices in LaTeX") {
    core::Scenario s = core::preset_three_tokens();
    s.causal = true;
    const core::Result r = core::compute(s);
    CHECK(latex_of(r.heads[0].scaled) == R"(\begin{pmatrix} 1.414 & -\infty & -\infty \\ 1.414 & 1.414 & -\infty \\ 2.828 & 1.414 & 4.243 \end{pmatrix})");
    const core::Matrix wide = core::Matrix::Zero(1, 11);
    CHECK(core::io::matrix_text(wide, TextFormat::latex).rfind("% needs \\setcounter{MaxMatrixCols}{11}\n\\begin{pmatrix} 0 & 0", 0) == 0);
}

TEST_CASE("export: CSV and TSV hold every double exactly, with optional labels") {
    core::Matrix m(2, 2); // (2, 2)
    m << 0.1, -1.0 / 3.0, 1e-300, 12345.678901234567;
    for (TextFormat f : {TextFormat::csv, TextFormat::tsv}) {
        const char sep = f == TextFormat::csv ? ',' : '\t';
        std::istringstream in(core::io::matrix_text(m, f));
        std::string line;
        for (int i = 0; i < 2; ++i) {
            REQUIRE(std::getline(in, line));
            std::istringstream cells(line);
            std::string cell;
            for (int j = 0; j < 2; ++j) {
                REQUIRE(std::getline(cells, cell, sep));
                const double back = std::strtod(cell.c_str(), nullptr);
                CHECK(std::memcmp(&back, &m(i, j), sizeof back) == 0);
            }
        }
    }
    core::Matrix a(1, 2); // (1, 2)
    a << 1, 0.5;
    CHECK(core::io::matrix_text(a, TextFormat::csv, {{"say \"hi\""}, {"a,b", "c"}}) == ",\"a,b\",c\n\"say \"\"hi\"\"\",1,0.5\n");
    CHECK(core::io::matrix_text(a, TextFormat::tsv, {{"t"}, {"a,b", "c"}}) == "\ta,b\tc\nt\t1\t0.5\n");
}

TEST_CASE("export: Markdown table with token labels") {
    const core::Scenario s = core::preset_three_tokens();
    const core::Result r = core::compute(s);
    CHECK(core::io::matrix_text(r.heads[0].weights, TextFormat::markdown, {s.tokens, s.tokens}) ==
          "| | the | cat | sat |\n|---|---:|---:|---:|\n"
          "| the | 0.446 | 0.108 | 0.446 |\n| cat | 0.164 | 0.164 | 0.673 |\n| sat | 0.187 | 0.045 | 0.768 |\n");
    CHECK(core::io::matrix_text(s.X, TextFormat::markdown, {{}, {}}) == "| 1 | 2 |\n|---:|---:|\n| 1 | 0 |\n| 0 | 1 |\n| 1 | 1 |\n");
}

TEST_CASE("export: the colour map of files is the window's, byte for byte") {
    for (int k = 0; k <= 1000; ++k) {
        const double t = k / 1000.0;
        CHECK(core::viridis(t) == rgb_of(ui::sequential_color(t)));
    }
    CHECK(core::viridis(-1) == rgb_of(ui::sequential_color(0)));
    CHECK(core::masked_rgb() == rgb_of(ui::masked_color()));
}

TEST_CASE("export: heatmap PNG has one pixel per cell in the window's colours") {
    core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(37).with_width(8), 5);
    s.causal = true;
    const core::Result r = core::compute(s);
    const Decoded png = decode_png(core::io::png_bytes(core::io::heatmap_texels(r.heads[0].weights, true)));
    REQUIRE(png.width == 37);
    REQUIRE(png.height == 37);
    for (int i = 0; i < 37; ++i)
        for (int j = 0; j < 37; ++j) {
            const ImU32 expected = j > i ? ui::masked_color() : ui::sequential_color(r.heads[0].weights(i, j));
            CHECK(png.at(j, i) == rgb_of(expected));
        }
}

TEST_CASE("export: the labelled PNG shows the map, a title and labels") {
    const core::Scenario s = core::preset_three_tokens();
    const core::Result r = core::compute(s);
    if (!std::ifstream(core::io::figure_font_path)) {
        CHECK_THROWS_AS(core::io::heatmap_figure_png(r.heads[0].weights, {"A", s.tokens}), core::io::ExportError);
        return;
    }
    const Decoded png = decode_png(core::io::png_bytes(core::io::heatmap_figure_png(r.heads[0].weights, {"Attention weights", s.tokens})));
    CHECK(png.width > 3 * 64);
    CHECK(png.height > 3 * 64);
    // Find the map: the top-left pixel of the colour of A(0, 0) whose right neighbour 64 px on is A(0, 1)'s colour.
    const core::Rgb a00 = core::viridis(r.heads[0].weights(0, 0)), a01 = core::viridis(r.heads[0].weights(0, 1));
    int found_x = -1, found_y = -1;
    for (int y = 0; y < png.height && found_x < 0; ++y)
        for (int x = 0; x + 64 < png.width; ++x)
            if (png.at(x, y) == a00 && png.at(x + 64, y) == a01) { found_x = x, found_y = y; break; }
    REQUIRE(found_x > 0);
    CHECK(png.at(found_x + 2 * 64 + 1, found_y + 2 * 64 + 1) == core::viridis(r.heads[0].weights(2, 2)));
    // Dark text above the map (title, column labels) and left of it (row labels).
    auto dark_pixels = [&](int x0, int y0, int x1, int y1) {
        int count = 0;
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) count += png.at(x, y).r < 100;
        return count;
    };
    CHECK(dark_pixels(0, 0, png.width, 30) > 40);               // the title
    CHECK(dark_pixels(0, found_y, found_x, found_y + 64) > 20);    // "the"
    CHECK(dark_pixels(found_x, found_y - 40, found_x + 64, found_y) > 20); // "the", turned
}

TEST_CASE("export: the SVG is well-formed XML with n² cells and its text as text") {
    core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(20).with_width(4), 9);
    s.causal = true;
    s.tokens[3] = "<&\"x'>";
    const core::Result r = core::compute(s);
    const std::string svg = core::io::heatmap_figure_svg(r.heads[0].weights, {"weights & <more>", s.tokens, true});
    std::size_t cells = 0;
    for (std::size_t at = svg.find("<rect class=\"cell\""); at != std::string::npos; at = svg.find("<rect class=\"cell\"", at + 1)) ++cells;
    CHECK(cells == 400);
    CHECK(svg.find("&lt;&amp;&quot;x&apos;&gt;") != std::string::npos);
    const std::string dir = test_python::temp_dir();
    std::ofstream(dir + "/map.svg") << svg;
    test_python::run_or_skip("import xml.etree.ElementTree as E, sys\n"
                             "root = E.parse(sys.argv[1]).getroot()\n"
                             "ns = '{http://www.w3.org/2000/svg}'\n"
                             "cells = [e for e in root.iter(ns + 'rect') if e.get('class') == 'cell']\n"
                             "texts = [e.text for e in root.iter(ns + 'text')]\n"
                             "assert len(cells) == 400, len(cells)\n"
                             "assert '<&\"x\\'>' in texts, texts\n"
                             "assert 'weights & <more>' == root.find(ns + 'title').text\n",
                             {dir + "/map.svg"}, false);
    CHECK_THROWS_WITH_AS(core::io::heatmap_figure_svg(core::Matrix::Zero(1025, 1025), {}),
                         doctest::Contains("an SVG stops at 1024 × 1024"), core::io::ExportError);
}

TEST_CASE("export: the NumPy literal evaluates to the same doubles") {
    core::Matrix m(2, 3); // (2, 3)
    m << 0.1, 2, -1.0 / 3.0, 1e-300, -std::numeric_limits<double>::infinity(), 7e22;
    const std::string literal = core::io::matrix_text(m, TextFormat::numpy);
    CHECK(literal.rfind("np.array([[0.1, 2.0, ", 0) == 0);
    const std::string dir = test_python::temp_dir();
    std::ofstream(dir + "/m.py") << "a = " << literal;
    std::ostringstream expected;
    expected << "import numpy as np, sys\nexec(open(sys.argv[1]).read())\n"
             << "b = np.array([0.1, 2, -1/3, 1e-300, -np.inf, 7e22]).reshape(2, 3)\n"
             << "assert a.dtype == np.float64 and a.shape == (2, 3)\n"
             << "assert (a.view(np.uint64) == b.view(np.uint64)).all(), a\n";
    test_python::run_or_skip(expected.str(), {dir + "/m.py"}, true);
}

TEST_CASE("export: every matrix of a scenario by name, per-head ones stacked") {
    const core::Scenario s = core::preset_eight_heads();
    const core::Result r = core::compute(s);
    const auto arrays = core::io::scenario_arrays(s, r);
    std::vector<std::string> names;
    for (const auto& a : arrays) names.push_back(a.name);
    CHECK(names == core::io::matrix_names());
    const auto& A = arrays[10];
    REQUIRE(A.name == "A");
    CHECK(A.shape == std::vector<std::int64_t>{8, s.n(), s.n()});
    CHECK(A.values[static_cast<std::size_t>(3 * s.n() * s.n() + 1)] == r.heads[3].weights(0, 1));
    const auto single = core::io::scenario_arrays(core::preset_three_tokens(), core::compute(core::preset_three_tokens()));
    CHECK(single.size() == core::io::matrix_names().size() - 1); // no W_O
    CHECK(single[9].name == "A");
    CHECK(single[9].shape == std::vector<std::int64_t>{3, 3});
}
