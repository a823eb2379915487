#include "app/cli/cli_stores.h"
#include "app/cli/cli_flags.h"
#include "app/options.h"

#include "core/model/open.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace app {

int run_list_models_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] {
        for (int i = 1; i < argc; ++i)
            if (std::string(argv[i]) != "--list-models") throw UsageError("--list-models takes nothing more, not " + std::string(argv[i]));
        core::model::ModelListing listing = core::model::list_models(core::model::store_places());
        for (const std::string& p : listing.problems) err << "attnviz: " << p << "\n";
        if (auto bundled = core::model::bundled_model()) listing.models.insert(listing.models.begin(), std::move(*bundled)); // first, as in Open model
        nlohmann::json models = nlohmann::json::array();
        for (const auto& m : listing.models)
            models.push_back({{"name", m.name}, {"store", m.store}, {"path", m.path}, {"format", m.format}, {"bytes", m.bytes},
                              {"quantization", m.quantization.empty() ? nlohmann::json() : nlohmann::json(m.quantization)},
                              {"complete", m.complete}});
        out << nlohmann::json{{"models", models}}.dump(1) << "\n";
        return 0;
    });
}

} // namespace app
