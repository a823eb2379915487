// app/cli/cli_train_text.cpp — --train text (see app/cli/cli_train_text.h).
//
// [SECTION] flags
// [SECTION] progress lines
// [SECTION] the run
#include "app/cli/cli_train_text.h"
#include "app/cli/cli_flags.h"
#include "app/options.h"

#include "core/io/tensor.h"
#include "core/parallel.h"
#include "core/train/config.h"
#include "core/train/text_trainer.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace app {

namespace {

using core::train::TextTrainConfig;

// [SECTION] flags ---------------------------------------------------------------------------------


struct TextOptions {
    TextTrainConfig config;
    std::string corpus, out, init; // init: a model directory to continue from
    int log_every = 100;
};

double fraction(const std::string& flag, const std::string& text, double lo, double hi) {
    const std::optional<double> v = number_of(text);
    if (!v || !(*v >= lo && *v <= hi))
        throw UsageError(flag + " takes a number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not \"" + text + "\"");
    return *v;
}

TextOptions parse(int argc, const char* const* argv) {
    TextOptions o;
    TextTrainConfig& c = o.config;
    bool warmup_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) throw UsageError(a == "--train" || a.rfind("--", 0) == 0 ? a + " needs a value" : "unexpected " + a);
        const std::string v = argv[++i];
        if (a == "--train") continue; // "text", checked by wants_text_training
        else if (a == "--corpus") o.corpus = v;
        else if (a == "--out") o.out = v;
        else if (a == "--init") o.init = v;
        else if (a == "--merges") c.merges = whole_flag(a, v, 0, 20000);
        else if (a == "--layers") c.model.n_layer = whole_flag(a, v, 1, 12);
        else if (a == "--heads") c.model.n_head = whole_flag(a, v, 1, 16);
        else if (a == "--d-model") c.model.n_embd = whole_flag(a, v, 8, 768);
        else if (a == "--ctx") c.model.n_ctx = whole_flag(a, v, 8, 1024);
        else if (a == "--steps") c.steps = whole_flag(a, v, 1, 1000000);
        else if (a == "--warmup") { c.warmup = whole_flag(a, v, 0, 1000000); warmup_given = true; }
        else if (a == "--batch") c.batch = whole_flag(a, v, 1, 1024);
        else if (a == "--lr") c.lr = fraction(a, v, 1e-6, 1.0);
        else if (a == "--seed") c.seed = static_cast<std::uint64_t>(whole_flag(a, v, 0, 2147483647));
        else if (a == "--held-out") c.held_out = fraction(a, v, 0.001, 0.5);
        else if (a == "--repeat-share") c.repeat_share = fraction(a, v, 0.0, 1.0);
        else if (a == "--mirror-share") c.mirror_share = fraction(a, v, 0.0, 1.0);
        else if (a == "--log-every") o.log_every = whole_flag(a, v, 1, 1000000);
        else throw UsageError("unknown option " + a + " for --train text");
    }
    if (o.corpus.empty()) throw UsageError("--train text needs --corpus FILE (UTF-8 text)");
    if (o.out.empty()) throw UsageError("--train text needs --out DIR (where config.json, model.safetensors and tokenizer.json go)");
    if (!warmup_given) c.warmup = std::min(c.warmup, c.steps / 10);
    if (std::string e = core::train::validate(c); !e.empty()) throw UsageError(e);
    return o;
}

// [SECTION] progress lines ------------------------------------------------------------------------

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string one;
    in >> one;
    return one.empty() ? "null" : one;
}

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

std::string evaluation_json(const core::train::TextEvaluation& e, int heads) {
    std::ostringstream s;
    s << std::setprecision(5) << "{\"held_out_tokens\": " << e.tokens << ", \"held_out_loss\": " << e.loss
      << ", \"unigram_loss\": " << e.unigram_loss << ", \"bits_per_byte\": " << e.bits_per_byte
      << ", \"unigram_bits_per_byte\": " << e.unigram_bits_per_byte << ", \"repeat_first_loss\": " << e.repeat_first_loss
      << ", \"repeat_second_loss\": " << e.repeat_second_loss << ", \"text_heads\": ";
    s << head_scores_json(e.text_heads, heads) << ", \"repeat_heads\": " << head_scores_json(e.repeat_heads, heads);
    s << "}";
    return s.str();
}

// The head with the highest `score` among `scores`, as {"L.H": score} (layers and heads from 1).
std::string best_head_json(const std::vector<core::heads::HeadScores>& scores, core::heads::Score score, int heads) {
    const int k = core::heads::best_head(scores, score);
    if (k < 0) return "null";
    std::ostringstream s;
    s << std::setprecision(3) << "{\"" << k / heads + 1 << "." << k % heads + 1 << "\": " << *core::heads::score_value(scores[static_cast<std::size_t>(k)], score) << "}";
    return s.str();
}
// [SECTION] the run -------------------------------------------------------------------------------

// Continues from the model in `dir`, which must have this run's sizes and the same tokenizer (the
// BPE learned from the same corpus with the same merges).
void start_from_dir(core::train::TextTrainer& trainer, const std::string& dir) {
    const core::train::Gpt2Saved saved = core::train::load_gpt2_dir(dir);
    if (!(saved.config == trainer.layout().config))
        throw core::io::FileError(dir + "/config.json: the sizes (vocabulary, positions, width, heads, layers) differ from this run's");
    if (core::io::read_file_bytes(dir + "/tokenizer.json", std::size_t{1} << 28) != trainer.corpus().bpe.tokenizer_json())
        throw core::io::FileError(dir + "/tokenizer.json: not the BPE this run learned from its corpus (another corpus or --merges)");
    trainer.start_from(saved.params);
}

int run(const TextOptions& o, std::ostream& out) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const double cpu0 = cpu_seconds();
    auto wall = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
    const std::string text = core::io::read_file_bytes(o.corpus, std::size_t{1} << 30);
    core::train::TextCorpus corpus = [&] {
        try {
            return core::train::make_text_corpus(text, o.config.merges, o.config.held_out);
        } catch (const core::train::BpeError& e) {
            throw core::io::FileError(o.corpus + ": " + e.what());
        }
    }();
    const double bpe_seconds = wall();
    out << "{\"corpus\": \"" << o.corpus << "\", \"bytes\": " << text.size() << ", \"train_tokens\": " << corpus.train_ids.size()
        << ", \"held_out_tokens\": " << corpus.held_out_ids.size() << ", \"vocab\": " << corpus.bpe.vocab_size()
        << ", \"merges\": " << corpus.bpe.merge_count() << ", \"bpe_seconds\": " << bpe_seconds
        << ", \"threads\": " << core::parallel::threads() << ", \"load_average\": " << load_average() << "}\n" << std::flush;
    core::train::TextTrainer trainer(o.config, std::move(corpus));
    if (!o.init.empty()) start_from_dir(trainer, o.init);
    out << "{\"parameters\": " << trainer.layout().total << "}\n" << std::flush;
    const double tokens_per_step = static_cast<double>(o.config.batch) * o.config.model.n_ctx;
    const int H = o.config.model.n_head;
    for (int step = 1; step <= o.config.steps; ++step) {
        const core::train::TextStep r = trainer.step();
        if (step % o.log_every == 0 || step == o.config.steps) {
            const core::train::TextEvaluation e = trainer.evaluate(32);
            const double seconds = wall();
            out << std::setprecision(5) << "{\"step\": " << step << ", \"train_loss\": " << r.loss << ", \"held_out_loss\": " << e.loss
                << ", \"lr\": " << r.lr << ", \"grad_norm\": " << r.grad_norm << ", \"seconds\": " << seconds
                << ", \"cpu_seconds\": " << cpu_seconds() - cpu0 << ", \"tokens_per_s\": " << step * tokens_per_step / (seconds - bpe_seconds)
                << ", \"load_average\": " << load_average()
                << ", \"previous\": " << best_head_json(e.text_heads, core::heads::Score::previous, H)
                << ", \"duplicate\": " << best_head_json(e.repeat_heads, core::heads::Score::duplicate, H)
                << ", \"induction\": " << best_head_json(e.repeat_heads, core::heads::Score::induction, H) << "}\n" << std::flush;
        }
    }
    const double train_seconds = wall(), train_cpu = cpu_seconds() - cpu0;
    const core::train::TextEvaluation e = trainer.evaluate(0);
    core::train::save_gpt2_dir(o.out, trainer.saved(), trainer.corpus().bpe.tokenizer_json());
    out << "{\"done\": \"" << o.out << "\", \"steps\": " << trainer.steps_done() << ", \"seconds\": " << train_seconds
        << ", \"cpu_seconds\": " << train_cpu << ", \"evaluation\": " << evaluation_json(e, H) << "}\n" << std::flush;
    return 0;
}

} // namespace

bool wants_text_training(int argc, const char* const* argv) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--train" && std::string(argv[i + 1]) == "text") return true;
    return false;
}

int run_text_training(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] { return run(parse(argc, argv), out); });
}

} // namespace app
