// libFuzzer target for the scenario loader. Every input must either load as a valid scenario
// that saves and loads back identically, or be refused with a ScenarioError and a message.
#include "core/attention.h"
#include "core/io/scenario_io.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    core::Scenario s;
    try {
        s = core::io::parse_scenario(text);
    } catch (const core::ScenarioError& e) {
        if (std::string(e.what()).empty()) std::abort();
        return 0;
    }
    if (!core::validate(s).empty()) std::abort();
    if (core::io::parse_scenario(core::io::to_json_text(s)) != s) std::abort();
    // Small scenarios are also computed: a loaded file must never make the math misbehave.
    if (s.n() <= 64 && s.d_model() <= 64) {
        const core::Result r = core::compute(s);
        for (const auto& h : r.heads)
            if (!h.weights.allFinite()) std::abort();
    }
    return 0;
}
