#include "core/io/report_json.h"

#include "core/io/scenario_io.h"

#include <nlohmann/json.hpp>

namespace core::io {

std::string dump_json(const Scenario& s, const Result& r) {
    std::string out = "{\n  \"tokens\": " + nlohmann::json(s.tokens).dump() + ",\n  \"heads\": [\n";
    const std::string indent = "      ";
    for (size_t h = 0; h < r.heads.size(); ++h) {
        const HeadResult& hr = r.heads[h];
        out += "    {\n";
        const std::pair<const char*, const Matrix*> fields[] = {{"Q", &hr.Q},           {"K", &hr.K},
                                                                {"V", &hr.V},           {"scores", &hr.scores},
                                                                {"scaled", &hr.scaled}, {"weights", &hr.weights},
                                                                {"output", &hr.output}};
        for (size_t f = 0; f < std::size(fields); ++f) {
            out += indent + "\"" + fields[f].first + "\": " + matrix_json(*fields[f].second, indent);
            out += f + 1 < std::size(fields) ? ",\n" : "\n";
        }
        out += h + 1 < r.heads.size() ? "    },\n" : "    }\n";
    }
    out += "  ],\n  \"concat\": " + matrix_json(r.concat, "  ") + ",\n";
    out += "  \"output\": " + matrix_json(r.output, "  ") + "\n}\n";
    return out;
}

std::string decode_json(const std::vector<DecodeStep>& steps) {
    std::string out = "{\n  \"steps\": [\n";
    long long with_cache = 0, without_cache = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
        const DecodeStep& st = steps[i];
        with_cache += st.new_kv_rows;
        without_cache += st.kv_rows_without_cache;
        out += "    {\"t\": " + std::to_string(st.t) + ", \"token\": " + nlohmann::json(st.token).dump() +
               ", \"new_kv_rows\": " + std::to_string(st.new_kv_rows) +
               ", \"kv_rows_without_cache\": " + std::to_string(st.kv_rows_without_cache) + ",\n     \"weights\": [";
        for (size_t h = 0; h < st.weights.size(); ++h)
            out += (h ? ", " : "") + row_json(st.weights[h].data(), st.weights[h].size());
        out += "],\n     \"output\": " + row_json(st.output.data(), st.output.size()) + "}";
        out += i + 1 < steps.size() ? ",\n" : "\n";
    }
    out += "  ],\n  \"total_kv_rows_with_cache\": " + std::to_string(with_cache) +
           ",\n  \"total_kv_rows_without_cache\": " + std::to_string(without_cache) + "\n}\n";
    return out;
}

} // namespace core::io
