// app/cli/cli.cpp — the command line: the flags (parse_args), the usage text, and which mode runs
// (main_with, through the tables text_modes and own_modes). The modes are in app/cli_*.cpp.
#include "app/cli/cli.h"

#include "app/cli/cli_activations.h"
#include "app/cli/cli_attention.h"
#include "app/cli/cli_bench.h"
#include "app/cli/cli_export.h"
#include "app/cli/cli_flags.h"
#include "app/cli/cli_lessons.h"
#include "app/cli/cli_model.h"
#include "app/cli/cli_presets.h"
#include "app/cli/cli_circuits.h"
#include "app/cli/cli_probes.h"
#include "app/cli/cli_qk.h"
#include "app/cli/cli_review.h"
#include "app/cli/cli_scenario.h"
#include "app/cli/cli_tensor.h"
#include "app/cli/cli_tokenize.h"
#include "app/cli/cli_stores.h"
#include "app/cli/cli_train.h"
#include "app/window/monkey.h"
#include "core/io/formats.h"
#include "core/io/settings.h"
#include "core/kernels.h"
#include "core/model/arch/table.h"
#include "core/model/fast_product.h"
#include "core/scenario.h"
#include "ui/workspace_table.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

namespace app {

std::string usage_text() {
    using core::io::Kind;
    const std::string attention = core::io::extension_list(Kind::attention, ", ");
    const std::string arrays = core::io::extension_list(Kind::array, ", ");
    return
    "usage: attnviz [FILE]                          open the window (\"the cat sat\" by default)\n"
    "       attnviz --screenshot OUT.png [--select ROW] [--head H] [FILE]\n"
    "                                               draw the window once, save it as a PNG, exit\n"
    "       attnviz --dump [FILE]                   print every matrix as JSON\n"
    "       attnviz --explain ROW [FILE]            write out the calculation of one row\n"
    "       attnviz --decode [FILE]                 step a decoder through its KV cache, as JSON\n"
    "       attnviz --bench-core --tokens N --dim D [--reps R]\n"
    "                                               time the full recompute on random N x D (one head),\n"
    "                                               print the median and the fastest run in ms as JSON\n"
    "       attnviz --workspace explore|learn|train|model ...\n"
    "                                               with the window or --screenshot: start in that workspace\n"
    "       attnviz --model MODEL [--text TEXT] [--head L.H]\n"
    "                                               a checkpoint in the Model workspace: every head of TEXT,\n"
    "                                               --head: the head shown (with the window or --screenshot)\n"
    "       attnviz --attention FILE [--labels FILE] [--head [L.]H] [--select ROW]\n"
    "                                               a model's attention weights (" + attention + ";\n"
    "                                               (n, n), (heads, n, n) or (layers, heads, n, n)): every\n"
    "                                               layer and head, one head's map, top keys, causal check;\n"
    "                                               labels: a JSON array or one token a line; --head: the\n"
    "                                               head shown (layer L, default 1), --select: its query;\n"
    "                                               with --screenshot too\n"
    "       attnviz --bench-frames F --attention FILE   time the viewer's frames on FILE, as JSON\n"
    "       attnviz --bench-frames F --model MODEL [--text TEXT] [--type KEYS]\n"
    "                                               the same in the Model workspace, and when every head showed\n"
    "                                               (the frames before drawn as the window draws them);\n"
    "                                               with --type, each key typed into the prompt until its run shows\n"    "       attnviz --bench-frames F --tokens N --dim D\n"
    "                                               open the window on random N x D, draw F frames without\n"
    "                                               vsync, print the median and 99th percentile frame in ms\n"
    "       attnviz --monkey FRAMES [--seed S]      random clicks, drags and typing on the headless UI;\n"
    "                                               exit 0 when nothing went wrong (autosaves as the window)\n"
    "       attnviz --lessons                       list the built-in lessons as JSON (id, title, steps)\n"
    "       attnviz --lesson ID|FILE [--step K]     open the window on a lesson (at step K)\n"
    "       attnviz --lesson ID|FILE --check        check a lesson file: exit 0, or 2 with FILE:LINE: reason\n"
    "       attnviz --lesson ID|FILE --answers      each prediction's answer and challenge's goal, as JSON\n"
    "       attnviz --lesson ID|FILE [--step K] --screenshot OUT.png\n"
    "       attnviz --train TASK [--layers L --heads H --d-model D --ctx T --vocab V --mlp --steps N\n"
    "                             --seed S --lr X --init small|large --batch B --threads 1|2 --float64]\n"
    "                             --out M.safetensors\n"
    "                                               train a tiny transformer on repeat, previous or sort;\n"
    "                                               one JSON line every 50 steps, then save the model\n"
    "       attnviz --train text --corpus FILE --out DIR [--merges N --layers L --heads H --d-model C --ctx T\n"
    "                             --steps N --warmup N --batch B --lr X --seed S --held-out F --repeat-share F\n"
    "                             --mirror-share F --init DIR --log-every N]\n"
    "                                               train a GPT-2 on a UTF-8 text file over a byte-level BPE\n"
    "                                               learned from it; save config.json, model.safetensors and\n"
    "                                               tokenizer.json in DIR as Hugging Face lays them out\n"
    "       attnviz --forward M.safetensors --sequence \"3 1 4 1 5\"\n"
    "                                               the saved model's logits and attention as JSON\n"
    "       attnviz --tokenize MODEL --text TEXT    a model's tokenizer (MODEL: a directory with tokenizer.json\n"
    "                                               or vocab.json + merges.txt, a GGUF file, an Ollama\n"
    "                                               NAME:TAG): {\"ids\": [...], \"tokens\": [...]}\n"
    "       attnviz --tensor MODEL NAME [NAME ...]  each weight as attnviz reads it (dequantized, transformers'\n"
    "                                               row order), a line each: {\"name\", \"type\", \"shape\", \"values\"};\n"
    "                                               a GGUF file's own names too (blk.0.attn_q.weight), with\n"
    "                                               \"as\": the name attnviz reads it by\n"
    "       attnviz --forward MODEL (--text TEXT | --sequence \"ids\")\n"
    "                                               a checkpoint's ids, tokens, logits (t, vocab) and\n"
    "                                               attention (layers, heads, t, t) as JSON (a bare\n"
    "                                               BertModel: hidden (t, d) instead of logits)\n"
    "       attnviz --generate MODEL (--text TEXT | --sequence \"ids\") --tokens N\n"
    "                                               N more tokens, greedily, with the KV cache, as JSON\n"
    "                                               (fewer after the model's end-of-text token)\n"
    "       ... --forward MODEL ... --activations L\n"
    "                                               layer L's q, k, v (and a linear layer's beta and g)\n"
    "                                               as JSON, in place of the forward's\n"
    "       ... --forward or --generate ... --ablate \"L.H,L.H\" [--ablate-mode zero|mean]\n"
    "                                               those heads' outputs (before the output projection)\n"
    "                                               set to zero or to their mean over the positions\n"
    "       ... --forward or --generate ... --ablate-expert \"L.E,L.E\"\n"
    "                                               those experts dropped from the experts their layer's\n"
    "                                               router chose (the others keep their weights)\n"
    "       ... --forward, --generate or --bench-model ... --fast\n"
    "                                               Q8_0 and Q4_0 weights times activations rounded to\n"
    "                                               int8 per block of 32 (AVX512-VNNI, AVX-VNNI or AVX2),\n"
    "                                               F32, F16 and BF16 ones in bf16 (AVX512-BF16): faster,\n"
    "                                               not exact; what stays exact here is said in one line\n"
    "                                               (--version lists what this CPU runs)\n"
    "       attnviz --heads MODEL (--text TEXT | --sequence \"ids\" | --probe M [--seed S])\n"
    "                                               every head's previous, duplicate, induction, entropy and\n"
    "                                               sink (a learned sink's share, else the weight on position\n"
    "                                               1) scores as JSON; --probe:\n"
    "                                               M random ids twice, after BOS\n"
    "       attnviz --head-importance MODEL (--text TEXT | --sequence \"ids\")\n"
    "                                               each head's loss increase when it alone is zeroed\n"
    "       attnviz --expert-importance MODEL (--text TEXT | --sequence \"ids\")\n"
    "                                               each expert's loss increase when it alone is knocked out\n"
    "       attnviz --rollout MODEL (--text TEXT | --sequence \"ids\")\n"
    "                                               attention rollout {\"rollout\": (t, t)}; layers, heads and\n"
    "                                               positions count from 1 in all of these and below\n"
    "       attnviz --logit-lens MODEL (--text TEXT | --sequence \"ids\") [--top K]\n"
    "                                               each layer's top tokens through the final norm and head\n"
    "       attnviz --attribute MODEL (--text TEXT | --sequence \"ids\") --target TOKEN [--vs TOKEN]\n"
    "               [--position I]                  each head's and MLP's direct share of the logit\n"
    "       attnviz --patch MODEL --clean TEXT --corrupt TEXT (--answer TOKEN --vs TOKEN | --metric loss)\n"
    "               [--by head|position]            recovery when a head's output or the stream at a\n"
    "                                               position comes from the clean run (TOKEN: text or #ID)\n"
    "       attnviz --composition MODEL [--kind q|k|v]\n"
    "                                               composition scores between every pair of heads\n"
    "                                               {\"kind\", \"scores\": (L, H, L, H)}, null unless l1 < l2\n"
    "       attnviz --qk MODEL (--text TEXT | --sequence \"ids\") --head L.H --query I [--key J]\n"
    "                                               the head's scores of query I as sums over pairs of\n"
    "                                               the stream's components; --key J: the pairs\n"
    "       attnviz --export-attention MODEL (--text TEXT | --sequence \"ids\") --out ATT.safetensors\n"
    "                                               every head's weights with the tokens, for --attention\n"
    "       attnviz --list-models                   the bundled model, then every model in the Hugging Face\n"
    "                                               cache, Ollama's store, LM Studio's models folder and\n"
    "                                               llama.cpp's cache as JSON: name, store, path, format,\n"
    "                                               bytes, quantization\n"
    "       attnviz --bench-model MODEL --tokens N [--reps R]\n"
    "                                               time a forward with attentions on N random ids as JSON:\n"
    "                                               forward_ms the forward alone, median_ms with every\n"
    "                                               position's top 10 tokens, step_ms one decoding step\n"
    "                                               after them; threads and peak RSS\n"
    "MODEL is a model directory in the Hugging Face layout (config.json, model.safetensors or its index\n"
    "and shards, tokenizer.json), a Hugging Face cache snapshot or models--ORG--NAME folder, an Ollama\n"
    "NAME:TAG in its store (as --list-models names it), a GGUF file (llama.cpp, Ollama, LM Studio), or\n"
    "attnviz's own trained .safetensors. These architectures run:\n" + core::model::supported_architectures() +
    "; from GGUF: " + core::model::supported_gguf_architectures() + ".\n"
    "       attnviz --export WHAT --format FMT --out PATH [--head H] [FILE]\n"
    "                                               write a matrix, the heatmap or everything to a file:\n"
    "                                               WHAT X W_Q W_K W_V W_O Q K V scores scaled A Z concat\n"
    "                                               output: FMT csv tsv tex md json npy (A also png, a\n"
    "                                               pixel per cell); heatmap: png svg (labelled); all:\n"
    "                                               npz json.\n"
    "                                               H counts heads from 1\n"
    "       attnviz [--theme dark|light] [--zoom PERCENT] ...\n"
    "                                               with the window or --screenshot: the theme and the\n"
    "                                               zoom (75 to 300, in the steps of Ctrl+= and Ctrl+-)\n"
    "       attnviz --review [--now ISO8601]        print the review cards due (at --now) and their FSRS state\n"
    "       attnviz --export-anki OUT.txt           write every review card for Anki's text import\n"
    "       attnviz --help | --version\n"
    "       attnviz --presets                       list the presets as JSON (id, title)\n"
    "       --preset ID [--seed S --tokens N --dim D] goes wherever FILE does (seed, tokens, dim: numpy-random)\n"
    "ROW is a 1-based index or a token name. FILE is a scenario in JSON (see docs/formats.md), or an array file\n"
    "(" + arrays + ") opened as one.\n";
}

namespace {

// --lesson goes with the window, --screenshot, --check and --answers; --step with the first two.
void check_lesson_flags(const Options& o) {
    using M = Options::Mode;
    const bool checking = o.mode == M::lesson_check || o.mode == M::lesson_answers;
    if (checking && o.lesson.empty()) throw UsageError(std::string(o.mode == M::lesson_check ? "--check" : "--answers") + " needs --lesson ID|FILE");
    if (o.lesson.empty()) {
        if (o.lesson_step) throw UsageError("--step goes with --lesson");
        return;
    }
    if (o.mode != M::window && o.mode != M::screenshot && !checking) throw UsageError("--lesson goes with the window, --screenshot, --check or --answers");
    if (o.lesson_step && checking) throw UsageError("--step goes with the window or --screenshot");
    if (!o.file.empty()) throw UsageError("a lesson loads its own scenarios; it takes no FILE (" + o.file + ")");
}

// --head H, or L.H (a layer of an attention file, and a head, for files of more than 16 heads
// too), each counted from 1.
void head_of(Options& o, const std::string& text) {
    const std::size_t dot = text.find('.');
    if (dot == std::string::npos) { // a scenario's head; an attention file's in layer 1
        o.head = whole_flag("--head", text, 1, core::Limits::max_heads);
        return;
    }
    o.head_layer = whole_flag("--head's layer", text.substr(0, dot), 1, 100000);
    o.head = whole_flag("--head", text.substr(dot + 1), 1, 100000);
}

// Every --flag the usage text names: what an unknown option may be a typo of.
std::vector<std::string> options_in_usage() {
    const std::string text = usage_text();
    std::vector<std::string> found;
    for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
        std::size_t end = at + 2;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-')) ++end;
        if (end > at + 2) found.push_back(text.substr(at, end - at));
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
}

std::string workspace_of(const std::string& text) {
    std::string names;
    for (const ui::WorkspaceSpec& w : ui::workspace_table()) names += (names.empty() ? "" : ", ") + std::string(w.id);
    if (ui::find_workspace(text) < 0) throw UsageError("--workspace takes one of " + names + ", not \"" + text + "\"");
    return text;
}

std::string theme_of(const std::string& text) {
    if (text != "dark" && text != "light") throw UsageError("--theme takes dark or light, not \"" + text + "\"");
    return text;
}

int zoom_of(const std::string& text) {
    std::string steps;
    for (int step : core::io::zoom_steps) steps += (steps.empty() ? "" : ", ") + std::to_string(step);
    const int z = whole_flag("--zoom", text, core::io::zoom_steps.front(), core::io::zoom_steps.back());
    if (std::find(core::io::zoom_steps.begin(), core::io::zoom_steps.end(), z) == core::io::zoom_steps.end())
        throw UsageError("--zoom takes one of " + steps + ", not " + text);
    return z;
}

} // namespace

Options parse_args(int argc, const char* const* argv) {
    Options o;
    bool mode_set = false;
    auto set_mode = [&](Options::Mode m, const std::string& flag) {
        if (mode_set) throw UsageError("only one of --dump, --explain, --decode, --export, --screenshot, --bench-core, --bench-frames, --monkey, --review, --export-anki, --lessons, --check, --answers, --help, --version at a time (" + flag + ")");
        o.mode = m;
        mode_set = true;
    };
    auto value_of = [&](int& i) { return flag_value(argc, argv, i); };
    bool select_given = false, head_given = false, text_given = false;
    std::string bench_flag; // the last of --tokens, --dim, --reps seen
    bool reps_given = false;
    bool tokens_given = false, dim_given = false, seed_given = false;
    std::string export_flag; // the last of --format and --out seen
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dump") set_mode(Options::Mode::dump, a);
        else if (a == "--decode") set_mode(Options::Mode::decode, a);
        else if (a == "--help" || a == "-h") set_mode(Options::Mode::help, a);
        else if (a == "--version") set_mode(Options::Mode::version, a);
        else if (a == "--explain") { set_mode(Options::Mode::explain, a); o.row = value_of(i); }
        else if (a == "--screenshot") { set_mode(Options::Mode::screenshot, a); o.screenshot_path = value_of(i); }
        else if (a == "--select") { o.row = value_of(i); select_given = true; }
        else if (a == "--bench-core") set_mode(Options::Mode::bench_core, a);
        else if (a == "--attention") o.attention_file = value_of(i);
        else if (a == "--labels") o.labels_file = value_of(i);
        else if (a == "--model") o.model = value_of(i);
        else if (a == "--text") { o.model_text = value_of(i); text_given = true; }
        else if (a == "--type") o.type_keys = value_of(i);
        else if (a == "--export") { set_mode(Options::Mode::export_file, a); o.export_what = value_of(i); }
        else if (a == "--format") { o.export_format = value_of(i); export_flag = a; }
        else if (a == "--out") { o.export_out = value_of(i); export_flag = a; }
        else if (a == "--head") { head_of(o, value_of(i)); head_given = true; }
        else if (a == "--workspace") o.workspace = workspace_of(value_of(i));
        else if (a == "--bench-frames") { set_mode(Options::Mode::bench_frames, a); o.frames = whole_flag(a, value_of(i), 1, 100000); }
        else if (a == "--monkey") { set_mode(Options::Mode::monkey, a); o.monkey_frames = whole_flag(a, value_of(i), 1, 1000000000); }
        else if (a == "--theme") o.theme = theme_of(value_of(i));
        else if (a == "--zoom") o.zoom_percent = zoom_of(value_of(i));
        else if (a == "--seed") { o.seed = whole_flag(a, value_of(i), 0, 2147483647); seed_given = true; }
        else if (a == "--tokens") { o.tokens = whole_flag(a, value_of(i), 1, core::Limits::max_tokens); tokens_given = true; bench_flag = a; }
        else if (a == "--dim") { o.dim = whole_flag(a, value_of(i), 1, core::Limits::max_dim); dim_given = true; bench_flag = a; }
        else if (a == "--lessons") set_mode(Options::Mode::lessons, a);
        else if (a == "--presets") set_mode(Options::Mode::presets, a);
        else if (a == "--preset") o.preset = value_of(i);
        else if (a == "--lesson") o.lesson = value_of(i);
        else if (a == "--check") { set_mode(Options::Mode::lesson_check, a); }
        else if (a == "--answers") { set_mode(Options::Mode::lesson_answers, a); }
        else if (a == "--step") o.lesson_step = whole_flag(a, value_of(i), 1, 10000);
        else if (a == "--review") set_mode(Options::Mode::review, a);
        else if (a == "--now") o.review_now = value_of(i);
        else if (a == "--export-anki") { set_mode(Options::Mode::export_anki, a); o.anki_path = value_of(i); }
        else if (a == "--reps") { o.reps = whole_flag(a, value_of(i), 1, 100000); bench_flag = a; reps_given = true; }
        else if (a.size() > 1 && a[0] == '-') throw unknown_option(a, options_in_usage());
        else if (!o.file.empty()) throw UsageError("more than one FILE (" + o.file + ", " + a + ")");
        else o.file = a;
    }
    const bool shows_window = o.mode == Options::Mode::screenshot || o.mode == Options::Mode::window;
    if (select_given && !shows_window) throw UsageError("--select goes with the window or --screenshot");
    if (!o.workspace.empty() && !shows_window) throw UsageError("--workspace goes with the window or --screenshot");
    if (head_given && !shows_window && o.mode != Options::Mode::export_file) throw UsageError("--head goes with --export, the window or --screenshot");
    if (o.head_layer && o.attention_file.empty() && o.model.empty()) throw UsageError("--head L.H (a layer and a head) goes with --attention or --model");
    if (text_given && o.model.empty()) throw UsageError("--text goes with --model, --tokenize, --forward, --generate or --export-attention");
    if (!o.model.empty() && !shows_window && o.mode != Options::Mode::bench_frames) throw UsageError("--model goes with the window, --screenshot or --bench-frames");
    if (!o.type_keys.empty() && (o.mode != Options::Mode::bench_frames || o.model.empty())) throw UsageError("--type goes with --bench-frames F --model MODEL");
    if (!o.model.empty() && !o.attention_file.empty()) throw UsageError("--model and --attention open one window each; give one");
    check_lesson_flags(o);
    if ((!o.theme.empty() || o.zoom_percent) && o.mode != Options::Mode::screenshot && o.mode != Options::Mode::window)
        throw UsageError(std::string(o.theme.empty() ? "--zoom" : "--theme") + " goes with the window or --screenshot");
    check_review_args(o);
    check_attention_args(o, tokens_given || dim_given);
    check_preset_args(o, seed_given, tokens_given, dim_given);
    if (!o.preset.empty() && bench_flag != "--reps") bench_flag.clear(); // --tokens and --dim went to the preset
    if (seed_given && o.mode != Options::Mode::monkey && o.preset.empty()) throw UsageError("--seed goes with --monkey or --preset numpy-random");
    if (o.mode == Options::Mode::export_file) check_export_options(o);
    else if (!export_flag.empty()) throw UsageError(export_flag + " goes with --export");
    if (o.mode == Options::Mode::monkey && !o.file.empty()) throw UsageError("--monkey starts from the worked example; it takes no FILE (" + o.file + ")");
    if (o.mode == Options::Mode::bench_core || o.mode == Options::Mode::bench_frames) {
        const std::string mode = o.mode == Options::Mode::bench_core ? "--bench-core" : "--bench-frames";
        if ((!tokens_given || !dim_given) && o.attention_file.empty() && (o.model.empty() || o.mode != Options::Mode::bench_frames))
            throw UsageError(mode + " needs --tokens N and --dim D" + (o.mode == Options::Mode::bench_frames ? " (or --attention FILE, or --model MODEL)" : ""));
        if (!o.file.empty()) throw UsageError(mode + " makes its own random scenario; it takes no FILE (" + o.file + ")");
        if (reps_given && o.mode == Options::Mode::bench_frames) throw UsageError("--reps goes with --bench-core");
    } else if (!bench_flag.empty()) {
        throw UsageError(bench_flag + (reps_given && bench_flag == "--reps" ? " goes with --bench-core" : " goes with --bench-core or --bench-frames"));
    }
    return o;
}

namespace {

int run_help(const Options&, std::ostream& out, std::ostream&) {
    out << usage_text();
    return 0;
}

// The version, then the kernel level in use beside the levels this CPU runs, and what --fast does here.
int run_version(const Options&, std::ostream& out, std::ostream&) {
    out << "attnviz " << ATTNVIZ_VERSION << "\n";
    std::string levels;
    for (const std::string& k : core::kernel_builds()) levels += (levels.empty() ? "" : ", ") + k;
    out << "kernels: " << core::kernel_build() << " (this CPU runs " << levels << "; ATTNVIZ_KERNELS chooses)\n";
    out << "--fast: " << core::model::fast::summary() << "\n";
    return 0;
}

// The modes without a window, one row each: what Options::Mode runs.
struct TextMode {
    Options::Mode mode;
    int (*run)(const Options& options, std::ostream& out, std::ostream& err);
};
const TextMode text_modes[] = {
    {Options::Mode::help, run_help},
    {Options::Mode::version, run_version},
    {Options::Mode::presets, [](const Options&, std::ostream& out, std::ostream&) { out << presets_json(); return 0; }},
    {Options::Mode::dump, run_dump},
    {Options::Mode::explain, run_explain},
    {Options::Mode::decode, run_decode},
    {Options::Mode::export_file, [](const Options& o, std::ostream&, std::ostream& err) { return run_export(o, err); }},
    {Options::Mode::bench_core, [](const Options& o, std::ostream& out, std::ostream&) { return run_bench_core(o, out); }},
    {Options::Mode::monkey, [](const Options& o, std::ostream& out, std::ostream& err) {
         return run_monkey(o.monkey_frames, static_cast<std::uint64_t>(o.seed), out, err); }},
    {Options::Mode::review, [](const Options& o, std::ostream& out, std::ostream& err) { return run_review_list(o.review_now, out, err); }},
    {Options::Mode::export_anki, [](const Options& o, std::ostream& out, std::ostream& err) { return run_export_anki(o.anki_path, out, err); }},
    {Options::Mode::lessons, run_lesson_mode},
    {Options::Mode::lesson_check, run_lesson_mode},
    {Options::Mode::lesson_answers, run_lesson_mode},
};

// The modes that read every flag themselves: the first that wants the arguments runs. Any one of
// a mode's flags asks for it; a mode whose flags other modes take too decides by its own `wants`.
struct OwnMode {
    std::vector<std::string> flags;
    bool (*wants)(int argc, const char* const* argv);
    int (*run)(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

    bool wanted(int argc, const char* const* argv) const {
        if (wants) return wants(argc, argv);
        return std::any_of(argv + 1, argv + argc, [&](const char* a) { return std::find(flags.begin(), flags.end(), a) != flags.end(); });
    }
};
const OwnMode own_modes[] = {
    {{"--logit-lens", "--attribute", "--patch"}, nullptr, run_circuits_mode},
    {{"--composition", "--qk"}, nullptr, run_qk_mode},
    {{}, wants_probes_mode, run_probes_mode}, // before the model's (--text) and --train's (--heads)
    {{"--activations"}, nullptr, run_activations_mode}, // before the model's: --forward MODEL --activations L
    {{}, wants_model_mode, run_model_mode},   // before --train's: --forward of a model directory
    {{"--train", "--forward"}, nullptr, run_train_mode},
    {{"--tokenize"}, nullptr, run_tokenize_mode},
    {{"--list-models"}, nullptr, run_list_models_mode},
    {{"--tensor"}, nullptr, run_tensor_mode},
};

// The window, --screenshot and --bench-frames: their files are checked before any window opens.
int window_mode(const Options& o, std::ostream& err, WindowRunner run_window) {
    if (!o.attention_file.empty() && !check_attention_files(o, err)) return 2;
    if (!o.model.empty() && !model_opens(o, err)) return 2;
    if (!o.lesson.empty() && !lesson_loads(o, err)) return 2;
    if (!run_window) {
        err << "attnviz: this build has no window; try --dump, --explain, --decode or --bench-core\n";
        return 2;
    }
    return run_window(o);
}

} // namespace

int main_with(int argc, const char* const* argv, std::ostream& out, std::ostream& err, WindowRunner run_window) {
    if (const std::string problem = core::kernel_request_problem(); !problem.empty()) {
        err << "attnviz: " << problem << "\n";
        return 2;
    }
    for (const OwnMode& m : own_modes)
        if (m.wanted(argc, argv)) return m.run(argc, argv, out, err);
    Options o;
    try {
        o = parse_args(argc, argv);
    } catch (const UsageError& e) {
        err << "attnviz: " << e.what() << " (see attnviz --help)\n";
        return 2;
    }
    for (const TextMode& m : text_modes)
        if (m.mode == o.mode) return m.run(o, out, err);
    return window_mode(o, err, run_window); // the window, --screenshot, --bench-frames
}

} // namespace app
