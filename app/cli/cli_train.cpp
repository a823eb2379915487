// app/cli/cli_train.cpp — --train prints one JSON line every 50 steps and saves the model;
// --forward loads one and prints its logits and attention for a sequence, with --ablate's heads
// knocked out in its own float64 forward.
//
// [SECTION] flags
// [SECTION] --train
// [SECTION] --forward
#include "app/cli/cli_train.h"
#include "app/cli/cli_flags.h"
#include "app/options.h"

#include "app/cli/cli_model.h"
#include "app/cli/cli_train_text.h"

#include "core/io/tensor.h"
#include "core/train/model_file.h"
#include "core/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace app {

namespace {

using core::train::TrainConfig;

// [SECTION] flags ---------------------------------------------------------------------------------


struct TrainOptions {
    bool forward = false;
    TrainConfig config;
    std::string out, model_file, sequence, ablate;
    bool sequence_given = false, ablate_given = false, ablation_given = false;
    core::heads::Ablation ablation = core::heads::Ablation::zero;
};

double real(const std::string& flag, const std::string& text) {
    const std::optional<double> v = number_of(text);
    if (!v || !(*v > 0.0 && *v <= 1.0)) throw UsageError(flag + " takes a number in (0, 1], not \"" + text + "\"");
    return *v;
}

// The defaults of a task: the repeat task's reach its targets well inside a minute on 2 cores.
TrainConfig defaults(core::train::Task task) {
    TrainConfig c;
    c.task = task;
    c.threads = 2;
    if (task == core::train::Task::previous) c.steps = 400;
    if (task == core::train::Task::sort) { c.model.vocab = 11; c.steps = 1500; }
    return c;
}

TrainOptions parse(int argc, const char* const* argv) {
    TrainOptions o;
    std::vector<std::pair<std::string, std::string>> model_flags; // applied after the task's defaults
    bool mlp = false, float64 = false, train_given = false;
    auto value_of = [&](int& i) { return flag_value(argc, argv, i); };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--train") {
            try {
                o.config = defaults(core::train::task_from_name(value_of(i)));
            } catch (const core::train::ConfigError& e) {
                throw UsageError(std::string("--train: ") + e.what());
            }
            train_given = true;
        } else if (a == "--forward") { o.forward = true; o.model_file = value_of(i); }
        else if (a == "--sequence") { o.sequence = value_of(i); o.sequence_given = true; }
        else if (a == "--ablate") { o.ablate = value_of(i); o.ablate_given = true; }
        else if (a == "--ablate-mode") { o.ablation = ablation_of(value_of(i)); o.ablation_given = true; }
        else if (a == "--out") o.out = value_of(i);
        else if (a == "--mlp") mlp = true;
        else if (a == "--float64") float64 = true;
        else if (a == "--layers" || a == "--heads" || a == "--d-model" || a == "--ctx" || a == "--vocab" || a == "--steps" ||
                 a == "--seed" || a == "--lr" || a == "--init" || a == "--batch" || a == "--threads")
            model_flags.emplace_back(a, value_of(i));
        else throw UsageError("unknown option " + a);
    }
    if (train_given == o.forward) throw UsageError("give either --train TASK or --forward FILE");
    if (o.ablation_given && !o.ablate_given) throw UsageError("--ablate-mode goes with --ablate");
    if (o.forward) {
        if (!model_flags.empty() || mlp || float64 || !o.out.empty()) throw UsageError("--forward takes only --sequence, --ablate and --ablate-mode");
        if (!o.sequence_given) throw UsageError("--forward needs --sequence \"3 1 4 …\"");
        return o;
    }
    if (o.sequence_given || o.ablate_given) throw UsageError(std::string(o.ablate_given ? "--ablate" : "--sequence") + " goes with --forward");
    if (o.out.empty()) throw UsageError("--train needs --out M.safetensors");
    TrainConfig& c = o.config;
    c.model.mlp = mlp;
    c.float32 = !float64;
    for (const auto& [flag, value] : model_flags) {
        if (flag == "--layers") c.model.L = whole_flag(flag, value, 1, 8);
        else if (flag == "--heads") c.model.H = whole_flag(flag, value, 1, 16);
        else if (flag == "--d-model") c.model.D = whole_flag(flag, value, 1, 512);
        else if (flag == "--ctx") c.model.T = whole_flag(flag, value, 2, 256);
        else if (flag == "--vocab") c.model.vocab = whole_flag(flag, value, 3, 512);
        else if (flag == "--steps") c.steps = whole_flag(flag, value, 1, 10000000);
        else if (flag == "--seed") c.seed = static_cast<std::uint64_t>(whole_flag(flag, value, 0, 2147483647));
        else if (flag == "--lr") c.lr = real(flag, value);
        else if (flag == "--batch") c.batch = whole_flag(flag, value, 2, 4096);
        else if (flag == "--threads") c.threads = whole_flag(flag, value, 1, 2);
        else if (value == "small" || value == "large") c.init = core::train::init_from_name(value);
        else throw UsageError("--init takes small or large, not \"" + value + "\"");
    }
    c.warmup = std::min(c.warmup, c.steps / 4);
    if (std::string e = core::train::validate(c); !e.empty()) throw UsageError(e);
    return o;
}

// [SECTION] --train -------------------------------------------------------------------------------

std::string progress_line(int step, const core::train::StepResult& last, const core::train::Evaluation& e, int heads, double seconds) {
    std::ostringstream s;
    s << std::setprecision(6) << "{\"step\": " << step << ", \"loss\": " << e.loss << ", \"accuracy\": " << e.accuracy
      << ", \"steps_per_s\": " << (seconds > 0 ? step / seconds : 0.0) << ", \"seconds\": " << seconds
      << ", \"train_loss\": " << last.loss << ", \"lr\": " << last.lr << ", \"heads\": " << head_scores_json(e.heads, heads) << "}\n";
    return s.str();
}

int run_train(const TrainOptions& o, std::ostream& out, std::ostream& err) {
    using clock = std::chrono::steady_clock;
    core::train::Trainer trainer(o.config);
    const auto start = clock::now();
    core::train::StepResult last;
    for (int step = 1; step <= o.config.steps; ++step) {
        last = trainer.step();
        if (step % 50 == 0 || step == o.config.steps) {
            const core::train::Evaluation e = trainer.evaluate();
            out << progress_line(step, last, e, o.config.model.H, std::chrono::duration<double>(clock::now() - start).count()) << std::flush;
        }
    }
    core::train::SavedModel saved{trainer.model(), o.config.task, o.config.init, o.config.seed, trainer.steps_done()};
    try {
        core::train::save_model(o.out, saved);
    } catch (const core::io::FileError& e) {
        err << "attnviz: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

// [SECTION] --forward -----------------------------------------------------------------------------

std::vector<int> parse_sequence(const std::string& text, const core::train::ModelConfig& m, const std::string& path) {
    const std::vector<int> tokens = sequence_ids(text, m.vocab, path);
    if (static_cast<int>(tokens.size()) > m.T)
        throw UsageError("--sequence has " + std::to_string(tokens.size()) + " tokens; " + path + " takes 1 to " + std::to_string(m.T));
    return tokens;
}

void write_matrix(std::ostream& s, const core::train::ConstMatrixMap& A) {
    s << "[";
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
        s << (i ? ", [" : "[");
        for (Eigen::Index j = 0; j < A.cols(); ++j) s << (j ? ", " : "") << A(i, j);
        s << "]";
    }
    s << "]";
}

int run_forward(const TrainOptions& o, std::ostream& out) {
    const core::train::SavedModel saved = core::train::load_model(o.model_file);
    const core::train::ModelConfig& m = saved.model.config();
    core::train::Batch batch;
    batch.B = 1;
    batch.tokens = parse_sequence(o.sequence, m, o.model_file);
    batch.t = static_cast<int>(batch.tokens.size());
    batch.targets.assign(batch.tokens.size(), -1);
    core::heads::Knockouts knockouts{{}, o.ablation};
    if (o.ablate_given) knockouts.heads = parse_head_list("--ablate", o.ablate, m.L, m.H, o.model_file);
    core::train::Workspace ws;
    core::train::forward_all(saved.model, batch, ws, o.ablate_given ? &knockouts : nullptr);
    std::ostringstream s;
    s << std::setprecision(17) << "{\"logits\": ";
    write_matrix(s, core::train::ConstMatrixMap(ws.logits.data(), ws.logits.rows(), ws.logits.cols()));
    s << ", \"attention\": [";
    for (int l = 0; l < m.L; ++l) {
        s << (l ? ", [" : "[");
        for (int h = 0; h < m.H; ++h) {
            s << (h ? ", " : "");
            write_matrix(s, ws.attention(l, 0, h));
        }
        s << "]";
    }
    s << "]}\n";
    out << s.str();
    return 0;
}

} // namespace

int run_train_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    if (wants_text_training(argc, argv)) return run_text_training(argc, argv, out, err);
    return run_reporting_errors(err, [&] {
        const TrainOptions o = parse(argc, argv);
        return o.forward ? run_forward(o, out) : run_train(o, out, err);
    });
}

} // namespace app
