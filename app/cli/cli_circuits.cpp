// app/cli/cli_circuits.cpp — --logit-lens, --attribute and --patch on a checkpoint.
//
// [SECTION] flags
// [SECTION] modes
#include "app/cli/cli_circuits.h"
#include "app/options.h"

#include "app/cli/cli_flags.h"
#include "app/cli/cli_model.h"
#include "core/model/input.h"
#include "core/model/requests/circuits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>

namespace app {

namespace {

using Json = nlohmann::ordered_json;

// [SECTION] flags ---------------------------------------------------------------------------------

enum class Mode { lens, attribute, patch };

struct CircuitOptions {
    Mode mode = Mode::lens;
    std::string model;
    std::map<std::string, std::string> values; // every other flag's value, by flag
    bool has(const std::string& flag) const { return values.count(flag) > 0; }
    const std::string& at(const std::string& flag) const { return values.at(flag); }
};

// The flags each mode takes besides its own.
const std::map<Mode, std::vector<std::string>> flags_of = {
    {Mode::lens, {"--text", "--sequence", "--top"}},
    {Mode::attribute, {"--text", "--sequence", "--target", "--vs", "--position"}},
    {Mode::patch, {"--clean", "--corrupt", "--answer", "--vs", "--metric", "--by"}},
};

const char* name_of(Mode m) { return m == Mode::lens ? "--logit-lens" : m == Mode::attribute ? "--attribute" : "--patch"; }

void check_flags(const CircuitOptions& o) {
    const auto need = [&](bool ok, const std::string& what) {
        if (!ok) throw UsageError(std::string(name_of(o.mode)) + " needs " + what);
    };
    if (o.mode != Mode::patch) need(o.has("--text") != o.has("--sequence"), "--text TEXT or --sequence \"ids\" (one of them)");
    if (o.mode == Mode::attribute) need(o.has("--target"), "--target TOKEN");
    if (o.mode != Mode::patch) return;
    need(o.has("--clean") && o.has("--corrupt"), "--clean TEXT and --corrupt TEXT");
    const bool loss = o.has("--metric");
    if (loss && o.at("--metric") != "loss") throw UsageError("--metric takes loss, not \"" + o.at("--metric") + "\"");
    need(loss != (o.has("--answer") && o.has("--vs")) && (loss || !o.has("--answer") == !o.has("--vs")), "--answer TOKEN --vs TOKEN or --metric loss (one of them)");
    if (o.has("--by") && o.at("--by") != "head" && o.at("--by") != "position")
        throw UsageError("--by takes head or position, not \"" + o.at("--by") + "\"");
}

CircuitOptions parse(int argc, const char* const* argv) {
    CircuitOptions o;
    int at = 0; // the mode's flag
    for (int i = 1; i < argc; ++i)
        for (const Mode m : {Mode::lens, Mode::attribute, Mode::patch})
            if (argv[i] == std::string(name_of(m))) {
                if (at) throw UsageError(std::string("only one of --logit-lens, --attribute, --patch at a time (") + argv[i] + ")");
                o.mode = m;
                at = i;
            }
    const std::vector<std::string>& known = flags_of.at(o.mode);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i == at) o.model = flag_value(argc, argv, i);
        else if (std::find(known.begin(), known.end(), a) != known.end()) o.values[a] = flag_value(argc, argv, i);
        else throw unknown_option(a, known, name_of(o.mode));
    }
    check_flags(o);
    return o;
}

// [SECTION] modes ---------------------------------------------------------------------------------

// TOKEN: "#ID", or a text that the tokenizer makes one token.
int token_of(const std::string& flag, const std::string& text, const core::model::OpenedModel& m, const core::model::Tokenizer& tokenizer) {
    try {
        return core::model::token_id(text, tokenizer, m.model->config());
    } catch (const core::model::InputError& e) {
        throw UsageError(flag + " " + e.what());
    }
}

// a (n0, n1, …) values, row-major, as nested arrays
template <class T>
Json nested(const T* values, const std::vector<int>& shape, std::size_t dim = 0) {
    Json out = Json::array();
    std::size_t step = 1;
    for (std::size_t d = dim + 1; d < shape.size(); ++d) step *= static_cast<std::size_t>(shape[d]);
    for (int i = 0; i < shape[dim]; ++i)
        out.push_back(dim + 1 == shape.size() ? Json(values[i]) : nested(values + static_cast<std::size_t>(i) * step, shape, dim + 1));
    return out;
}

Json matrix(const core::Matrix& m) { return nested(m.data(), {static_cast<int>(m.rows()), static_cast<int>(m.cols())}); }

int run_lens(const CircuitOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const ModelInput in = model_input(m, o.has("--text"), o.has("--text") ? o.at("--text") : "", o.has("--sequence") ? o.at("--sequence") : "");
    const int k = o.has("--top") ? whole_flag("--top", o.at("--top"), 1, std::min(m.model->config().vocab, 1000)) : 5;
    core::model::CircuitsRequest q;
    q.ids = in.ids;
    q.top = k;
    const core::model::LogitLens lens = core::model::run_circuits(*m.model, q).lens;
    Json rank = nested(lens.rank_next.data(), {lens.layers, lens.t});
    for (Json& row : rank) row.back() = nullptr; // no next token after the last
    std::vector<std::string> top_tokens;
    for (const int id : lens.top) top_tokens.push_back(token_text(in.tokenizer, id));
    out << Json{{"tokens", in.tokens},
                {"top", nested(lens.top.data(), {lens.layers, lens.t, k})},
                {"top_tokens", nested(top_tokens.data(), {lens.layers, lens.t, k})},
                {"p", nested(lens.p.data(), {lens.layers, lens.t, k})},
                {"p_next", nested(lens.p_next.data(), {lens.layers, lens.t})}, {"rank_next", rank}}
               .dump(-1, ' ', false, Json::error_handler_t::replace) // a vocabulary may hold invalid UTF-8
        << "\n";
    return 0;
}

int run_attribute(const CircuitOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const ModelInput in = model_input(m, o.has("--text"), o.has("--text") ? o.at("--text") : "", o.has("--sequence") ? o.at("--sequence") : "");
    const int t = static_cast<int>(in.ids.size());
    const int position = o.has("--position") ? whole_flag("--position", o.at("--position"), 1, t) - 1 : t - 1;
    const int target = token_of("--target", o.at("--target"), m, in.tokenizer);
    const int vs = o.has("--vs") ? token_of("--vs", o.at("--vs"), m, in.tokenizer) : -1;
    core::model::CircuitsRequest q;
    q.kind = core::model::CircuitsRequest::Kind::attribution;
    q.ids = in.ids;
    q.target = target, q.vs = vs, q.position = position;
    const core::model::Attribution a = core::model::run_circuits(*m.model, q).attribution;
    out << Json{{"position", position + 1}, {"target", target}, {"target_token", token_text(in.tokenizer, target)}, {"vs", vs < 0 ? Json() : Json(vs)},
                {"vs_token", vs < 0 ? Json() : Json(token_text(in.tokenizer, vs))}, {"logit", a.logit}, {"embed", a.embed},
                {"heads", matrix(a.heads)}, {"mlps", a.mlps}, {"bias", a.bias}}
               .dump(-1, ' ', false, Json::error_handler_t::replace) // a vocabulary may hold invalid UTF-8
        << "\n";
    return 0;
}

// A prompt as ids: through the tokenizer, or written out for a model without one (as in the window).
std::vector<int> prompt_ids(const core::model::OpenedModel& m, const core::model::Tokenizer& tok, const std::string& flag, const std::string& text) {
    const std::vector<int> ids = core::model::encode_prompt(text, tok, m.model->config()).ids;
    if (ids.empty()) throw UsageError(flag + " gives no tokens");
    m.model->check_ids(ids, 0);
    return ids;
}

int run_patch(const CircuitOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const core::model::Tokenizer tok = core::model::tokenizer_of(m);
    core::model::CircuitsRequest q;
    q.kind = core::model::CircuitsRequest::Kind::patching;
    q.ids = prompt_ids(m, tok, "--clean", o.at("--clean"));
    q.corrupt = prompt_ids(m, tok, "--corrupt", o.at("--corrupt"));
    q.metric.loss = o.has("--metric");
    if (!q.metric.loss) {
        q.metric.answer = token_of("--answer", o.at("--answer"), m, tok);
        q.metric.vs = token_of("--vs", o.at("--vs"), m, tok);
    }
    const bool by_position = o.has("--by") && o.at("--by") == "position";
    q.by = by_position ? core::model::PatchBy::position : core::model::PatchBy::head;
    const core::model::Patching p = core::model::run_circuits(*m.model, q).patching;
    out << Json{{"clean_metric", p.clean_metric}, {"corrupt_metric", p.corrupt_metric}, {"by", by_position ? "position" : "head"},
                {"recovery", matrix(p.recovery)}}
               .dump()
        << "\n";
    return 0;
}

} // namespace

int run_circuits_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_on_model(argc, argv, err, parse, [&](const CircuitOptions& o, const core::model::OpenedModel& m) {
        if (o.mode == Mode::lens) return run_lens(o, m, out);
        return o.mode == Mode::attribute ? run_attribute(o, m, out) : run_patch(o, m, out);
    });
}

} // namespace app
