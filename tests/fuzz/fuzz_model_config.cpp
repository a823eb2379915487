// libFuzzer target for config.json: refused with one line that names the file, or a configuration
// a forward pass can be built from (sizes positive, heads a multiple of the key/value heads, one
// sliding window per layer, an even rotary width within the head, a supported architecture).
#include "core/model/arch/table.h"
#include "core/model/config.h"
#include "refusal_checks.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    core::model::ModelConfig c;
    if (!fuzz::parses_or_refuses_in_one_line(core::model::parse_config, data, size, "fuzz/config.json", c)) return 0;
    if (!core::model::find_architecture(c.architecture)) std::abort();
    if (c.vocab < 1 || c.d_model < 1 || c.layers < 1 || c.heads < 1 || c.kv_heads < 1 || c.d_head < 1 || c.d_ff < 1 || c.context < 1) std::abort();
    if (c.heads % c.kv_heads != 0 || !(c.norm_eps > 0)) std::abort();
    if (c.sliding_window.size() != static_cast<std::size_t>(c.layers)) std::abort();
    if (c.rotary_dim % 2 != 0 || c.rotary_dim > c.d_head) std::abort();
    if (c.rotary_dim == 0 && c.d_head * c.heads != c.d_model) std::abort(); // only rotary families take head_dim
    return 0;
}
