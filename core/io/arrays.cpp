// core/io/arrays.cpp — reading a named array of any supported format into matrices.
#include "core/io/arrays.h"

#include "core/io/formats.h"

#include <nlohmann/json.hpp>


namespace core::io {

std::string resolve_path(const std::string& base_dir, const std::string& file) {
    if (file.empty() || file[0] == '/' || base_dir.empty()) return file;
    return base_dir + (base_dir.back() == '/' ? "" : "/") + file;
}

namespace {

// The tensor named `name` of a file of several, or its only one (a file of one unnamed array
// gives it whatever the name).
Tensor pick(TensorFile f, const std::string& name, const std::string& path) {
    if (f.tensors.size() == 1 && (name.empty() || f.tensors.begin()->first.empty())) return std::move(f.tensors.begin()->second);
    std::string names;
    for (const auto& [k, t] : f.tensors) names += (names.empty() ? "" : ", ") + k;
    if (name.empty())
        throw FileError(path + ": holds " + std::to_string(f.tensors.size()) + " arrays (" + names + "); say which with \"tensor\"");
    auto it = f.tensors.find(name);
    if (it == f.tensors.end()) throw FileError(path + ": has no array \"" + name + "\" (it has: " + names + ")");
    return std::move(it->second);
}

TensorFile read_arrays(const std::string& path) {
    const Format* f = format_of(path);
    if (!f || !f->read_arrays)
        throw FileError(path + ": unknown kind of file; attnviz reads arrays from " + extension_list(Kind::array, " and "));
    return f->read_arrays(path);
}

Tensor read_any(const std::string& path, const std::string& tensor) { return pick(read_arrays(path), tensor, path); }

Matrix matrix_of(const double* v, std::int64_t rows, std::int64_t cols, bool transpose) {
    Matrix m = Eigen::Map<const Matrix>(v, rows, cols);
    if (transpose) m.transposeInPlace();
    return m;
}

std::vector<Matrix> matrices_of(const Tensor& t, bool transpose, const std::string& path) {
    const auto& s = t.shape;
    for (std::int64_t d : s)
        if (d > Limits::max_tokens * 4)
            throw FileError(path + ": shape " + shape_text(s) + " is past the limits (" + std::to_string(Limits::max_tokens) + " tokens, " +
                            std::to_string(Limits::max_dim) + " dimensions)");
    if (s.size() == 1) return {matrix_of(t.values.data(), 1, s[0], transpose)};
    if (s.size() == 2) return {matrix_of(t.values.data(), s[0], s[1], transpose)};
    if (s.size() == 3) {
        if (s[0] > Limits::max_heads)
            throw FileError(path + ": shape " + shape_text(s) + " has " + std::to_string(s[0]) + " heads, more than the limit of " +
                            std::to_string(Limits::max_heads));
        std::vector<Matrix> heads;
        for (std::int64_t h = 0; h < s[0]; ++h) heads.push_back(matrix_of(t.values.data() + h * s[1] * s[2], s[1], s[2], transpose));
        return heads;
    }
    throw FileError(path + ": shape " + shape_text(s) + " has " + std::to_string(s.size()) +
                    " dimensions; a matrix needs 2, or 3 for (heads, rows, columns)");
}

} // namespace

std::vector<Matrix> load_matrices(const ArrayRef& ref, const std::string& base_dir, const std::string& field) {
    const std::string path = resolve_path(base_dir, ref.file);
    try {
        const Tensor t = read_any(path, ref.tensor);
        std::vector<Matrix> m = matrices_of(t, ref.transpose, path);
        for (const Matrix& x : m)
            if (x.size() == 0) throw FileError(path + ": the array is empty, shape " + shape_text(t.shape));
        return m;
    } catch (const FileError& e) {
        throw ScenarioError(field + ": " + e.what());
    }
}

std::vector<std::string> load_token_file(const std::string& file, const std::string& base_dir, const std::string& field) {
    const std::string path = resolve_path(base_dir, file);
    try {
        const std::string text = read_file_bytes(path, 16u << 20);
        std::vector<std::string> tokens;
        const auto first = text.find_first_not_of(" \t\r\n");
        if (first != std::string::npos && text[first] == '[') { // a JSON array of strings
            nlohmann::json j;
            try {
                j = nlohmann::json::parse(text);
            } catch (const nlohmann::json::exception&) {
                throw FileError(path + ": starts with '[' but is not a JSON array of strings");
            }
            for (const auto& v : j) {
                if (!v.is_string()) throw FileError(path + ": the JSON array holds something other than strings");
                tokens.push_back(v.get<std::string>());
            }
            if (!j.is_array()) throw FileError(path + ": not a JSON array of strings");
            return tokens;
        }
        std::size_t start = 0;
        while (start < text.size()) { // one token a line; a last empty line is no token
            auto end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            std::string t = text.substr(start, end - start);
            if (!t.empty() && t.back() == '\r') t.pop_back();
            tokens.push_back(t);
            start = end + 1;
            if (tokens.size() > static_cast<std::size_t>(Limits::max_tokens))
                throw FileError(path + ": more than " + std::to_string(Limits::max_tokens) + " tokens, the limit");
        }
        return tokens;
    } catch (const FileError& e) {
        throw ScenarioError(field + ": " + e.what());
    }
}

namespace {

// X with identity W's: the tokens attend by the similarity of their embeddings.
Scenario identity_scenario(Matrix X, std::vector<std::string> tokens) {
    Scenario s;
    const auto d = X.cols();
    if (tokens.empty())
        for (Eigen::Index i = 1; i <= X.rows(); ++i) tokens.push_back("t" + std::to_string(i));
    s.tokens = std::move(tokens);
    s.X = std::move(X);
    const Matrix I = Matrix::Identity(d, d); // (d_model, d_model)
    s.heads = {Head{I, I, I}};
    return s;
}

// Arrays named like scenario fields make that scenario; false when none is named so.
bool scenario_from_named(const TensorFile& f, const std::string& path, Scenario& s) {
    auto has = [&](const char* k) { return f.tensors.count(k) != 0; };
    const bool direct = has("Q") && has("K") && has("V");
    const bool projected = has("X") && has("W_Q") && has("W_K") && has("W_V");
    if (!direct && !projected) return false;
    auto get = [&](const char* k) { return matrices_of(f.tensors.at(k), false, path + ": \"" + std::string(k) + "\""); };
    s = Scenario{};
    s.direct = direct && !projected;
    std::vector<Matrix> a = get(s.direct ? "Q" : "W_Q"), b = get(s.direct ? "K" : "W_K"), c = get(s.direct ? "V" : "W_V");
    if (a.size() != b.size() || a.size() != c.size())
        throw FileError(path + ": the three arrays give " + std::to_string(a.size()) + ", " + std::to_string(b.size()) + " and " +
                        std::to_string(c.size()) + " heads");
    for (std::size_t h = 0; h < a.size(); ++h) {
        Head head;
        (s.direct ? head.Q : head.W_Q) = a[h];
        (s.direct ? head.K : head.W_K) = b[h];
        (s.direct ? head.V : head.W_V) = c[h];
        s.heads.push_back(std::move(head));
    }
    if (!s.direct) s.X = get("X").front();
    if (has("W_O")) s.W_O = get("W_O").front();
    for (int i = 1; i <= s.n(); ++i) s.tokens.push_back("t" + std::to_string(i));
    return true;
}

} // namespace

Scenario scenario_from_array_file(const std::string& path) {
    try {
        Scenario s;
        const TensorFile f = read_arrays(path);
        if (!scenario_from_named(f, path, s)) {
            const std::vector<Matrix> m = matrices_of(pick(f, "", path), false, path);
            if (m.size() != 1) throw FileError(path + ": a 3-d array cannot be opened on its own; point a scenario's field at it");
            std::vector<std::string> tokens;
            if (auto names = f.metadata.find("row_names"); names != f.metadata.end())
                tokens = nlohmann::json::parse(names->second).get<std::vector<std::string>>();
            s = identity_scenario(m.front(), std::move(tokens));
        }
        if (const std::string why = validate(s); !why.empty()) throw FileError(path + ": " + why);
        return s;
    } catch (const FileError& e) {
        throw ScenarioError(e.what());
    }
}

bool names_a_scenario(const std::string& path) {
    try {
        Scenario s;
        return scenario_from_named(read_arrays(path), path, s);
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace core::io
