#include "app/cli/cli_tokenize.h"
#include "app/cli/cli_flags.h"
#include "app/options.h"

#include "core/io/tensor.h"
#include "core/model/open.h"
#include "core/model/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

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

} // namespace

int run_tokenize_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] {
        const TokenizeOptions o = parse(argc, argv);
        const core::model::Tokenizer t = core::model::model_tokenizer(o.model);
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
