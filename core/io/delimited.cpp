// core/io/delimited.cpp — splitting lines and fields, and telling names from numbers.
#include "core/io/delimited.h"

#include "core/io/files.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace core::io {

namespace {

struct Row {
    std::size_t line; // 1-based, for messages
    std::vector<std::string> cells;
};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Splits the text into rows of fields. Quotes may hold separators and line breaks.
std::vector<Row> split_rows(const std::string& text, char sep, const std::string& path) {
    std::vector<Row> rows;
    Row row{1, {}};
    std::string cell;
    bool quoted = false, any = false;
    std::size_t line = 1;
    auto end_row = [&] {
        row.cells.push_back(trim(cell));
        cell.clear();
        const bool blank = row.cells.size() == 1 && row.cells[0].empty();
        if (!blank) rows.push_back(std::move(row));
        row = Row{line + 1, {}};
        any = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += text[++i];
            else if (c == '"') quoted = false;
            else cell += c;
            if (c == '\n') ++line;
        } else if (c == '"' && trim(cell).empty() && sep == ',') {
            quoted = true;
            cell.clear();
        } else if (c == sep) {
            row.cells.push_back(trim(cell));
            cell.clear();
        } else if (c == '\n') {
            end_row();
            ++line;
        } else {
            cell += c;
        }
        any = true;
        if (rows.size() > static_cast<std::size_t>(max_tensor_elements)) break;
    }
    if (quoted) throw FileError(path + ": line " + std::to_string(row.line) + ": a quote is not closed");
    if (any || !cell.empty()) end_row();
    return rows;
}

// A number the whole cell is; false for names. "nan" and "inf" are numbers, refused later.
bool parse_number(const std::string& s, double& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return false;
    if (errno == ERANGE && std::isinf(v)) v = s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return true;
}

bool all_numbers(const std::vector<std::string>& cells, std::size_t from) {
    double v;
    for (std::size_t i = from; i < cells.size(); ++i)
        if (!parse_number(cells[i], v)) return false;
    return true;
}

} // namespace

Table parse_delimited(const std::string& text, char sep, const std::string& path) {
    std::vector<Row> rows = split_rows(text, sep, path);
    if (rows.empty()) throw FileError(path + ": the file holds no numbers");
    // A column of names: some row has text first and numbers after it (a header row has text after).
    bool names_column = false;
    for (const Row& r : rows)
        if (r.cells.size() > 1 && !all_numbers({r.cells[0]}, 0) && all_numbers(r.cells, 1)) names_column = true;
    const bool header = !all_numbers(rows[0].cells, names_column ? 1 : 0);
    const std::size_t first_data = header ? 1 : 0, skip = names_column ? 1 : 0;
    if (rows.size() <= first_data) throw FileError(path + ": the file has a header row and no numbers");

    Table t;
    if (header) t.column_names.assign(rows[0].cells.begin() + static_cast<std::ptrdiff_t>(std::min(skip, rows[0].cells.size())), rows[0].cells.end());
    const std::size_t width = rows[first_data].cells.size() - skip;
    if (width == 0) throw FileError(path + ": line " + std::to_string(rows[first_data].line) + " has names and no numbers");
    if (header && t.column_names.size() != width)
        throw FileError(path + ": the header (line " + std::to_string(rows[0].line) + ") names " + std::to_string(t.column_names.size()) +
                        " columns, line " + std::to_string(rows[first_data].line) + " has " + std::to_string(width) + " numbers");
    const std::int64_t count = element_count({static_cast<std::int64_t>(rows.size() - first_data), static_cast<std::int64_t>(width)}, path);
    t.values.shape = {static_cast<std::int64_t>(rows.size() - first_data), static_cast<std::int64_t>(width)};
    t.values.values.reserve(static_cast<std::size_t>(count));
    for (std::size_t r = first_data; r < rows.size(); ++r) {
        const Row& row = rows[r];
        const std::string at = path + ": line " + std::to_string(row.line);
        if (row.cells.size() != width + skip)
            throw FileError(at + " has " + std::to_string(row.cells.size()) + " fields, line " + std::to_string(rows[first_data].line) +
                            " has " + std::to_string(width + skip));
        if (names_column) t.row_names.push_back(row.cells[0]);
        for (std::size_t c = skip; c < row.cells.size(); ++c) {
            double v;
            const std::string place = at + ", column " + std::to_string(c + 1) + ": ";
            if (!parse_number(row.cells[c], v)) throw FileError(place + "\"" + row.cells[c].substr(0, 40) + "\" is not a number");
            if (std::isnan(v)) throw FileError(place + "NaN; every value must be a finite number");
            if (std::isinf(v)) throw FileError(place + row.cells[c] + (row.cells[c].find_first_of("iI") != std::string::npos ? " is infinite" : " is too large for a double"));
            t.values.values.push_back(v);
        }
    }
    return t;
}

Table read_delimited(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
    const char sep = (ext == ".tsv" || ext == ".tab" || ext == ".TSV") ? '\t' : ',';
    return parse_delimited(read_file_bytes(path, max_file_bytes), sep, path);
}

} // namespace core::io
