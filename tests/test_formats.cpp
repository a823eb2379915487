// The table of file formats: the lists the messages and filters are made of, which kinds a file
// opens as, and the two ways in that go by the table alone (File ▸ Open of an array, a dropped
// archive of named arrays).
#include "headless.h"

#include "core/io/formats.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/io/scenario_io.h"
#include "fixture_files.h"
#include "tests/array_files.h"

#include <doctest/doctest.h>

#include <fstream>
#include <set>

namespace {

core::io::Tensor tensor(std::vector<std::int64_t> shape, std::vector<double> values) {
    return core::io::Tensor{std::move(shape), std::move(values), core::io::DType::f64};
}

} // namespace

TEST_CASE("formats: one row per extension, a reader for every array format, the lists in table order") {
    using core::io::Kind;
    std::set<std::string> seen;
    for (const core::io::Format& f : core::io::formats()) {
        CAPTURE(f.name);
        CHECK(!f.extensions.empty());
        for (const std::string& e : f.extensions) CHECK(seen.insert(e).second);
        CHECK(((f.kinds & Kind::array) != 0) == (f.read_arrays != nullptr));
        CHECK((f.kinds != 0 || f.exportable)); // a row attnviz neither opens nor writes is dead
    }
    CHECK(core::io::extension_list(Kind::array, " and ") == ".npy, .npz, .safetensors, .csv and .tsv");
    CHECK(core::io::extension_list(Kind::attention, " or ") == ".npy, .npz or .safetensors");
    CHECK(core::io::extension_list(Kind::lesson, " and ") == ".toml");
    CHECK(core::io::extensions_of(Kind::labels) == std::vector<std::string>{".json", ".txt"});
    CHECK(core::io::opens_as("/data/ATT.NPY", Kind::attention));
    CHECK_FALSE(core::io::opens_as("/data/att.csv", Kind::attention));
    CHECK_FALSE(core::io::opens_as("/data.npy/notes", Kind::array));
    CHECK(core::io::format_of("figure.svg")->exportable);
    CHECK(core::io::format_of("notes.docx") == nullptr);
    const core::io::FileFilter f = core::io::filter_of(Kind::model, "Models");
    CHECK(f.text() == "Models (.safetensors)");
}

TEST_CASE("formats: a model folder has a row: a folder opens as a checkpoint, its config.json picks it in the dialog") {
    using core::io::Kind;
    CHECK(core::io::extensions_of(Kind::checkpoint) == std::vector<std::string>{".safetensors", "config.json", ".gguf"});
    const core::io::FileFilter models = core::io::filter_of(Kind::checkpoint, "Model files");
    CHECK(models.matches("config.json"));
    CHECK(models.matches("model.SAFETENSORS"));
    CHECK_FALSE(models.matches("tokenizer.json"));
    const std::string dir = fixtures::temp_dir();
    std::ofstream(dir + "/config.json") << "{}";
    const core::io::Format* folder = core::io::format_of(dir);
    REQUIRE(folder != nullptr);
    CHECK(folder->directory());
    CHECK(core::io::opens_as(dir, Kind::checkpoint));
    CHECK_FALSE(core::io::opens_as(dir, Kind::array));
    CHECK_FALSE(core::io::opens_as(dir, Kind::scenario));
    // A file still goes by its extension: config.json itself is a .json, as it was.
    CHECK(core::io::format_of(dir + "/config.json")->name == std::string("Scenarios"));
    CHECK_FALSE(core::io::format_of(dir + "/config.json")->directory());
    CHECK(core::io::opens_as(dir + "/m.safetensors", Kind::checkpoint));
    CHECK(models.matches("qwen3-0.6b-Q4_K_M.gguf"));
    CHECK(core::io::format_of(dir + "/m.gguf")->kinds == Kind::checkpoint); // a GGUF file is only a model
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("formats: a scenario file may be an array file, opened as X") {
    const std::string dir = fixtures::temp_dir();
    fixtures::write_npy(dir + "/emb.npy", tensor({3, 2}, {1, 0, 0, 1, 1, 1}));
    const core::Scenario s = core::io::load_scenario_file(dir + "/emb.npy");
    CHECK(s.X == core::preset_three_tokens().X);
    CHECK(s.heads[0].W_K == core::Matrix::Identity(2, 2));
    core::io::TensorFile one;
    one.tensors["heads"] = tensor({2, 2, 2}, {1, 0, 0, 1, 1, 1, 1, 1});
    fixtures::write_npz(dir + "/heads.npz", one, false);
    CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/heads.npz"),
                      (dir + "/heads.npz: a 3-d array cannot be opened on its own; point a scenario's field at it").c_str());
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("formats: File ▸ Open takes an array as X, and a dropped .npz of named arrays opens as its scenario") {
    const std::string dir = fixtures::temp_dir();
    fixtures::write_npy(dir + "/emb.npy", tensor({4, 2}, {1, 0, 0, 1, 1, 1, 2, 0}));
    core::io::TensorFile qkv;
    qkv.tensors["Q"] = tensor({2, 2}, {1, 2, 3, 4});
    qkv.tensors["K"] = tensor({2, 2}, {1, 0, 0, 1});
    qkv.tensors["V"] = tensor({2, 1}, {5, 6});
    fixtures::write_npz(dir + "/qkv.npz", qkv, false);

    headless::Ui ui;
    ui.frames(2);
    headless::menu_click(ui, "File", "Open…");
    ui.frames(2);
    REQUIRE(ui.st().dialog.title() == "Open scenario");
    ui.type(dir + "/emb.npy");
    ui.key(headless::key_enter);
    ui.frames(2);
    CHECK(ui.scenario().n() == 4);
    CHECK(ui.scenario().X(3, 0) == 2);
    CHECK(ui.st().path == dir + "/emb.npy");

    ui.app().drop_files({dir + "/qkv.npz"});
    ui.frames(3);
    CHECK(ui.st().drops.problems.empty());
    CHECK(ui.scenario().direct);
    CHECK(ui.scenario().heads.at(0).V(1, 0) == 6);
    CHECK(ui.st().path == dir + "/qkv.npz");
    std::system(("rm -rf " + dir).c_str());
}
