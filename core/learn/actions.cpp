// core/learn/actions.cpp — the rows of the action table (see actions.h) and applying them.
#include "core/learn/actions.h"

#include "core/assets.h"
#include "core/explain.h"
#include "core/model/tokenizer/tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>

namespace core::learn {

namespace {

namespace fs = std::filesystem;

std::vector<double> numbers(const toml::node& n, const char* key, const LessonReader& r) {
    const toml::array* a = n.as_array();
    if (!a || a->empty()) r.fail(LessonReader::line(n), std::string("\"") + key + "\" must be a list of numbers, like [0.5, 1]");
    std::vector<double> out;
    for (const toml::node& item : *a) {
        const std::optional<double> v = item.value<double>();
        if (!v || !is_acceptable_value(*v)) r.fail(LessonReader::line(item), std::string("every entry of \"") + key + "\" must be a finite number");
        out.push_back(*v);
    }
    return out;
}

// [SECTION] The rows: read

void read_load(const toml::table& t, Actions& a, const LessonReader& r) { a.load = r.scenario(t, LessonReader::line(t)); }
void read_causal(const toml::table& t, Actions& a, const LessonReader& r) { a.causal = r.boolean(t, "causal"); }
void read_scale(const toml::table& t, Actions& a, const LessonReader& r) { a.scale = r.boolean(t, "scale"); }

// The whole number under `key`, from `low` to `high`; none where the key is absent. Another type or a
// number outside fails with `message` at the key's line.
std::optional<int> whole_number(const toml::table& t, const char* key, std::int64_t low, std::int64_t high, const LessonReader& r,
                                const char* message) {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const std::optional<std::int64_t> v = n->value<std::int64_t>();
    if (!n->is_integer() || !v || *v < low || *v > high) r.fail(LessonReader::line(*n), message);
    return static_cast<int>(*v);
}

// rule = "delta", beta = 0.5, decay = 1, window = 2: the attention rule and the numbers it reads.
void read_rule(const toml::table& t, Actions& a, const LessonReader& r) {
    if (t.contains("rule")) {
        a.rule = rule_of_name(r.string(t, "rule", true, a.lines.at("rule")));
        if (!a.rule) r.fail(a.lines.at("rule"), "\"rule\" must be \"softmax\", \"linear\" or \"delta\"");
    }
    for (auto [key, field] : {std::pair<const char*, std::optional<double>*>{"beta", &a.beta}, {"decay", &a.decay}}) {
        const toml::node* n = t.get(key);
        if (!n) continue;
        const std::optional<double> v = n->value<double>();
        if (!v || !check_unit_interval(*v, key).empty()) r.fail(LessonReader::line(*n), std::string("\"") + key + "\" must be a number from 0 to 1");
        *field = *v;
    }
    if (const auto w = whole_number(t, "window", 0, Limits::max_tokens, r, "\"window\" must be 0 (off) or a width from 1")) a.window = w;
}

void read_head(const toml::table& t, Actions& a, const LessonReader& r) {
    if (const auto h = whole_number(t, "head", 1, Limits::max_heads, r, "\"head\" must be a head number from 1")) a.head = h;
}

void read_select(const toml::table& t, Actions& a, const LessonReader& r) {
    const toml::node* s = t.get("select");
    if (!s) return;
    if (s->is_integer()) a.select = std::to_string(s->value<int64_t>().value_or(0));
    else a.select = r.string(t, "select", false, a.lines.at("select"));
}

void read_pin(const toml::table& t, Actions& a, const LessonReader& r) {
    if (const toml::node* pin = t.get("pin")) {
        if (pin->is_boolean()) a.pin = pin->value<bool>().value_or(false) ? Actions::Pin::pin : Actions::Pin::release;
        else if (pin->is_string()) {
            a.pin = Actions::Pin::pin;
            a.pin_row = pin->value<std::string>().value_or("");
        } else r.fail(LessonReader::line(*pin), "\"pin\" must be a token (pin its query), true (the selected row) or false (release)");
    }
    if (const toml::node* q = t.get("q")) {
        if (a.pin != Actions::Pin::pin) r.fail(LessonReader::line(*q), "\"q\" sets a pinned query: add pin = \"TOKEN\"");
        a.q = numbers(*q, "q", r);
    }
}


void read_open(const toml::table& t, Actions& a, const LessonReader& r) {
    a.open = r.strings(t, "open");
    for (const std::string& p : a.open)
        if (std::find(panel_ids().begin(), panel_ids().end(), p) == panel_ids().end()) {
            std::string list;
            for (const std::string& id : panel_ids()) list += (list.empty() ? "" : ", ") + id;
            r.fail(a.lines["open"], "unknown panel \"" + p + "\" (known: " + list + ")");
        }
}

void read_highlight(const toml::table& t, Actions& a, const LessonReader& r) {
    for (const std::string& h : r.strings(t, "highlight")) {
        try {
            Expr e = Expr::parse(h);
            if (!e.is_place()) r.fail(a.lines["highlight"], "highlight `" + h + "` must name a matrix, a row or a cell, like A[\"it\"]");
            a.highlight.push_back(std::move(e));
        } catch (const ExprError& err) {
            r.fail(a.lines["highlight"], "highlight `" + h + "`: " + err.what() + " (column " + std::to_string(err.column) + ")");
        }
    }
}

void read_train(const toml::table& t, Actions& a, const LessonReader& r) { a.train = r.boolean(t, "train").value_or(false); }

// model = "austen-gpt2" (a model attnviz ships) or a directory relative to the lesson, with config.json.
void read_model(const toml::table& t, Actions& a, const LessonReader& r) {
    const std::string name = r.string(t, "model", false, 0), text = r.string(t, "model_text", false, 0);
    if (name.empty() != text.empty())
        r.fail(a.lines.at(name.empty() ? "model_text" : "model"), "give model and model_text together: a model directory and the text to show its heads on");
    if (name.empty()) return;
    const fs::path shipped = asset_path("models/" + name);
    const fs::path full = fs::path(name).is_absolute() ? fs::path(name) : fs::path(r.path()).parent_path() / name;
    std::error_code ec;
    if (!shipped.empty() && fs::is_regular_file(shipped / "config.json", ec)) a.model = shipped.string();
    else if (fs::is_regular_file(full / "config.json", ec)) a.model = full.string();
    else r.fail(a.lines.at("model"), "model \"" + name + "\" is neither a model attnviz ships nor a directory with config.json next to the lesson");
    a.model_text = text;
}

// A patch token: a text the model's tokenizer makes one token.
void check_token(const std::string& model, const std::string& key, const std::string& text, int line, const LessonReader& r) {
    std::string problem;
    try {
        const size_t n = core::model::load_tokenizer(model).encode_ids(text, false).size();
        if (n != 1) problem = " is " + std::to_string(n) + " tokens of the model's vocabulary, not one";
    } catch (const std::exception& e) {
        problem = ": the model's tokenizer does not read (" + std::string(e.what()) + ")";
    }
    if (!problem.empty()) r.fail(line, "patch " + key + " \"" + text + "\"" + problem);
}

// patch = { corrupt = "…", answer = " friend", vs = " house" }, with model and model_text (the clean prompt).
void read_patch(const toml::table& t, Actions& a, const LessonReader& r) {
    const toml::node* n = t.get("patch");
    if (!n) return;
    const toml::table* p = n->as_table();
    const int line = LessonReader::line(*n);
    if (!p) r.fail(line, "\"patch\" must be a table, like patch = { corrupt = \"…\", answer = \" friend\", vs = \" house\" }");
    if (a.model.empty()) r.fail(line, "patch needs model and model_text: the model and the clean prompt");
    r.only_keys(*p, {"corrupt", "answer", "vs", "show"}, "patch key");
    Actions::Patch out{r.string(*p, "corrupt", true, line), r.string(*p, "answer", true, line), r.string(*p, "vs", true, line)};
    if (p->contains("show")) out.show = r.strings(*p, "show");
    static const std::set<std::string> views{"recovery", "attribution", "lens", "composition", "qk"};
    for (const std::string& view : out.show)
        if (!views.count(view)) r.fail(line, "patch shows \"" + view + "\": give recovery, attribution, lens, composition or qk");
    check_token(a.model, "answer", out.answer, line, r);
    check_token(a.model, "vs", out.vs, line, r);
    if (out.answer == out.vs) r.fail(line, "patch answer and vs are the same token: their logit difference is always 0");
    a.patch = std::move(out);
}

// [SECTION] The rows: apply

void apply_load(const Actions& a, StepState& st, std::vector<ActionProblem>&) {
    if (!a.load) return;
    st.scenario = *a.load;
    st.selected_row = st.selected_head = 0;
}

void apply_causal(const Actions& a, StepState& st, std::vector<ActionProblem>&) {
    if (a.causal) st.scenario.causal = *a.causal;
}

void apply_scale(const Actions& a, StepState& st, std::vector<ActionProblem>&) {
    if (a.scale) st.scenario.scale = *a.scale ? ScoreScale::inv_sqrt_d_k : ScoreScale::none;
}

void apply_rule(const Actions& a, StepState& st, std::vector<ActionProblem>&) {
    if (a.rule) st.scenario.rule = *a.rule;
    if (a.beta) st.scenario.beta = *a.beta;
    if (a.decay) st.scenario.decay = *a.decay;
    if (a.window) st.scenario.window = *a.window;
}

void apply_head(const Actions& a, StepState& st, std::vector<ActionProblem>& problems) {
    if (!a.head) return;
    if (*a.head >= 1 && *a.head <= static_cast<int>(st.scenario.heads.size())) st.selected_head = *a.head - 1;
    else problems.push_back({"head", "no head " + std::to_string(*a.head)});
}

void apply_select(const Actions& a, StepState& st, std::vector<ActionProblem>& problems) {
    if (a.select.empty()) return;
    const int row = find_row(st.scenario, a.select);
    if (row >= 0) st.selected_row = row;
    else problems.push_back({"select", "no token \"" + a.select + "\" to select"});
}

void apply_pin(const Actions& a, StepState& st, std::vector<ActionProblem>& problems) {
    Scenario& s = st.scenario;
    if (a.pin == Actions::Pin::release) s.pin.reset();
    if (a.pin != Actions::Pin::pin) return;
    const int row = a.pin_row.empty() ? st.selected_row : find_row(s, a.pin_row);
    if (row < 0) {
        problems.push_back({"pin", "no token \"" + a.pin_row + "\" to pin"});
        return;
    }
    Vector q;
    if (a.q) {
        if (static_cast<int>(a.q->size()) != s.d_k()) {
            problems.push_back({"q", "q has " + std::to_string(a.q->size()) + " numbers, d_k is " + std::to_string(s.d_k())});
            return;
        }
        q = Eigen::Map<const Vector>(a.q->data(), static_cast<Eigen::Index>(a.q->size()));
    } else {
        q = compute(s).heads[static_cast<size_t>(st.selected_head)].Q.row(row).transpose(); // (d_k), positions included
    }
    s.pin = QueryPin{st.selected_head, row, q};
    st.selected_row = row;
}

void apply_open(const Actions& a, StepState& st, std::vector<ActionProblem>&) { st.open_panels = a.open; }
void apply_train(const Actions& a, StepState& st, std::vector<ActionProblem>&) { st.train = a.train; }
void apply_model(const Actions&, StepState&, std::vector<ActionProblem>&) {} // the Lesson panel shows the step's model

void apply_highlight(const Actions& a, StepState& st, std::vector<ActionProblem>& problems) {
    st.highlights.clear();
    if (a.highlight.empty()) return;
    const Result r = compute(st.scenario);
    for (const Expr& e : a.highlight) {
        try {
            st.highlights.push_back(e.place(st.scenario, r));
        } catch (const ExprError& err) {
            problems.push_back({"highlight", "highlight " + e.text() + ": " + err.what()});
        }
    }
}

std::vector<ActionProblem> apply_all(const Actions& a, StepState& st) {
    std::vector<ActionProblem> problems;
    for (const ActionKind& k : action_kinds()) k.apply(a, st, problems);
    st.selected_row = std::clamp(st.selected_row, 0, st.scenario.n() - 1);
    st.selected_head = std::clamp(st.selected_head, 0, static_cast<int>(st.scenario.heads.size()) - 1);
    return problems;
}

} // namespace

const std::vector<ActionKind>& action_kinds() {
    static const std::vector<ActionKind> table = {
        {{"preset", "file"}, read_load, apply_load},
        {{"causal"}, read_causal, apply_causal},
        {{"scale"}, read_scale, apply_scale},
        {{"rule", "beta", "decay", "window"}, read_rule, apply_rule},
        {{"head"}, read_head, apply_head},
        {{"select"}, read_select, apply_select},
        {{"pin", "q"}, read_pin, apply_pin},
        {{"open"}, read_open, apply_open},
        {{"highlight"}, read_highlight, apply_highlight},
        {{"train"}, read_train, apply_train},
        {{"model", "model_text"}, read_model, apply_model},
        {{"patch"}, read_patch, apply_model},
    };
    return table;
}

Actions read_actions(const toml::node& node, const LessonReader& r) {
    const toml::table* t = node.as_table();
    if (!t) r.fail(LessonReader::line(node), "\"actions\" must be a table, like actions = { select = \"it\" }");
    std::vector<std::string> keys;
    for (const ActionKind& k : action_kinds()) keys.insert(keys.end(), k.keys.begin(), k.keys.end());
    r.only_keys(*t, keys, "action");
    Actions a;
    a.lines = LessonReader::key_lines(*t);
    for (const ActionKind& k : action_kinds()) k.read(*t, a, r);
    return a;
}

std::vector<std::string> apply(const Actions& a, StepState& st) {
    std::vector<std::string> texts;
    for (ActionProblem& p : apply_all(a, st)) texts.push_back(std::move(p.text));
    return texts;
}

void apply_checked(const Actions& a, StepState& st, const LessonReader& r) {
    const std::vector<ActionProblem> problems = apply_all(a, st);
    if (problems.empty()) return;
    const auto it = a.lines.find(problems.front().key);
    r.fail(it != a.lines.end() ? it->second : 0, problems.front().text);
}

} // namespace core::learn
