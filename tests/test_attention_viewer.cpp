// The native attention viewer: files of real models' weights read in place, and the panel's grid,
// map, top keys and causal check driven headless.
#include "app/cli/cli.h"
#include "core/io/attention_file.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/io/safetensors.h"
#include "tests/array_files.h"
#include "tests/headless.h"
#include "tests/python.h"
#include "tests/thrown.h"
#include "ui/headless.h"
#include "ui/panels/model/attention.h"

#include "cli_run.h"

#include <doctest/doctest.h>
#include <imgui.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace {

using core::io::AttentionFile;
using core::io::DType;
using core::io::Tensor;

// (layers, heads, n, n): causal rows (query i spreads 1 over keys 0..i, more on the nearest), except
// head (1, 2), whose query i spreads over every key: weight above the diagonal.
Tensor model_weights(int layers, int heads, int n) {
    Tensor t{{layers, heads, n, n}, {}, DType::f32};
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < n; ++i) {
                const bool leaky = l == 1 && h == 2;
                const int keys = leaky ? n : i + 1;
                double sum = 0;
                for (int j = 0; j < keys; ++j) sum += 1.0 + j + h;
                for (int j = 0; j < n; ++j) t.values.push_back(j < keys ? static_cast<float>((1.0 + j + h) / sum) : 0.0f);
            }
    return t;
}

float value(const Tensor& t, int l, int h, int i, int j) {
    const auto heads = t.shape[1], n = t.shape[2];
    return static_cast<float>(t.values[static_cast<std::size_t>(((l * heads + h) * n + i) * n + j)]);
}

std::string viewer_error(const std::string& path) { return thrown<core::io::FileError>([&] { AttentionFile::open(path); }); }

// A headless ImGui context drawing only the viewer in one full-size window.
class Harness {
    ui::HeadlessContext context_{ImVec2(1400, 1000)}; // made first, gone last
public:
    ~Harness() { view.close(); } // its textures go before the uploader
    void frame() {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
        ImGui::Begin("Attention weights");
        ui::draw_attention_viewer(view, textures);
        ImGui::End();
        ImGui::Render();
        ImGui::GetIO().MouseWheel = 0.0f;
    }
    // Frames until the worker has summarised every head (it reads a few kB here).
    void wait_for_thumbnails() {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (view.uploaded < view.total() && std::chrono::steady_clock::now() < deadline) {
            frame();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        frame();
        REQUIRE(view.uploaded == view.total());
    }
    void click(ImVec2 p) {
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = p;
        frame();
        io.MouseDown[0] = true;
        frame();
        io.MouseDown[0] = false;
        frame();
    }

    ui::NullTextureUploader textures;
    ui::AttentionView view;
};

} // namespace

TEST_CASE("attention file: .npy is mapped and read in place, in every accepted shape") {
    const std::string dir = test_python::temp_dir();
    const Tensor t = model_weights(2, 3, 8);
    fixtures::write_npy(dir + "/att.npy", t);
    const auto f = AttentionFile::open(dir + "/att.npy");
    CHECK(f->memory_mapped());
    CHECK(f->layers() == 2);
    CHECK(f->heads() == 3);
    CHECK(f->n() == 8);
    CHECK(f->at(1, 2, 5, 7) == value(t, 1, 2, 5, 7));
    std::vector<float> row(8);
    f->read_row(0, 1, 6, row.data());
    for (int j = 0; j < 8; ++j) CHECK(row[static_cast<std::size_t>(j)] == value(t, 0, 1, 6, j));

    // (n, n), (heads, n, n) and a stacked Hugging Face (layers, batch 1, heads, n, n).
    Tensor one{{8, 8}, std::vector<double>(t.values.begin(), t.values.begin() + 64), DType::f64};
    fixtures::write_npy(dir + "/one.npy", one);
    const auto g = AttentionFile::open(dir + "/one.npy");
    CHECK((g->layers() == 1 && g->heads() == 1 && g->n() == 8));
    CHECK(g->at(0, 0, 3, 2) == value(t, 0, 0, 3, 2));
    Tensor hf = t;
    hf.shape = {2, 1, 3, 8, 8};
    fixtures::write_npy(dir + "/hf.npy", hf);
    const auto h = AttentionFile::open(dir + "/hf.npy");
    CHECK((h->layers() == 2 && h->heads() == 3 && h->n() == 8));
    CHECK(h->at(1, 0, 4, 1) == value(t, 1, 0, 4, 1));
}

TEST_CASE("attention file: safetensors with token labels in its metadata, and .npz") {
    const std::string dir = test_python::temp_dir();
    core::io::TensorFile file;
    Tensor t = model_weights(1, 2, 4);
    t.dtype = DType::f16;
    file.tensors["attentions"] = t;
    file.tensors["other"] = Tensor{{2}, {1, 2}, DType::f32};
    file.metadata["tokens"] = R"(["the", "cat", "sat", "."])";
    core::io::write_safetensors(dir + "/att.safetensors", file);
    const auto f = AttentionFile::open(dir + "/att.safetensors");
    CHECK(f->memory_mapped());
    CHECK(f->labels() == std::vector<std::string>{"the", "cat", "sat", "."});
    CHECK(f->at(0, 1, 2, 1) == doctest::Approx(value(t, 0, 1, 2, 1)).epsilon(1e-3)); // float16
    fixtures::write_npz(dir + "/att.npz", {{{"attentions", model_weights(1, 2, 4)}}, {}}, true);
    const auto z = AttentionFile::open(dir + "/att.npz");
    CHECK_FALSE(z->memory_mapped());
    CHECK(z->at(0, 1, 3, 3) == value(t, 0, 1, 3, 3));
}

TEST_CASE("attention file: a bad file or labels get a message naming the file") {
    const std::string dir = test_python::temp_dir();
    fixtures::write_npy(dir + "/wide.npy", Tensor{{3, 4}, std::vector<double>(12, 0.1), DType::f32});
    CHECK(viewer_error(dir + "/wide.npy") == dir + "/wide.npy: shape (3, 4) is not (n, n), (heads, n, n) or (layers, heads, n, n), with an optional batch axis of 1");
    fixtures::write_npy(dir + "/ints.npy", Tensor{{2, 2}, {1, 0, 0, 1}, DType::i32});
    CHECK(viewer_error(dir + "/ints.npy") == dir + "/ints.npy: attention weights are floats; this array is int32");
    std::ofstream(dir + "/short.npy") << "\x93NUMPY";
    CHECK(viewer_error(dir + "/short.npy").rfind(dir + "/short.npy: ", 0) == 0);
    CHECK(viewer_error(dir + "/none.npy").rfind(dir + "/none.npy: cannot open", 0) == 0);
    CHECK(viewer_error(dir + "/att.csv") == dir + "/att.csv: attention weights are read from .npy, .npz or .safetensors");

    std::ofstream(dir + "/tokens.json") << R"(["a", "b c", "\u00e9"])";
    CHECK(core::io::read_token_labels(dir + "/tokens.json") == std::vector<std::string>{"a", "b c", "é"});
    std::ofstream(dir + "/tokens.txt") << "a\r\nb c\n\n";
    CHECK(core::io::read_token_labels(dir + "/tokens.txt") == std::vector<std::string>{"a", "b c", ""});
    std::ofstream(dir + "/bad.json") << R"(["a", 3])";
    CHECK_THROWS_WITH_AS(core::io::read_token_labels(dir + "/bad.json"), (dir + "/bad.json: entry 1 is not a string").c_str(), core::io::FileError);
}

TEST_CASE("attention file: Fortran order and big-endian float16 as NumPy writes them") {
    const std::string dir = test_python::temp_dir();
    test_python::run_or_skip("import numpy as np, sys\n"
                             "a = np.arange(2 * 1 * 3 * 5 * 5, dtype=np.float64).reshape(2, 1, 3, 5, 5) / 1000\n"
                             "np.save(sys.argv[1] + '/f.npy', np.asfortranarray(a.astype('>f2')))\n",
                             {dir}, true);
    if (!std::ifstream(dir + "/f.npy")) return;
    const auto f = AttentionFile::open(dir + "/f.npy");
    CHECK((f->layers() == 2 && f->heads() == 3 && f->n() == 5));
    const int l = 1, h = 2, i = 3, j = 4;
    CHECK(f->at(l, h, i, j) == doctest::Approx((((l * 3 + h) * 5 + i) * 5 + j) / 1000.0).epsilon(1e-3));
}

TEST_CASE("attention summaries: thumbnails, the causal check and the top keys") {
    const std::string dir = test_python::temp_dir();
    const Tensor t = model_weights(2, 3, 8);
    fixtures::write_npy(dir + "/att.npy", t);
    const auto f = AttentionFile::open(dir + "/att.npy");
    const core::io::HeadSummary causal = core::io::summarise_head(*f, 0, 1, 4);
    CHECK(causal.above_max == 0.0f);
    CHECK(causal.thumb.size() == 16);
    CHECK(causal.thumb[0] == std::max({value(t, 0, 1, 0, 0), value(t, 0, 1, 1, 0), value(t, 0, 1, 1, 1)})); // block (0, 0): rows 0-1, keys 0-1
    const core::io::HeadSummary leaky = core::io::summarise_head(*f, 1, 2, 4);
    CHECK(leaky.above_max == value(t, 1, 2, 0, 7)); // query 0 puts the most on the last key
    CHECK((leaky.above_row == 0 && leaky.above_col == 7));
    const float row[] = {0.1f, 0.4f, 0.05f, 0.4f, 0.05f};
    CHECK(core::io::top_k(row, 5, 3) == std::vector<std::pair<int, float>>{{1, 0.4f}, {3, 0.4f}, {0, 0.1f}});
    std::vector<float> mean(8), scratch;
    core::io::mean_row(*f, 1, 4, mean.data(), scratch);
    CHECK(mean[2] == doctest::Approx((value(t, 1, 0, 4, 2) + value(t, 1, 1, 4, 2) + value(t, 1, 2, 4, 2)) / 3));
}

TEST_CASE("attention viewer: the grid fills in, flags the non-causal head, and a click opens it") {
    const std::string dir = test_python::temp_dir();
    const Tensor t = model_weights(2, 3, 8);
    fixtures::write_npy(dir + "/att.npy", t);
    Harness ui;
    ui.frame(); // the open prompt
    REQUIRE(ui.view.open(dir + "/att.npy", ""));
    ui.wait_for_thumbnails();
    CHECK(ui.textures.created == 1); // one atlas for the six thumbnails
    CHECK(ui.textures.rows_written >= 2 * 8); // both layers' bands, 8 texels high (n = 8)
    CHECK(ui.view.non_causal_heads() == 1);
    CHECK(ui.view.summaries[5].above_max > core::io::causal_tolerance); // layer 2, head 3
    ui.click(ui.view.thumb_rects[5].GetCenter());
    CHECK(ui.view.layer == 1);
    CHECK(ui.view.head == 2);
    CHECK_FALSE(ui.view.mean);
    ui.frame();
    CHECK(ui.view.map_rows_done == 8);

    // Click row 6 (0-based 5) of the map: its top keys are listed, largest first.
    const ImVec2 cell_centre(ui.view.origin.x + 2.5f * ui.view.cell, ui.view.origin.y + 5.5f * ui.view.cell);
    ui.click(cell_centre);
    CHECK(ui.view.selected_row == 5);
    REQUIRE(ui.view.top.size() == 8); // n < 10 keys
    CHECK(ui.view.top[0].first == 7); // the leaky head spreads query 5 over every key, most on the last
    CHECK(ui.view.top[0].second == value(t, 1, 2, 5, 7));
    for (std::size_t k = 1; k < ui.view.top.size(); ++k) CHECK(ui.view.top[k].second <= ui.view.top[k - 1].second);

    // Zoom with the wheel, then back to the grid and the mean of layer 1.
    ui.view.mean = true;
    ImGui::GetIO().MouseWheel = 2.0f;
    ui.frame();
    CHECK(ui.view.zoom > 1.0f);
    ui.frame();
    CHECK(ui.view.top[0].second == doctest::Approx((value(t, 1, 0, 5, 5) + value(t, 1, 1, 5, 5) + value(t, 1, 2, 5, 5)) / 3));
}

TEST_CASE("attention viewer: labels from a file, and a bad file leaves the open one") {
    const std::string dir = test_python::temp_dir();
    fixtures::write_npy(dir + "/att.npy", model_weights(1, 2, 4));
    std::ofstream(dir + "/tokens.txt") << "the\ncat\nsat\n.\n";
    std::ofstream(dir + "/three.json") << R"(["a", "b", "c"])";
    Harness ui;
    REQUIRE(ui.view.open(dir + "/att.npy", dir + "/tokens.txt"));
    CHECK(ui.view.labels == std::vector<std::string>{"the", "cat", "sat", "."});
    CHECK_FALSE(ui.view.open(dir + "/att.npy", dir + "/three.json"));
    CHECK(ui.view.error == dir + "/three.json: 3 labels for 4 tokens");
    CHECK_FALSE(ui.view.open(dir + "/missing.npy", ""));
    CHECK(ui.view.file);
    CHECK(ui.view.labels.size() == 4);
    ui.wait_for_thumbnails();
}

TEST_CASE("attnviz --attention: bad files and flags exit 2 before any window opens") {
    const std::string dir = test_python::temp_dir();
    fixtures::write_npy(dir + "/att.npy", model_weights(1, 2, 4));
    fixtures::write_npy(dir + "/wide.npy", Tensor{{3, 4}, std::vector<double>(12, 0.1), DType::f32});
    std::ofstream(dir + "/three.txt") << "a\nb\nc\n";
    const auto fails = [](std::vector<std::string> args) {
        const Run r = run(std::move(args));
        CHECK(r.code == 2);
        CHECK(r.out.empty());
        return r.err;
    };
    CHECK(fails({"--attention", dir + "/wide.npy"}).rfind("attnviz: " + dir + "/wide.npy: shape (3, 4) is not", 0) == 0);
    CHECK(fails({"--attention", dir + "/att.npy", "--labels", dir + "/three.txt"}) ==
          "attnviz: " + dir + "/three.txt: 3 labels for 4 tokens (" + dir + "/att.npy)\n");
    CHECK(fails({"--attention", dir + "/att.npy", "--labels", dir + "/none.txt"}).rfind("attnviz: " + dir + "/none.txt: ", 0) == 0);
    CHECK(fails({"--labels", dir + "/three.txt"}) == "attnviz: --labels goes with --attention (see attnviz --help)\n");
    CHECK(fails({"--dump", "--attention", dir + "/att.npy"}) == "attnviz: --attention opens the window (or goes with --screenshot or --bench-frames) (see attnviz --help)\n");
    CHECK(fails({"--bench-frames", "5", "--attention", dir + "/att.npy", "--tokens", "4"}).find("it takes no --tokens or --dim") != std::string::npos);
    // A good file passes the checks and reaches the window, which this test build has not.
    CHECK(fails({"--bench-frames", "5", "--attention", dir + "/att.npy"}).find("this build has no window") != std::string::npos);
}

TEST_CASE("attention viewer: File ▸ Open attention weights… opens its panel in the window") {
    const std::string dir = test_python::temp_dir();
    fixtures::write_npy(dir + "/att.npy", model_weights(2, 3, 8));
    headless::Ui ui;
    ui.frames(3);
    CHECK_FALSE(ui.st().view.open["attention"]);
    headless::menu_click(ui, "File", "Open attention weights…");
    ui.frames(2);
    REQUIRE(ui.st().view.open["attention"]);
    CHECK(ui.shows("Openafileofattentionweights", "Attention weights of a model"));
    REQUIRE(ui.st().dialog.title() == "Open attention weights");
    ui.type(dir + "/att.npy");
    ui.key(headless::key_enter);
    CHECK_FALSE(ui.st().dialog.open());
    ui::AttentionView& view = ui.st().view.state<ui::AttentionView>();
    REQUIRE(view.file != nullptr);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (view.uploaded < view.total() && std::chrono::steady_clock::now() < deadline) ui.frame();
    ui.frame();
    CHECK(ui.shows("notcausal:1of6heads", "Attention weights of a model"));
    ui.click(view.thumb_rects[4].GetCenter());
    CHECK((view.layer == 1 && view.head == 1));
    view.close(); // before the App's texture uploader goes
}
