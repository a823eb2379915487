// core/io/delimited.h — .csv and .tsv tables of numbers, as spreadsheets and np.savetxt write them.
//
// An optional header row (column names) and an optional first column of token names are found
// by looking: a row or column holding text that is not a number is names. Quoted fields ("a,b",
// with "" for a quote) are understood in .csv.
#pragma once

#include "core/io/tensor.h"

#include <string>
#include <vector>

namespace core::io {

struct Table {
    std::vector<std::string> column_names; // the header row without its corner cell; empty when none
    std::vector<std::string> row_names;    // the first column, one per row; empty when none
    Tensor values;                         // (rows, columns) of float64
};

// `separator` is ',' or '\t'. Errors name the place: "emb.csv: line 3, column 2: "x" is not a number".
Table parse_delimited(const std::string& text, char separator, const std::string& path);
// Tab for .tsv/.tab files, comma otherwise.
Table read_delimited(const std::string& path);

} // namespace core::io
