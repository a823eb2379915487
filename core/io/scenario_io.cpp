#include "core/io/scenario_io.h"

#include "core/io/arrays.h"
#include "core/io/files.h"
#include "core/io/formats.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace core::io {

using nlohmann::json;

namespace {

std::string type_name(const json& v) {
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "true/false";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
    }
}

[[noreturn]] void fail(const std::string& message) { throw ScenarioError(message); }

// Rejects nesting deeper than max_json_depth before the parser sees it, so that a file of
// 200,000 '[' costs one linear scan and a clear message.
void check_depth(const std::string& text) {
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_json_depth) fail("nesting is deeper than " + std::to_string(max_json_depth) + " levels");
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

double read_number(const json& v, const std::string& where) {
    if (!v.is_number()) fail(where + " is " + type_name(v) + ", expected a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(where + " is not a finite number");
    if (std::abs(x) > Limits::max_abs_value) fail(where + " is " + json_number(x) + ", outside ±1e6");
    return x;
}

Matrix read_matrix(const json& v, const std::string& name) {
    if (!v.is_array()) fail(name + " is " + type_name(v) + ", expected an array of rows");
    if (v.empty()) fail(name + " has no rows");
    if (v.size() > static_cast<size_t>(Limits::max_tokens))
        fail(name + " has " + std::to_string(v.size()) + " rows, more than the limit of " + std::to_string(Limits::max_tokens));
    const json& first = v[0];
    if (!first.is_array()) fail(name + "[0] is " + type_name(first) + ", expected an array of numbers");
    const size_t cols = first.size();
    if (cols == 0) fail(name + "[0] is empty");
    if (cols > static_cast<size_t>(Limits::max_dim))
        fail(name + " has " + std::to_string(cols) + " columns, more than the limit of " + std::to_string(Limits::max_dim));
    Matrix m(static_cast<Eigen::Index>(v.size()), static_cast<Eigen::Index>(cols));
    for (size_t r = 0; r < v.size(); ++r) {
        const std::string row_name = name + "[" + std::to_string(r) + "]";
        const json& row = v[r];
        if (!row.is_array()) fail(row_name + " is " + type_name(row) + ", expected an array of numbers");
        if (row.size() != cols)
            fail(row_name + " has " + std::to_string(row.size()) + " entries, expected " + std::to_string(cols) + " (like " + name + "[0])");
        for (size_t c = 0; c < cols; ++c)
            m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = read_number(row[c], row_name + "[" + std::to_string(c) + "]");
    }
    return m;
}

bool read_bool(const json& o, const char* key, bool fallback) {
    if (!o.contains(key)) return fallback;
    if (!o[key].is_boolean()) fail(std::string(key) + " is " + type_name(o[key]) + ", expected true or false");
    return o[key].get<bool>();
}

const json& member(const json& o, const std::string& key, const std::string& where) {
    if (!o.contains(key)) fail(where + key + " is missing");
    return o[key];
}

void reject_unknown(const json& o, std::initializer_list<const char*> known, const std::string& where) {
    for (auto it = o.begin(); it != o.end(); ++it) {
        bool ok = false;
        for (const char* k : known) ok = ok || it.key() == k;
        if (!ok) fail("unknown field \"" + where + it.key() + "\"");
    }
}

std::string errno_text() { return std::strerror(errno); }

// "line 3, column 12" of a byte offset.
std::string line_column(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
    const auto last_newline = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const std::size_t column = offset - (last_newline == std::string::npos || last_newline >= offset ? 0 : last_newline + 1) + 1;
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The path ("X[1][0]", "heads[0].W_Q[2][1]") of the first string equal to `marker`.
bool find_marker(const json& v, const std::string& marker, std::string& where) {
    if (v.is_string()) return v.get<std::string>() == marker;
    if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::string sub = where + "[" + std::to_string(i) + "]";
            if (find_marker(v[i], marker, sub)) return where = sub, true;
        }
    } else if (v.is_object()) {
        for (auto it = v.begin(); it != v.end(); ++it) {
            std::string sub = where.empty() ? it.key() : where + "." + it.key();
            if (find_marker(it.value(), marker, sub)) return where = sub, true;
        }
    }
    return false;
}

// A number too large for a double: names its field and place ("X[1][0] is 1e400, too large for a
// double (line 3, column 12)") by parsing again with a marker string in its place.
[[noreturn]] void fail_overflow(const std::string& text, const std::string& what) {
    const auto q1 = what.find('\''), q2 = what.rfind('\'');
    const std::string number = q1 != std::string::npos && q2 > q1 ? what.substr(q1 + 1, q2 - q1 - 1) : "";
    // The first place the number stands alone (not inside a longer token or a string).
    std::size_t at = number.empty() ? std::string::npos : text.find(number);
    auto alone = [&](std::size_t p) {
        const char before = p == 0 ? ' ' : text[p - 1];
        const char after = p + number.size() < text.size() ? text[p + number.size()] : ' ';
        return std::strchr("[,: \n\r\t", before) && std::strchr("]}, \n\r\t", after);
    };
    while (at != std::string::npos && !alone(at)) at = text.find(number, at + 1);
    if (at == std::string::npos) fail("invalid JSON: a number is too large for a double");
    const std::string place = line_column(text, at);
    const std::string marker = "\x01attnviz-overflow";
    std::string field;
    try {
        const json again = json::parse(text.substr(0, at) + json(marker).dump() + text.substr(at + number.size()));
        if (find_marker(again, marker, field)) fail(field + " is " + number + ", too large for a double (" + place + ")");
    } catch (const json::exception&) {
    }
    fail("invalid JSON: " + number + " is too large for a double (" + place + ")");
}

// "rule": "softmax" (also when absent, as in files written before the rule), "linear" or "delta";
// "beta" and "decay": the delta rule's, from 0 to 1 (1 when absent).
void read_attention_rule(const json& root, Scenario& s) {
    if (root.contains("rule")) {
        const json& r = root["rule"];
        const auto rule = r.is_string() ? rule_of_name(r.get<std::string>()) : std::nullopt;
        if (!rule) fail("rule is " + (r.is_string() ? r.dump() : type_name(r)) + R"(, expected "softmax", "linear" or "delta")");
        s.rule = *rule;
    }
    for (auto [name, field] : {std::pair<const char*, double*>{"beta", &s.beta}, {"decay", &s.decay}}) {
        if (!root.contains(name)) continue;
        const json& x = root[name];
        if (!x.is_number()) fail(std::string(name) + " is " + type_name(x) + ", expected a number from 0 to 1");
        *field = x.get<double>();
        if (auto e = check_unit_interval(*field, name); !e.empty()) fail(e);
    }
}

// "scale": true (1/√d_k), false (none) or the factor itself; "window": a whole width, 0 = off;
// "softcap": 0 (off) or the cap.
void read_score_rules(const json& root, Scenario& s) {
    if (root.contains("scale") && root["scale"].is_number()) {
        s.scale = ScoreScale::custom;
        s.scale_factor = root["scale"].get<double>();
        if (auto e = check_scale_factor(s.scale_factor, "scale"); !e.empty()) fail(e);
    } else if (root.contains("scale") && !root["scale"].is_boolean()) {
        fail("scale is " + type_name(root["scale"]) + ", expected true, false or a factor above 0");
    } else {
        s.scale = read_bool(root, "scale", true) ? ScoreScale::inv_sqrt_d_k : ScoreScale::none;
    }
    if (root.contains("window")) {
        const json& w = root["window"];
        if (!w.is_number_integer())
            fail("window is " + (w.is_number() ? w.dump() : type_name(w)) + ", expected a whole number (0: no window)");
        const auto width = w.get<long long>();
        if (width < 0 || width > (1LL << 30)) fail("window is " + w.dump() + ", expected 0 (off) or a width from 1 to 2^30");
        s.window = static_cast<int>(width);
    }
    if (root.contains("softcap")) {
        const json& c = root["softcap"];
        if (!c.is_number()) fail("softcap is " + type_name(c) + ", expected 0 (off) or a number above 0");
        s.softcap = c.get<double>();
        if (auto e = check_softcap(s.softcap, "softcap"); !e.empty()) fail(e);
    }
    read_attention_rule(root, s);
}

const char* const projection_names[] = {"W_Q", "W_K", "W_V"};
const char* const direct_names[] = {"Q", "K", "V"};

// Numbers, or a file: "emb.npy" or {"file": …, "tensor": …, "transpose": …}. A file may hold a
// 3-d array, one matrix per head.
std::vector<Matrix> matrices(const json& v, const std::string& name, const std::string& base_dir) {
    if (!v.is_string() && !v.is_object()) return {read_matrix(v, name)};
    io::ArrayRef ref;
    if (v.is_string()) {
        ref.file = v.get<std::string>();
    } else {
        reject_unknown(v, {"file", "tensor", "transpose"}, name + ".");
        const json& file = member(v, "file", name + ".");
        if (!file.is_string()) fail(name + ".file is " + type_name(file) + ", expected a file name");
        ref.file = file.get<std::string>();
        if (v.contains("tensor")) {
            if (!v["tensor"].is_string()) fail(name + ".tensor is " + type_name(v["tensor"]) + ", expected the array's name");
            ref.tensor = v["tensor"].get<std::string>();
        }
        ref.transpose = read_bool(v, "transpose", false);
    }
    if (ref.file.empty()) fail(name + " names no file");
    return io::load_matrices(ref, base_dir, name);
}

Matrix one_matrix(const json& v, const std::string& name, const std::string& base_dir) {
    std::vector<Matrix> m = matrices(v, name, base_dir);
    if (m.size() != 1) fail(name + " is a 3-d array of " + std::to_string(m.size()) + " matrices; it needs one matrix here");
    return std::move(m.front());
}

Head head_of(const json& a, const json& b, const json& c, const std::string& where, bool direct, const std::string& base_dir) {
    const char* const* names = direct ? direct_names : projection_names;
    Head h;
    (direct ? h.Q : h.W_Q) = one_matrix(a, where + names[0], base_dir);
    (direct ? h.K : h.W_K) = one_matrix(b, where + names[1], base_dir);
    (direct ? h.V : h.W_V) = one_matrix(c, where + names[2], base_dir);
    return h;
}

// W_Q/W_K/W_V (or Q/K/V) at the top: one head, or one per matrix of 3-d arrays.
std::vector<Head> stacked_heads(const json& root, const char* const* names, bool direct, const std::string& base_dir) {
    std::vector<std::vector<Matrix>> parts;
    for (int i = 0; i < 3; ++i) parts.push_back(matrices(member(root, names[i], ""), names[i], base_dir));
    if (parts[0].size() != parts[1].size() || parts[0].size() != parts[2].size())
        fail(std::string(names[0]) + ", " + names[1] + " and " + names[2] + " give " + std::to_string(parts[0].size()) + ", " +
             std::to_string(parts[1].size()) + " and " + std::to_string(parts[2].size()) + " heads; they must agree");
    std::vector<Head> heads(parts[0].size());
    for (std::size_t h = 0; h < heads.size(); ++h) {
        (direct ? heads[h].Q : heads[h].W_Q) = std::move(parts[0][h]);
        (direct ? heads[h].K : heads[h].W_K) = std::move(parts[1][h]);
        (direct ? heads[h].V : heads[h].W_V) = std::move(parts[2][h]);
    }
    return heads;
}

bool heads_are_direct(const json& root) {
    if (!root.contains("heads") || !root["heads"].is_array() || root["heads"].empty()) return false;
    const json& first = root["heads"][0];
    return first.is_object() && (first.contains("Q") || first.contains("K") || first.contains("V"));
}

} // namespace

// The array file a matrix of the scenario was read from ("emb.npy"), or "" when its numbers are
// in the JSON: `name` is a matrix as validation names it ("W_Q", "heads[1].W_K", "X").
std::string array_file_of(const json& root, const std::string& name) {
    const json* v = nullptr;
    unsigned head = 0;
    char field[8] = {};
    if (std::sscanf(name.c_str(), "heads[%u].%7s", &head, field) == 2) {
        if (root.contains("heads") && root["heads"].is_array() && head < root["heads"].size()) v = &root["heads"][head];
        if (v && v->is_object() && v->contains(field)) v = &(*v)[field];
        else v = root.contains(field) ? &root[field] : nullptr; // one 3-d array for every head
    } else if (root.contains(name)) {
        v = &root[name];
    }
    if (v && v->is_object() && v->contains("file") && (*v)["file"].is_string()) v = &(*v)["file"];
    const std::string last = name.substr(name.rfind('.') + 1);
    bool matrix = false;
    for (const char* m : {"X", "W_Q", "W_K", "W_V", "Q", "K", "V", "W_O"}) matrix = matrix || last == m;
    return matrix && v && v->is_string() ? v->get<std::string>() : std::string();
}

// Validation, with the array file named beside its matrix: "W_Q (wrongshape.npy) has 6 rows,
// expected 5", as the user has to fix that file.
void require_valid_naming_files(const Scenario& s, const json& root) {
    try {
        require_valid(s);
    } catch (const ScenarioError& e) {
        const std::string what = e.what();
        const std::size_t end = what.find_first_of(" [", what.rfind("heads[", 0) == 0 ? what.find("].") : 0);
        const std::string file = end == std::string::npos ? "" : array_file_of(root, what.substr(0, end));
        if (file.empty()) throw;
        fail(what.substr(0, end) + " (" + file + ")" + what.substr(end));
    }
}

std::string row_json(const double* v, Eigen::Index size) {
    std::string out = "[";
    for (Eigen::Index c = 0; c < size; ++c) out += (c ? ", " : "") + json_number(v[c]);
    return out + "]";
}

std::string matrix_json(const Matrix& m, const std::string& indent) {
    std::string out = "[";
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        out += (r ? ",\n" + indent + " " : "") + row_json(m.row(r).data(), m.cols());
    return out + "]";
}

Scenario parse_scenario(const std::string& text, const std::string& base_dir) {
    check_depth(text);
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception& e) { // parse errors, and numbers too large for a double
        std::string what = e.what();
        if (what.find("number overflow") != std::string::npos) fail_overflow(text, what);
        const auto cut = what.find("] ");
        fail("invalid JSON: " + (cut == std::string::npos ? what : what.substr(cut + 2)));
    }
    if (!root.is_object()) fail("the file is " + type_name(root) + ", expected a JSON object");
    reject_unknown(root, {"tokens", "X", "W_Q", "W_K", "W_V", "Q", "K", "V", "heads", "W_O", "causal", "scale", "window", "softcap", "rule", "beta", "decay", "positional", "pin"}, "");

    Scenario s;
    s.direct = root.contains("Q") || root.contains("K") || root.contains("V") || heads_are_direct(root);
    if (s.direct) {
        if (root.contains("X")) fail("X and Q/K/V are both given; give X with W_Q/W_K/W_V, or Q, K and V");
    } else {
        s.X = one_matrix(member(root, "X", ""), "X", base_dir);
    }
    const char* const* names = s.direct ? direct_names : projection_names;
    const bool single = root.contains(names[0]) || root.contains(names[1]) || root.contains(names[2]);
    if (single && root.contains("heads"))
        fail(std::string("heads and ") + names[0] + "/" + names[1] + "/" + names[2] + " are both given; use one or the other");
    if (root.contains("heads")) {
        const json& hs = root["heads"];
        if (!hs.is_array()) fail("heads is " + type_name(hs) + ", expected an array of objects");
        if (hs.empty()) fail("heads is empty (at least one head is needed)");
        if (hs.size() > static_cast<size_t>(Limits::max_heads))
            fail("heads has " + std::to_string(hs.size()) + " entries, more than the limit of " + std::to_string(Limits::max_heads));
        for (size_t h = 0; h < hs.size(); ++h) {
            const std::string where = "heads[" + std::to_string(h) + "].";
            if (!hs[h].is_object()) fail(where.substr(0, where.size() - 1) + " is " + type_name(hs[h]) + ", expected an object");
            reject_unknown(hs[h], {names[0], names[1], names[2]}, where);
            s.heads.push_back(head_of(member(hs[h], names[0], where), member(hs[h], names[1], where), member(hs[h], names[2], where),
                                      where, s.direct, base_dir));
        }
    } else {
        s.heads = stacked_heads(root, names, s.direct, base_dir);
    }
    if (root.contains("tokens")) {
        const json& t = root["tokens"];
        if (t.is_string()) {
            s.tokens = io::load_token_file(t.get<std::string>(), base_dir, "tokens");
        } else {
            if (!t.is_array()) fail("tokens is " + type_name(t) + ", expected an array of strings or a file name");
            for (size_t i = 0; i < t.size(); ++i) {
                if (!t[i].is_string()) fail("tokens[" + std::to_string(i) + "] is " + type_name(t[i]) + ", expected a string");
                s.tokens.push_back(t[i].get<std::string>());
            }
        }
    } else {
        for (int i = 1; i <= s.n(); ++i) s.tokens.push_back("t" + std::to_string(i));
    }
    if (root.contains("W_O")) s.W_O = one_matrix(root["W_O"], "W_O", base_dir);
    s.causal = read_bool(root, "causal", false);
    read_score_rules(root, s);
    if (root.contains("positional")) {
        const json& p = root["positional"];
        if (p == "none") s.positional = Positional::none;
        else if (p == "sinusoidal") s.positional = Positional::sinusoidal;
        else fail("positional is " + p.dump() + ", expected \"none\" or \"sinusoidal\"");
    }
    if (root.contains("pin")) {
        const json& p = root["pin"];
        if (!p.is_object()) fail("pin is " + type_name(p) + ", expected an object");
        reject_unknown(p, {"head", "row", "q"}, "pin.");
        QueryPin pin;
        for (auto [key, target] : {std::pair<const char*, int*>{"head", &pin.head}, {"row", &pin.row}}) {
            const json& v = member(p, key, "pin.");
            if (!v.is_number_integer()) fail(std::string("pin.") + key + " is " + type_name(v) + ", expected a whole number");
            const auto value = v.get<long long>();
            if (value < 0 || value > Limits::max_tokens) fail(std::string("pin.") + key + " is out of range");
            *target = static_cast<int>(value);
        }
        const Matrix q = read_matrix(json::array({member(p, "q", "pin.")}), "pin.q");
        pin.q = q.row(0).transpose();
        s.pin = pin;
    }
    require_valid_naming_files(s, root);
    return s;
}

Scenario load_scenario_file(const std::string& path) {
    if (opens_as(path, Kind::array)) return scenario_from_array_file(path);
    try {
        std::ifstream in(path, std::ios::binary);
        if (!in) fail(std::string("cannot open: ") + errno_text());
        struct stat st{};
        const bool directory = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        // A model (a .gguf file, a folder with config.json) would otherwise fail somewhere in its bytes.
        if (directory ? std::ifstream(path + "/config.json").good() : opens_as(path, Kind::checkpoint))
            fail("is a model, not a scenario file: open it with --model, or with File ▸ Open model…");
        if (directory) fail("is a directory, expected a scenario file");
        in.seekg(0, std::ios::end);
        const std::streamoff size = in.tellg();
        if (size < 0) fail("cannot read the file");
        if (static_cast<std::size_t>(size) > max_file_bytes) fail("the file is larger than 256 MiB");
        in.seekg(0);
        std::string text(static_cast<size_t>(size), '\0');
        if (!in.read(text.data(), size)) fail(std::string("cannot read: ") + errno_text());
        const auto slash = path.find_last_of('/');
        return parse_scenario(text, slash == std::string::npos ? "" : path.substr(0, slash + 1));
    } catch (const ScenarioError& e) {
        throw ScenarioError(path + ": " + e.what());
    }
}

std::string to_json_text(const Scenario& s) {
    std::string out = "{\n  \"tokens\": [";
    for (size_t i = 0; i < s.tokens.size(); ++i) out += (i ? ", " : "") + json(s.tokens[i]).dump();
    out += "],\n";
    if (!s.direct) out += "  \"X\": " + matrix_json(s.X, "  ") + ",\n";
    const char* const* names = s.direct ? direct_names : projection_names;
    auto parts = [&](const Head& h) {
        return std::array<const Matrix*, 3>{s.direct ? &h.Q : &h.W_Q, s.direct ? &h.K : &h.W_K, s.direct ? &h.V : &h.W_V};
    };
    if (s.heads.size() == 1) {
        for (int i = 0; i < 3; ++i) out += std::string("  \"") + names[i] + "\": " + matrix_json(*parts(s.heads[0])[static_cast<size_t>(i)], "  ") + ",\n";
    } else {
        out += "  \"heads\": [\n";
        for (size_t h = 0; h < s.heads.size(); ++h) {
            for (int i = 0; i < 3; ++i)
                out += std::string(i ? "     \"" : "    {\"") + names[i] + "\": " + matrix_json(*parts(s.heads[h])[static_cast<size_t>(i)], "     ") + (i < 2 ? ",\n" : "}");
            out += h + 1 < s.heads.size() ? ",\n" : "\n";
        }
        out += "  ],\n";
    }
    if (s.W_O.size() != 0) out += "  \"W_O\": " + matrix_json(s.W_O, "  ") + ",\n";
    if (s.positional == Positional::sinusoidal) out += "  \"positional\": \"sinusoidal\",\n";
    if (s.pin)
        out += "  \"pin\": {\"head\": " + std::to_string(s.pin->head) + ", \"row\": " + std::to_string(s.pin->row) +
               ", \"q\": " + row_json(s.pin->q.data(), s.pin->q.size()) + "},\n";
    out += std::string("  \"causal\": ") + (s.causal ? "true" : "false") + ",\n";
    if (s.window > 0) out += "  \"window\": " + std::to_string(s.window) + ",\n";
    if (s.softcap > 0.0) out += "  \"softcap\": " + json_number(s.softcap) + ",\n";
    if (s.rule != AttentionRule::softmax) out += std::string("  \"rule\": \"") + rule_name(s.rule) + "\",\n";
    if (s.rule == AttentionRule::delta || s.beta != 1.0) out += "  \"beta\": " + json_number(s.beta) + ",\n";
    if (s.rule == AttentionRule::delta || s.decay != 1.0) out += "  \"decay\": " + json_number(s.decay) + ",\n";
    const std::string scale = s.scale == ScoreScale::custom ? json_number(s.scale_factor) : s.scale == ScoreScale::inv_sqrt_d_k ? "true" : "false";
    out += "  \"scale\": " + scale + "\n}\n";
    return out;
}

void save_scenario_file(const std::string& path, const Scenario& s) {
    require_valid(s);
    try {
        write_file_atomically(path, to_json_text(s));
    } catch (const WriteError& e) {
        throw ScenarioError(e.what());
    }
}

} // namespace core::io
