// bench/bench_lesson_train.cpp — how long the "heads that learn" lesson waits for its tiny model.
//
// The lesson starts the Train panel's default run (the repeat task, two threads) and waits until the
// repeat accuracy of the latest checkpoint on the held-out sequences is at least 0.9. This runs that
// session as the panel does: it polls 60 times a second and, at each new checkpoint, measures what
// the panel measures there (intact, and without the best previous-token and induction heads).
// One JSON line per run: the step and wall time at which the target was met, the process's CPU
// time to then, and the 1-minute load average before and after. Run from the build directory:
//   ./attnviz_bench_lesson_train [RUNS] [float64]
#include "core/train/knockouts.h"
#include "core/train/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include <ctime>

namespace {

using namespace core::train;

double load_average() {
    std::ifstream f("/proc/loadavg");
    double one = -1.0;
    f >> one;
    return one;
}

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The best head by `score` of the scores published with the checkpoint, as a knock-out.
Knockouts best(const SessionView& v, core::heads::Score score) {
    const int k = std::max(0, core::heads::best_head(v.heads, score));
    return Knockouts{{{k / v.config.model.H, k % v.config.model.H}}, core::heads::Ablation::zero};
}

void run_once(bool float32) {
    using clock = std::chrono::steady_clock;
    TrainConfig config;   // the Train panel's default run, which the lesson starts
    config.threads = 2;
    config.float32 = float32;
    const double load_before = load_average(), cpu0 = cpu_seconds();
    const auto start = clock::now();
    TrainSession session(config);
    session.start();
    SessionView v;
    size_t measured = 1; // checkpoint 0 is the untrained model
    double accuracy = 0.0;
    int step = -1;
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(16));
        session.view(v);
        if (v.checkpoint_steps.size() > measured) {
            measured = v.checkpoint_steps.size();
            const Model model = session.checkpoint(static_cast<int>(measured) - 1);
            const Batch repeat = held_out_sequences(v.config).repeat;
            accuracy = evaluate(model, repeat).accuracy;
            evaluate(model, repeat, best(v, core::heads::Score::previous));
            evaluate(model, repeat, best(v, core::heads::Score::induction));
            if (accuracy >= 0.9) {
                step = v.checkpoint_steps.back();
                break;
            }
        }
        if (!v.running && v.checkpoint_steps.size() == measured) break; // the run ended short of it
    }
    const double seconds = std::chrono::duration<double>(clock::now() - start).count(), cpu = cpu_seconds() - cpu0;
    session.pause();
    session.wait_idle();
    std::printf("{\"precision\": \"%s\", \"target_step\": %d, \"accuracy\": %.3f, \"seconds\": %.2f, \"cpu_seconds\": %.2f, "
                "\"load_before\": %.2f, \"load_after\": %.2f}\n",
                float32 ? "float32" : "float64", step, accuracy, seconds, cpu, load_before, load_average());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    const bool float32 = !(argc > 2 && std::strcmp(argv[2], "float64") == 0);
    for (int i = 0; i < runs; ++i) run_once(float32);
    return 0;
}
