// app/cli/cli_tensor.cpp — attnviz --tensor MODEL NAME [NAME …] (cli_tensor.h).
#include "app/cli/cli_tensor.h"
#include "app/cli/cli_flags.h"
#include "app/options.h"

#include "core/io/tensor.h"
#include "core/model/open.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace app {

namespace {

std::string number(float v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
}

// The tensor's values, a row at a time: [v, v, …] row-major. `name` as asked; the tensor's own name
// printed as "as" where it differs (the file's own name was asked, a GGUF file's).
void print_tensor(const core::model::ModelTensor& t, const std::string& name, std::ostream& out) {
    std::string shape;
    for (std::int64_t d : t.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    const auto quoted = [](const std::string& s) { return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
    out << "{\"name\": " << quoted(name);
    if (t.name != name) out << ", \"as\": " << quoted(t.name);
    out << ", \"type\": \"" << t.type << "\", \"shape\": [" << shape << "], \"values\": [";
    std::vector<float> row(static_cast<std::size_t>(t.width)); // (width)
    for (std::int64_t r = 0; r < t.rows; ++r) {
        t.read_row(r, row.data());
        for (std::int64_t j = 0; j < t.width; ++j) out << (r || j ? ", " : "") << number(row[static_cast<std::size_t>(j)]);
    }
    out << "]}\n";
}

} // namespace

// Every name is looked up before any is printed: a missing one prints nothing.
int run_tensor_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] {
        if (argc < 4 || std::string(argv[1]) != "--tensor") throw UsageError("--tensor takes MODEL NAME [NAME ...] and nothing else");
        const core::model::OpenedModel m = core::model::open_model(argv[2]);
        std::vector<core::model::ModelTensor> tensors;
        for (const std::string& name : std::vector<std::string>(argv + 3, argv + argc)) {
            std::optional<core::model::ModelTensor> t = core::model::find_tensor(m, name);
            if (!t) throw core::io::FileError(m.path + ": no tensor " + core::io::quote_text(name));
            tensors.push_back(std::move(*t));
        }
        for (std::size_t i = 0; i < tensors.size(); ++i) print_tensor(tensors[i], argv[3 + i], out);
        return 0;
    });
}

} // namespace app
