#include "app/cli/cli_presets.h"

#include "core/presets.h"

#include <nlohmann/json.hpp>

namespace app {

std::string presets_json() {
    nlohmann::json list = nlohmann::json::array();
    for (const core::PresetInfo& p : core::presets()) list.push_back({{"id", p.id}, {"title", p.name}});
    return list.dump(1) + "\n";
}

void check_preset_args(Options& o, bool seed_given, bool tokens_given, bool dim_given) {
    if (o.mode == Options::Mode::presets && (!o.file.empty() || !o.preset.empty())) throw UsageError("--presets takes no FILE or --preset");
    if (o.preset.empty()) return;
    if (!core::find_preset(o.preset)) throw UsageError("--preset: there is no preset \"" + o.preset + "\" (attnviz --presets lists them)");
    if (!o.file.empty()) throw UsageError("--preset " + o.preset + " and FILE (" + o.file + ") both name a scenario; give one");
    using M = Options::Mode;
    if (o.mode != M::window && o.mode != M::screenshot && o.mode != M::dump && o.mode != M::explain && o.mode != M::decode &&
        o.mode != M::export_file)
        throw UsageError("--preset goes where FILE does: the window, --screenshot, --dump, --explain, --decode, --export");
    const bool numpy_random = o.preset == core::numpy_random_id;
    if ((seed_given || tokens_given || dim_given) && !numpy_random)
        throw UsageError(std::string("--seed, --tokens and --dim go with --preset ") + core::numpy_random_id);
    if (!seed_given) o.seed = core::NumpyRandomParams{}.seed;
    if (!tokens_given) o.tokens = core::NumpyRandomParams{}.n;
    if (!dim_given) o.dim = core::NumpyRandomParams{}.d;
}

core::Scenario preset_scenario(const Options& o) {
    if (o.preset == core::numpy_random_id) return core::numpy_random_qkv(static_cast<std::uint64_t>(o.seed), o.tokens, o.dim);
    return core::find_preset(o.preset)->make();
}

} // namespace app
