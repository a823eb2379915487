// app/cli/cli_model.h — the command-line modes of real checkpoints: --forward, --generate,
// --export-attention and --bench-model on a model directory (or attnviz's own .safetensors).
#pragma once

#include "core/heads/head.h"
#include "core/model/input.h"
#include "core/model/open.h"
#include "core/model/tokenizer/tokenizer.h"

#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace app {

// What the checkpoint modes share with the probe modes (app/cli/cli_probes.cpp).

using core::model::ModelInput;
using core::model::token_text;

// The input `q` asks for (core::model::read_input), its InputError naming `flag` ("--probe: …").
ModelInput model_input(const core::model::OpenedModel& m, const core::model::InputRequest& q, const std::string& flag);
// --text through the model's tokenizer, else --sequence "ids".
ModelInput model_input(const core::model::OpenedModel& m, bool text_given, const std::string& text, const std::string& sequence);
// --sequence "ids" for a model of `vocab` ids named `name` (core::model::parse_ids). Throws
// UsageError "--sequence: …" naming the word that is no id, or for no ids at all.
std::vector<int> sequence_ids(const std::string& sequence, int vocab, const std::string& name);
// A whole number of 1 to 6 digits, or -1.
int small_whole_number(const std::string& s);
// "L.H,L.H", layers and heads from 1, into heads from 0, for a model `name` of `layers` layers of
// `heads` heads. Throws UsageError naming `flag`, the item and, for one out of range, the model's
// layers or heads.
std::vector<core::heads::HeadRef> parse_head_list(const std::string& flag, const std::string& spec, int layers, int heads, const std::string& name);
// "L.E,L.E", layers and experts from 1, into experts from 0 of `model` (Model::experts); UsageError as
// parse_head_list's, and for a model without experts or a layer with a dense MLP.
std::vector<core::model::ExpertRef> parse_expert_list(const std::string& flag, const std::string& spec, const core::model::Model& model);
// --ablate-mode's value: zero or mean, else UsageError.
core::heads::Ablation ablation_of(const std::string& text);

// (rows, cols) row-major as [[…], …], floats as %.9g and null for a non-finite one.
void append_matrix(std::string& s, const float* p, long rows, long cols);

// Whether the arguments ask for a checkpoint mode (then run_model_mode owns every flag). A
// --forward of attnviz's own .safetensors with --sequence stays with --train's modes.
bool wants_model_mode(int argc, const char* const* argv);

// attnviz --forward MODEL (--text TEXT | --sequence "ids")
//   both with [--ablate "L.H,L.H" [--ablate-mode zero|mean]] [--ablate-expert "L.E,L.E"]
// attnviz --generate MODEL (--text TEXT | --sequence "ids") --tokens N
// attnviz --export-attention MODEL (--text TEXT | --sequence "ids") --out att.safetensors
// attnviz --bench-model MODEL --tokens N [--reps R]
// Returns 0, or 2 after one line "attnviz: …" on `err`.
int run_model_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

struct Options;
// --model MODEL with the window or --screenshot: whether MODEL's config and weights open (before any
// window; its tokenizer is read with the window open); false after one line "attnviz: …" naming
// the file on `err`.
bool model_opens(const Options& o, std::ostream& err);

} // namespace app
