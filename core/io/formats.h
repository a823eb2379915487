// core/io/formats.h — the one table of the file formats attnviz reads and writes.
//
// Every place that asks "what is this file?" reads this table: the file dialogs' filters, drag and
// drop, File ▸ Import, the scenario loader, the attention viewer and the messages that list what
// attnviz opens ("attnviz reads arrays from .npy, .npz, .safetensors, .csv and .tsv").
//
// Adding a format: its reader in a file of its own (core/io/NAME.{h,cpp}, errors as FileError
// naming the file and the place), then one row in formats.cpp. A format that holds arrays gives
// `read_arrays`; the kinds say where it opens (kinds with their own loader go through that
// loader: scenario → core/io/scenario_io.h, attention → core/io/attention_file.h, lesson →
// core/learn/lesson.h, model → core/train/model_file.h, checkpoint → core/model/format/checkpoint.h),
// and the messages and filters follow.
#pragma once

#include "core/io/file_browser.h"
#include "core/io/tensor.h"

#include <string>
#include <vector>

namespace core::io {

// What a file can be opened as; one format may be several.
enum Kind : unsigned {
    scenario = 1u << 0,    // a whole scenario (File ▸ Open, FILE on the command line)
    array = 1u << 1,       // arrays: into a matrix (Import, a scenario's field), or opened as X
    attention = 1u << 2,   // a model's attention weights (the attention viewer, --attention)
    lesson = 1u << 3,      // a lesson (Learn ▸ Open lesson file, --lesson FILE)
    model = 1u << 4,       // a model attnviz trained (the Train panel, --forward)
    labels = 1u << 5,      // token labels (the attention viewer, --labels)
    review_deck = 1u << 6, // review cards (--export-anki writes them for Anki)
    checkpoint = 1u << 7,  // a model the Model workspace opens (Model ▸ Open, a dropped folder, --model)
};

struct Format {
    const char* name;                    // as the file dialog's filter names it: "NumPy arrays"
    // Lower case, with the dot. A name without the dot ("config.json") makes the row a directory's:
    // the directory opens, and the file dialog picks it by that file in it.
    std::vector<std::string> extensions;
    unsigned kinds;                      // Kind bits; 0 for a format attnviz only writes
    // Kind array: every array of the file by name; a format of one array names it "" (and a .csv's
    // first column of names is metadata "row_names", a JSON array). Throws FileError.
    TensorFile (*read_arrays)(const std::string& path);
    bool exportable;                     // --export or a Save as… menu writes it

    bool directory() const { return extensions.front().front() != '.'; }
};

// Every format, in the order the messages list them.
const std::vector<Format>& formats();
// The format of `path`: by its extension (any case), or for a directory the directory's row; null
// when attnviz knows none.
const Format* format_of(const std::string& path);
// Whether `path`'s format opens as `kind`.
bool opens_as(const std::string& path, Kind kind);

// The extensions of the formats of `kind`, in table order.
std::vector<std::string> extensions_of(Kind kind);
// Those extensions as a list: ".npy, .npz, .safetensors, .csv and .tsv" with last = " and ",
// "… or …" with " or ", and all with ", " between them with ", ".
std::string extension_list(Kind kind, const char* last);
// A filter of the file dialog for `kind`: {label, extensions_of(kind)}.
FileFilter filter_of(Kind kind, const std::string& label);

// The file's extension, lower case, with its dot (".npy"); "" when none.
std::string extension_of(const std::string& path);

} // namespace core::io
