// core/io/report_json.h — the JSON that `attnviz --dump` and `attnviz --decode` print.
#pragma once

#include "core/decoder.h"

namespace core::io {

// {"tokens": […], "heads": [{"Q", "K", "V", "scores", "scaled", "weights", "output"}, …],
//  "concat": …, "output": …}; masked entries of "scaled" are null.
std::string dump_json(const Scenario& s, const Result& r);

// {"steps": [{"t", "token", "new_kv_rows", "kv_rows_without_cache", "weights": [per head], "output"}, …],
//  "total_kv_rows_with_cache", "total_kv_rows_without_cache"}
std::string decode_json(const std::vector<DecodeStep>& steps);

} // namespace core::io
