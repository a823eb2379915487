#include "core/io/scenario_io.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace core {

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

Head read_head(const json& o, const std::string& where) {
    return Head{read_matrix(member(o, "W_Q", where), where + "W_Q"), read_matrix(member(o, "W_K", where), where + "W_K"),
                read_matrix(member(o, "W_V", where), where + "W_V")};
}

std::string errno_text() { return std::strerror(errno); }

} // namespace

std::string json_number(double x) {
    if (std::abs(x) < 1e15 && x == std::round(x)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", x == 0 ? 0.0 : x);
        return buf;
    }
    return json(x).dump(); // nlohmann writes the shortest text that reads back exactly
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

Scenario parse_scenario(const std::string& text) {
    check_depth(text);
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception& e) { // parse errors, and numbers too large for a double
        std::string what = e.what();
        const auto cut = what.find("] ");
        fail("invalid JSON: " + (cut == std::string::npos ? what : what.substr(cut + 2)));
    }
    if (!root.is_object()) fail("the file is " + type_name(root) + ", expected a JSON object");
    reject_unknown(root, {"tokens", "X", "W_Q", "W_K", "W_V", "heads", "W_O", "causal", "scale", "positional", "pin"}, "");

    Scenario s;
    s.X = read_matrix(member(root, "X", ""), "X");
    if (root.contains("tokens")) {
        const json& t = root["tokens"];
        if (!t.is_array()) fail("tokens is " + type_name(t) + ", expected an array of strings");
        for (size_t i = 0; i < t.size(); ++i) {
            if (!t[i].is_string()) fail("tokens[" + std::to_string(i) + "] is " + type_name(t[i]) + ", expected a string");
            s.tokens.push_back(t[i].get<std::string>());
        }
    } else {
        for (Eigen::Index i = 1; i <= s.X.rows(); ++i) s.tokens.push_back("t" + std::to_string(i));
    }
    const bool single = root.contains("W_Q") || root.contains("W_K") || root.contains("W_V");
    if (single && root.contains("heads")) fail("heads and W_Q/W_K/W_V are both given; use one or the other");
    if (root.contains("heads")) {
        const json& hs = root["heads"];
        if (!hs.is_array()) fail("heads is " + type_name(hs) + ", expected an array of objects");
        if (hs.empty()) fail("heads is empty (at least one head is needed)");
        if (hs.size() > static_cast<size_t>(Limits::max_heads))
            fail("heads has " + std::to_string(hs.size()) + " entries, more than the limit of " + std::to_string(Limits::max_heads));
        for (size_t h = 0; h < hs.size(); ++h) {
            const std::string where = "heads[" + std::to_string(h) + "].";
            if (!hs[h].is_object()) fail(where.substr(0, where.size() - 1) + " is " + type_name(hs[h]) + ", expected an object");
            reject_unknown(hs[h], {"W_Q", "W_K", "W_V"}, where);
            s.heads.push_back(read_head(hs[h], where));
        }
    } else {
        s.heads.push_back(read_head(root, ""));
    }
    if (root.contains("W_O")) s.W_O = read_matrix(root["W_O"], "W_O");
    s.causal = read_bool(root, "causal", false);
    s.scale = read_bool(root, "scale", true);
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
    require_valid(s);
    return s;
}

Scenario load_scenario_file(const std::string& path) {
    try {
        std::ifstream in(path, std::ios::binary);
        if (!in) fail(std::string("cannot open: ") + errno_text());
        struct stat st{};
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail("is a directory, expected a scenario file");
        in.seekg(0, std::ios::end);
        const std::streamoff size = in.tellg();
        if (size < 0) fail("cannot read the file");
        if (static_cast<std::size_t>(size) > max_file_bytes) fail("the file is larger than 256 MiB");
        in.seekg(0);
        std::string text(static_cast<size_t>(size), '\0');
        if (!in.read(text.data(), size)) fail(std::string("cannot read: ") + errno_text());
        return parse_scenario(text);
    } catch (const ScenarioError& e) {
        throw ScenarioError(path + ": " + e.what());
    }
}

std::string to_json_text(const Scenario& s) {
    std::string out = "{\n  \"tokens\": [";
    for (size_t i = 0; i < s.tokens.size(); ++i) out += (i ? ", " : "") + json(s.tokens[i]).dump();
    out += "],\n  \"X\": " + matrix_json(s.X, "  ") + ",\n";
    if (s.heads.size() == 1) {
        out += "  \"W_Q\": " + matrix_json(s.heads[0].W_Q, "  ") + ",\n";
        out += "  \"W_K\": " + matrix_json(s.heads[0].W_K, "  ") + ",\n";
        out += "  \"W_V\": " + matrix_json(s.heads[0].W_V, "  ") + ",\n";
    } else {
        out += "  \"heads\": [\n";
        for (size_t h = 0; h < s.heads.size(); ++h) {
            out += "    {\"W_Q\": " + matrix_json(s.heads[h].W_Q, "     ") + ",\n";
            out += "     \"W_K\": " + matrix_json(s.heads[h].W_K, "     ") + ",\n";
            out += "     \"W_V\": " + matrix_json(s.heads[h].W_V, "     ") + "}";
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
    out += std::string("  \"scale\": ") + (s.scale ? "true" : "false") + "\n}\n";
    return out;
}

void write_file_atomically(const std::string& path, const std::string& text) {
    std::string tmp = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw ScenarioError(path + ": cannot create a temporary file: " + errno_text());
    ::fchmod(fd, 0644);
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t w = ::write(fd, text.data() + written, text.size() - written);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            const std::string why = errno_text();
            ::close(fd);
            ::unlink(tmp.c_str());
            throw ScenarioError(path + ": cannot write: " + why);
        }
        written += static_cast<size_t>(w);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string why = errno_text();
        ::unlink(tmp.c_str());
        throw ScenarioError(path + ": cannot write: " + why);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = errno_text();
        ::unlink(tmp.c_str());
        throw ScenarioError(path + ": cannot replace the file: " + why);
    }
    // Make the rename itself durable.
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

void save_scenario_file(const std::string& path, const Scenario& s) {
    require_valid(s);
    write_file_atomically(path, to_json_text(s));
}

} // namespace core
