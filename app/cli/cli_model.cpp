// app/cli/cli_model.cpp — real checkpoints on the command line.
//
// [SECTION] flags
// [SECTION] input ids
// [SECTION] JSON
// [SECTION] modes
#include "app/cli/cli_model.h"

#include "app/cli/cli_flags.h"
#include "core/error_text.h"
#include "app/options.h"

#include "core/io/safetensors.h"
#include "core/model/open.h"
#include "core/model/requests/bench.h"
#include "core/model/requests/forward.h"
#include "core/model/session.h"
#include "core/model/input.h"
#include "core/model/fast_product.h"
#include "core/model/tokenizer/tokenizer.h"
#include "core/parallel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace app {

namespace {

// [SECTION] flags ---------------------------------------------------------------------------------

enum class Mode { forward, generate, export_attention, bench };

struct ModelOptions {
    Mode mode = Mode::forward;
    std::string model, text, sequence, out, ablate, ablate_experts;
    bool text_given = false, sequence_given = false, ablate_given = false, ablate_experts_given = false, fast = false;
    core::heads::Ablation ablation = core::heads::Ablation::zero;
    int tokens = 0, reps = 5;
};

const char* mode_flag(Mode m) {
    switch (m) {
    case Mode::forward: return "--forward";
    case Mode::generate: return "--generate";
    case Mode::export_attention: return "--export-attention";
    case Mode::bench: return "--bench-model";
    }
    return "";
}

ModelOptions parse(int argc, const char* const* argv) {
    ModelOptions o;
    bool mode_set = false, tokens_given = false, reps_given = false, mode_given = false;
    auto value_of = [&](int& i) { return flag_value(argc, argv, i); };
    auto set_mode = [&](Mode m, int& i, const std::string& flag) {
        if (mode_set) throw UsageError("only one of --forward, --generate, --export-attention, --bench-model at a time (" + flag + ")");
        o.mode = m;
        mode_set = true;
        o.model = value_of(i);
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--forward") set_mode(Mode::forward, i, a);
        else if (a == "--generate") set_mode(Mode::generate, i, a);
        else if (a == "--export-attention") set_mode(Mode::export_attention, i, a);
        else if (a == "--bench-model") set_mode(Mode::bench, i, a);
        else if (a == "--text") { o.text = value_of(i); o.text_given = true; }
        else if (a == "--sequence") { o.sequence = value_of(i); o.sequence_given = true; }
        else if (a == "--out") o.out = value_of(i);
        else if (a == "--tokens") { o.tokens = whole_flag(a, value_of(i), 1, 1 << 20); tokens_given = true; }
        else if (a == "--reps") { o.reps = whole_flag(a, value_of(i), 1, 100000); reps_given = true; }
        else if (a == "--ablate") { o.ablate = value_of(i); o.ablate_given = true; }
        else if (a == "--ablate-expert") { o.ablate_experts = value_of(i); o.ablate_experts_given = true; }
        else if (a == "--fast") o.fast = true;
        else if (a == "--ablate-mode") { o.ablation = ablation_of(value_of(i)); mode_given = true; }
        else throw unknown_option(a, {"--forward", "--generate", "--export-attention", "--bench-model", "--text", "--sequence", "--out", "--tokens", "--reps",
                                      "--ablate", "--ablate-expert", "--fast", "--ablate-mode"}, mode_flag(o.mode));
    }
    const std::string mode = mode_flag(o.mode);
    if (o.ablate_given && o.mode != Mode::forward && o.mode != Mode::generate) throw UsageError("--ablate goes with --forward or --generate");
    if (o.ablate_experts_given && o.mode != Mode::forward && o.mode != Mode::generate) throw UsageError("--ablate-expert goes with --forward or --generate");
    if (mode_given && !o.ablate_given) throw UsageError("--ablate-mode goes with --ablate");
    if (o.fast && o.mode == Mode::export_attention) throw UsageError("--fast goes with --forward, --generate or --bench-model");
    if (o.mode == Mode::bench) {
        if (!tokens_given) throw UsageError("--bench-model needs --tokens N");
        if (o.text_given || o.sequence_given || !o.out.empty()) throw UsageError("--bench-model runs random ids; it takes only --tokens, --reps and --fast");
        return o;
    }
    if (reps_given) throw UsageError("--reps goes with --bench-model");
    if (o.text_given == o.sequence_given) throw UsageError(mode + " needs --text TEXT or --sequence \"ids\" (one of them)");
    if (tokens_given != (o.mode == Mode::generate)) throw UsageError(o.mode == Mode::generate ? "--generate needs --tokens N" : "--tokens goes with --generate or --bench-model");
    if (o.out.empty() == (o.mode == Mode::export_attention)) throw UsageError(o.out.empty() ? "--export-attention needs --out att.safetensors" : "--out goes with --export-attention");
    return o;
}

// [SECTION] input ids -----------------------------------------------------------------------------

using Input = ModelInput;

Input input_of(const ModelOptions& o, const core::model::OpenedModel& m) { return model_input(m, o.text_given, o.text, o.sequence); }

// [SECTION] JSON ----------------------------------------------------------------------------------

// Decoded text can end inside a character (a byte-level token is a byte): U+FFFD stands in.
std::string safe_dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

void matrix(std::string& s, const float* p, long rows, long cols) { append_matrix(s, p, rows, cols); }

// Where a layer has a learned sink: "sink", each layer's (null for a layer without) heads × queries
// sink shares, the weight each query's softmax gave the sink.
void write_sink_json(std::string& s, const core::model::ForwardResult& r) {
    if (r.sink_share.empty()) return;
    s += ", \"sink\": [";
    for (int l = 0; l < r.layers; ++l) {
        if (l) s += ", ";
        if (!r.kinds[static_cast<std::size_t>(l)].learned_sink()) {
            s += "null";
            continue;
        }
        matrix(s, r.sink_share.data() + static_cast<std::ptrdiff_t>(l) * r.heads * r.t_new, r.heads, r.t_new);
    }
    s += ']';
}

// Where a layer is linear (Qwen3.5, Qwen3-Next): "layers", each layer's kind as the grid writes it
// ("linear · no RoPE", "full"), so that a reader knows which maps are signed matrices M.
void write_layers_json(std::string& s, const core::model::ForwardResult& r) {
    if (std::none_of(r.kinds.begin(), r.kinds.end(), [](const core::model::AttentionKind& k) { return k.linear; })) return;
    std::vector<std::string> labels;
    for (const core::model::AttentionKind& k : r.kinds) labels.push_back(core::model::kind_label(k));
    s += ", \"layers\": " + safe_dump(nlohmann::json(labels));
}

// `experts`, for a model with mixture layers: an entry per one, {"layer" (from 1), "ids": (t, k) the
// chosen experts from 1, largest weight first, "weights": (t, k)}.
std::string experts_json(const core::model::ForwardResult& r) {
    std::string s = "[";
    for (const core::model::LayerRouting& lr : r.routing) {
        std::vector<std::vector<int>> ids(static_cast<std::size_t>(r.t_new)); // (t, k) from 1
        for (std::size_t j = 0; j < lr.chosen.size(); ++j) ids[j / static_cast<std::size_t>(lr.top_k)].push_back(lr.chosen[j] + 1);
        s += (s.size() > 1 ? ", " : "") + std::string("{\"layer\": ") + std::to_string(lr.layer + 1) + ", \"ids\": " + nlohmann::json(ids).dump() +
             ", \"weights\": ";
        append_matrix(s, lr.weights.data(), static_cast<long>(lr.weights.rows()), static_cast<long>(lr.weights.cols()));
        s += '}';
    }
    return s + "]";
}

// Written one head's map at a time: every map is rebuilt in turn, never all held.
void write_forward_json(std::ostream& out, const Input& in, const core::model::ForwardResult& r, bool logits) {
    std::string s = "{\"ids\": " + nlohmann::json(in.ids).dump() + ", \"tokens\": " + safe_dump(nlohmann::json(in.tokens));
    s += logits ? ", \"logits\": " : ", \"hidden\": ";
    const core::model::MatrixF& m = logits ? r.logits : r.hidden;
    matrix(s, m.data(), static_cast<long>(m.rows()), static_cast<long>(m.cols()));
    if (!r.routing.empty()) s += ", \"experts\": " + experts_json(r);
    write_layers_json(s, r);
    s += ", \"attention\": [";
    for (int l = 0; l < r.layers; ++l) {
        s += l ? ", [" : "[";
        for (int h = 0; h < r.heads; ++h) {
            if (h) s += ", ";
            const core::model::MatrixF A = r.maps.head(l, h); // (t_new, t_total)
            matrix(s, A.data(), r.t_new, r.t_total);
            out << s;
            s.clear();
        }
        s += ']';
    }
    s += "]";
    write_sink_json(s, r);
    s += "}\n";
    out << s;
}

double peak_rss_mb() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    return -1.0;
}

// [SECTION] modes ---------------------------------------------------------------------------------

// --ablate's heads and how, --ablate-expert's experts.
core::model::ForwardOptions forward_options(const ModelOptions& o, const core::model::OpenedModel& m) {
    core::model::ForwardOptions fo;
    const core::model::ModelConfig& c = m.model->config();
    if (o.ablate_given) fo.ablate = parse_head_list("--ablate", o.ablate, c.layers, c.heads, c.name);
    if (o.ablate_experts_given) fo.ablate_experts = parse_expert_list("--ablate-expert", o.ablate_experts, *m.model);
    fo.ablation = o.ablation;
    fo.fast_products = o.fast && core::model::fast::available();
    return fo;
}

int run_forward(const ModelOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const Input in = input_of(o, m);
    const core::model::ForwardResult r = core::model::run_forward(*m.model, in.ids, forward_options(o, m));
    write_forward_json(out, in, r, m.model->config().lm_head);
    return 0;
}

int run_generate(const ModelOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    if (!m.model->causal()) throw UsageError(m.path + ": " + m.model->config().architecture + " attends both ways and does not generate text");
    const Input in = input_of(o, m);
    const std::vector<int> made = core::model::generate(*m.model, {in.ids, o.tokens, forward_options(o, m)});
    std::vector<std::string> made_tokens;
    for (int id : made) made_tokens.push_back(token_text(in.tokenizer, id));
    nlohmann::json j = {{"prompt_ids", in.ids}, {"prompt_tokens", in.tokens}, {"ids", made}, {"tokens", made_tokens}, {"text", nullptr}};
    if (in.tokenizer.vocab_size()) j["text"] = in.tokenizer.decode(made);
    out << safe_dump(j) << "\n";
    return 0;
}

// The tokens as a person reads them ("␣cat" for "Ġcat"), for the viewer's labels.
std::vector<std::string> labels(const Input& in) {
    if (!in.tokenizer.vocab_size()) return in.tokens;
    std::vector<std::string> out;
    for (int id : in.ids) out.push_back(in.tokenizer.token_display(id));
    return out;
}

int run_export(const ModelOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const Input in = input_of(o, m);
    const core::model::ForwardResult r = core::model::run_forward(*m.model, in.ids);
    core::model::write_attention_file(o.out, r, labels(in), m.name);
    out << nlohmann::json({{"out", o.out}, {"layers", r.layers}, {"heads", r.heads}, {"tokens", r.t_new}}).dump() << "\n";
    return 0;
}

int run_bench(const ModelOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const core::model::BenchResult b = core::model::bench_model(*m.model, {o.tokens, o.reps, forward_options(o, m)}, m.path);
    out << nlohmann::json({{"median_ms", b.median_ms}, {"min_ms", b.min_ms}, {"forward_ms", b.forward_ms}, {"tokens", o.tokens},
                           {"fast", o.fast && core::model::fast::available()}, {"step_ms", b.step_ms ? nlohmann::json(*b.step_ms) : nlohmann::json()},
                           {"reps", o.reps}, {"threads", core::parallel::threads()}, {"rss_mb", std::round(peak_rss_mb() * 10) / 10},
                           {"weights_mb", std::round(static_cast<double>(m.weights->file_bytes()) / (1 << 20) * 10) / 10},
                           {"attention_mb", std::round(b.attention_mb * 10) / 10}})
               .dump()
        << "\n";
    return 0;
}

} // namespace

ModelInput model_input(const core::model::OpenedModel& m, const core::model::InputRequest& q, const std::string& flag) {
    try {
        return core::model::read_input(m, q);
    } catch (const core::model::InputError& e) {
        throw core::model::InputError(flag + ": " + e.what());
    }
}

ModelInput model_input(const core::model::OpenedModel& m, bool text_given, const std::string& text, const std::string& sequence) {
    return model_input(m, {text_given, text_given ? text : sequence}, text_given ? "--text" : "--sequence");
}

std::vector<int> sequence_ids(const std::string& sequence, int vocab, const std::string& name) {
    std::vector<int> ids;
    try {
        ids = core::model::parse_ids(sequence, vocab, name);
    } catch (const core::model::InputError& e) {
        throw UsageError(std::string("--sequence: ") + e.what());
    }
    if (ids.empty()) throw UsageError("--sequence has no token ids");
    return ids;
}

int small_whole_number(const std::string& s) {
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
    return std::stoi(s);
}

core::heads::Ablation ablation_of(const std::string& text) {
    if (text == "zero") return core::heads::Ablation::zero;
    if (text == "mean") return core::heads::Ablation::mean;
    throw UsageError("--ablate-mode takes zero or mean, not \"" + text + "\"");
}

namespace {

// "L.N,L.N" from 1 into (layer, n) pairs from 0, each once; `noun` ("heads", "experts") for messages.
std::vector<std::pair<int, int>> parse_pairs(const std::string& flag, const std::string& spec, int layers, int per_layer, const std::string& noun,
                                             const std::string& name) {
    const std::string form = noun == "heads" ? "LAYER.HEAD" : "LAYER.EXPERT";
    if (spec.empty()) throw UsageError(flag + " needs " + noun + " as " + form + ", counting from 1, separated by commas (\"1.2,3.4\")");
    std::vector<std::pair<int, int>> pairs;
    for (size_t at = 0; at <= spec.size();) {
        const size_t comma = std::min(spec.find(',', at), spec.size());
        const std::string item = spec.substr(at, comma - at);
        at = comma + 1;
        const size_t dot = item.find('.');
        const int layer = dot == std::string::npos ? -1 : small_whole_number(item.substr(0, dot)), n = dot == std::string::npos ? -1 : small_whole_number(item.substr(dot + 1));
        if (layer < 0 || n < 0) throw UsageError(flag + ": \"" + item + "\" is not " + form + " (whole numbers from 1, e.g. \"1.2,3.4\")");
        if (layer < 1 || layer > layers)
            throw UsageError(flag + ": " + item + ": " + name + " has " + std::to_string(layers) + " layers, counted from 1");
        if (n < 1 || n > per_layer)
            throw UsageError(flag + ": " + item + ": " + name + " has " + std::to_string(per_layer) + " " + noun + " per layer, counted from 1");
        const std::pair<int, int> ref{layer - 1, n - 1};
        if (std::find(pairs.begin(), pairs.end(), ref) == pairs.end()) pairs.push_back(ref);
    }
    return pairs;
}

} // namespace

std::vector<core::heads::HeadRef> parse_head_list(const std::string& flag, const std::string& spec, int layers, int heads_per_layer, const std::string& name) {
    std::vector<core::heads::HeadRef> heads;
    for (const auto& [l, h] : parse_pairs(flag, spec, layers, heads_per_layer, "heads", name)) heads.push_back({l, h});
    return heads;
}

std::vector<core::model::ExpertRef> parse_expert_list(const std::string& flag, const std::string& spec, const core::model::Model& model) {
    const core::model::ModelConfig& c = model.config();
    int most = 0; // the widest mixture's experts
    for (int l = 0; l < c.layers; ++l) most = std::max(most, model.experts(l));
    if (most == 0) throw UsageError(flag + ": " + c.name + " (" + c.architecture + ") has no experts");
    std::vector<core::model::ExpertRef> experts;
    for (const auto& [l, e] : parse_pairs(flag, spec, c.layers, most, "experts", c.name)) {
        if (model.experts(l) == 0)
            throw UsageError(flag + ": " + std::to_string(l + 1) + "." + std::to_string(e + 1) + ": layer " + std::to_string(l + 1) + " of " + c.name +
                             " has a dense MLP, no experts");
        experts.push_back({l, e});
    }
    return experts;
}

void append_matrix(std::string& s, const float* p, long rows, long cols) {
    char buf[32];
    s += '[';
    for (long i = 0; i < rows; ++i) {
        s += i ? ", [" : "[";
        for (long j = 0; j < cols; ++j) {
            if (j) s += ", ";
            const float v = p[i * cols + j];
            const int n = std::isfinite(v) ? std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v)) : std::snprintf(buf, sizeof buf, "null");
            s.append(buf, static_cast<std::size_t>(n));
        }
        s += ']';
    }
    s += ']';
}

bool wants_model_mode(int argc, const char* const* argv) {
    bool forward = false, text = false, checkpoint = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--generate" || a == "--export-attention" || a == "--bench-model") return true;
        if (a == "--text") text = true;
        if (a == "--forward") {
            forward = true;
            checkpoint = i + 1 < argc && !core::model::is_trained_model_file(argv[i + 1]);
        }
    }
    return forward && (checkpoint || text);
}

// --fast where the int8 products run but a model's 16- or 32-bit matrices stay exact: why, in one line.
void warn_exact_weights(const core::model::OpenedModel& m, std::ostream& err) {
    const std::string why = core::model::fast::bf16_unavailable_reason();
    if (!core::model::fast::available() || why.empty()) return;
    if (core::model::has_float_matrices(m))
        err << "attnviz: --fast: " << why << "; they run exact\n";
}

int run_model_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] {
        const ModelOptions o = parse(argc, argv);
        if (o.fast && !core::model::fast::available())
            err << "attnviz: --fast: " << core::model::fast::unavailable_reason() << "; the products run exact\n";
        const core::model::OpenedModel m = core::model::open_model(o.model);
        if (!m.notice.empty()) err << "attnviz: " << m.name << ": " << m.notice << "\n";
        if (o.fast) warn_exact_weights(m, err);
        switch (o.mode) {
        case Mode::forward: return run_forward(o, m, out);
        case Mode::generate: return run_generate(o, m, out);
        case Mode::export_attention: return run_export(o, m, out);
        case Mode::bench: return run_bench(o, m, out);
        }
        return 2;
    });
}

bool model_opens(const Options& o, std::ostream& err) {
    try {
        core::model::open_model(o.model); // the headers only: the tokenizer is read with the window open
        return true;
    } catch (const std::exception& e) {
        err << "attnviz: " << core::error_text(e) << "\n";
        return false;
    }
}

} // namespace app
