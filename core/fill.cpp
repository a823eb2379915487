// core/fill.cpp — an array from a file into one matrix of the scenario (see fill.h).
#include "core/fill.h"

#include "core/edits.h"

#include <algorithm>

namespace core::edits {

namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) { return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")"; }

// The matrix a slot names in head `h` (or the scenario's own for X and W_O).
const Matrix& matrix_of(const Scenario& s, const std::string& field, int h) {
    if (field == "X") return s.X;
    if (field == "W_O") return s.W_O;
    const Head& head = s.heads[static_cast<std::size_t>(h)];
    if (field == "W_Q") return head.W_Q;
    if (field == "W_K") return head.W_K;
    if (field == "W_V") return head.W_V;
    if (field == "Q") return head.Q;
    if (field == "K") return head.K;
    return head.V;
}

Matrix& matrix_of(Scenario& s, const std::string& field, int h) {
    return const_cast<Matrix&>(matrix_of(static_cast<const Scenario&>(s), field, h));
}

std::vector<std::string> per_head_fields(const Scenario& s) {
    return s.direct ? std::vector<std::string>{"Q", "K", "V"} : std::vector<std::string>{"W_Q", "W_K", "W_V"};
}

bool same_shape(const Matrix& a, const Matrix& b) { return a.rows() == b.rows() && a.cols() == b.cols(); }

} // namespace

std::string MatrixSlot::label() const {
    if (field == "X" || field == "W_O") return field;
    return field + (head < 0 ? " of every head" : " of head " + std::to_string(head + 1));
}

std::vector<MatrixSlot> fitting_slots(const Scenario& s, const std::vector<Matrix>& arrays) {
    std::vector<MatrixSlot> fits;
    if (arrays.empty()) return fits;
    const int heads = static_cast<int>(s.heads.size());
    if (arrays.size() == 1) {
        const Matrix& a = arrays[0];
        if (!s.direct && a.cols() == s.d_model() && a.rows() >= 1 && a.rows() <= Limits::max_tokens) fits.push_back({"X", -1});
        for (const std::string& f : per_head_fields(s))
            for (int h = 0; h < heads; ++h)
                if (same_shape(a, matrix_of(s, f, h))) fits.push_back({f, h});
        const Eigen::Index o_cols = s.W_O.size() != 0 ? s.W_O.cols() : (s.direct ? a.cols() : s.d_model());
        if (a.rows() == static_cast<Eigen::Index>(heads) * s.d_v() && a.cols() == o_cols) fits.push_back({"W_O", -1});
        return fits;
    }
    if (static_cast<int>(arrays.size()) != heads) return fits;
    for (const std::string& f : per_head_fields(s)) {
        bool all = true;
        for (int h = 0; h < heads; ++h) all = all && same_shape(arrays[static_cast<std::size_t>(h)], matrix_of(s, f, h));
        if (all) fits.push_back({f, -1});
    }
    return fits;
}

std::string slot_shapes(const Scenario& s) {
    std::string out;
    const auto add = [&](const std::string& name, const Matrix& m) { out += (out.empty() ? "" : ", ") + name + " " + shape(m.rows(), m.cols()); };
    if (!s.direct) add("X", s.X);
    for (const std::string& f : per_head_fields(s)) add(f, matrix_of(s, f, 0));
    if (s.heads.size() > 1) out += " (each of " + std::to_string(s.heads.size()) + " heads)";
    if (s.W_O.size() != 0) add("W_O", s.W_O);
    return out;
}

void fill_matrix(Scenario& s, const MatrixSlot& slot, const std::vector<Matrix>& arrays) {
    const std::vector<MatrixSlot> fits = fitting_slots(s, arrays);
    if (std::find(fits.begin(), fits.end(), slot) == fits.end())
        throw ScenarioError(slot.label() + ": an array of shape " + shape(arrays.empty() ? 0 : arrays[0].rows(), arrays.empty() ? 0 : arrays[0].cols()) +
                            " does not fit it");
    Scenario next = s;
    if (slot.field == "X") {
        const int rows = static_cast<int>(arrays[0].rows());
        while (next.n() < rows) add_token(next, unused_token_name(next));
        while (next.n() > rows) remove_token(next, next.n() - 1);
    }
    if (slot.head >= 0 || slot.field == "X" || slot.field == "W_O") matrix_of(next, slot.field, slot.head) = arrays[0];
    else
        for (std::size_t h = 0; h < arrays.size(); ++h) matrix_of(next, slot.field, static_cast<int>(h)) = arrays[h];
    require_valid(next);
    s = std::move(next);
}

} // namespace core::edits
