#include "app/cli_tokenize.h"
#include "app/cli_flags.h"
#include "app/options.h"

#include "core/io/tensor.h"
#include "core/model/format/checkpoint.h"
#include "core/model/format/ollama.h"
#include "core/model/format/stores.h"
#include "core/model/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace app {

namespace {


struct TokenizeOptions {
    std::string model, text;
    bool text_given = false;
};

TokenizeOptions parse(int argc, const char* const* argv) {
    TokenizeOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--tokenize") o.model = flag_value(argc, argv, i);
        else if (a == "--text") o.text = flag_value(argc, argv, i), o.text_given = true;
        else throw UsageError("--tokenize takes MODEL and --text TEXT, not " + a);
    }
    if (!o.text_given) throw UsageError("--tokenize needs --text TEXT");
    return o;
}

// A GGUF file's own (the file named, or an Ollama NAME:TAG's blob); a Hugging Face cache entry
// (models--ORG--NAME) stands for its snapshot; anything else is read as it is, so that a folder with
// only a tokenizer works too.
core::model::Tokenizer tokenizer_for(const std::string& model) {
    std::error_code ec;
    const auto stored = std::filesystem::exists(model, ec) ? std::nullopt : core::model::find_ollama_model(model, core::model::ollama_store_dir());
    const std::string file = stored ? stored->path : model;
    if (core::model::has_gguf_magic(file)) return core::model::gguf_tokenizer(core::model::read_gguf(file));
    const std::filesystem::path p(model);
    const std::string folder = p.filename().empty() ? p.parent_path().filename().string() : p.filename().string();
    return core::model::load_tokenizer(folder.rfind("models--", 0) == 0 ? core::model::resolve_model_dir(model) : model);
}

} // namespace

int run_tokenize_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] {
        const TokenizeOptions o = parse(argc, argv);
        const core::model::Tokenizer t = tokenizer_for(o.model);
        core::model::Encoding enc;
        try {
            enc = t.encode(o.text);
        } catch (const core::model::TokenizerError& e) {
            err << "attnviz: --text: " << e.what() << "\n";
            return 2;
        }
        const nlohmann::json j = {{"ids", enc.ids}, {"tokens", enc.tokens}};
        out << j.dump() << "\n";
        return 0;
    });
}

} // namespace app
