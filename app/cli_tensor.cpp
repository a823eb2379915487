// app/cli_tensor.cpp — attnviz --tensor MODEL NAME [NAME …] (cli_tensor.h).
#include "app/cli_tensor.h"
#include "app/cli_flags.h"
#include "app/options.h"

#include "core/io/tensor.h"
#include "core/model/format/checkpoint.h"
#include "core/model/format/weights.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace app {

namespace {

std::string number(float v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
}

// The tensor's values, a row at a time: [v, v, …] row-major. `name` as asked; `here` the name attnviz
// reads it by, printed as "as" where the file's own name was asked (a GGUF file's).
void print_tensor(const core::model::Weights::Tensor& t, const std::string& name, const std::string& here, std::ostream& out) {
    std::string shape;
    for (std::int64_t d : t.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    const auto quoted = [](const std::string& s) { return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
    out << "{\"name\": " << quoted(name);
    if (here != name) out << ", \"as\": " << quoted(here);
    out << ", \"type\": \"" << core::model::type_name(t.type()) << "\", \"shape\": [" << shape << "], \"values\": [";
    const std::int64_t rows = t.shape().empty() ? 1 : t.shape()[0], width = t.row_values();
    std::vector<float> row(static_cast<std::size_t>(width)); // (width)
    for (std::int64_t r = 0; r < rows; ++r) {
        t.rows(r, 1, row.data());
        for (std::int64_t j = 0; j < width; ++j) out << (r || j ? ", " : "") << number(row[static_cast<std::size_t>(j)]);
    }
    out << "]}\n";
}

} // namespace

// Every name is looked up before any is printed: a missing one prints nothing.
int run_tensor_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] {
        if (argc < 4 || std::string(argv[1]) != "--tensor") throw UsageError("--tensor takes MODEL NAME [NAME ...] and nothing else");
        const core::model::OpenedModel m = core::model::open_model(argv[2]);
        const std::vector<std::string> names(argv + 3, argv + argc);
        for (const std::string& name : names)
            if (!m.weights->has(m.weights->name_for(name))) throw core::io::FileError(m.path + ": no tensor " + core::io::quote_text(name));
        for (const std::string& name : names) {
            const std::string here = m.weights->name_for(name);
            print_tensor(m.weights->require(here, m.weights->shape(here)), name, here, out);
        }
        return 0;
    });
}

} // namespace app
