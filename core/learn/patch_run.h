// core/learn/patch_run.h — what a step's `patch` action measures on its model (docs/lessons.md):
// each head's recovery when patched from the clean prompt into the corrupted one, its direct
// attribution to the answer's logit difference on the clean prompt, the logit lens at the clean
// prompt's last token, and the facts read off them (best_recovery, …). The Lesson panel runs it on
// a worker; --answers runs it to print the answers the window would judge by.
#pragma once

#include "core/learn/expr.h"
#include "core/learn/lesson.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace core::learn {

struct PatchRun {
    std::string name;                   // the model's
    int layers = 0, heads = 0;
    std::string answer, vs;             // as the tokenizer shows them
    double clean_metric = 0.0, corrupt_metric = 0.0; // logit(answer) − logit(vs) at the last token
    Matrix recovery;                    // (layers, heads)
    Matrix attribution;                 // (layers, heads) on the clean prompt
    std::vector<int> lens_rank;         // (layers) the answer's rank at the clean prompt's last token after each layer
    std::vector<std::string> lens_top;  // (layers) the most likely token there, as shown
    // How the reader (the best-recovering head past the first layer) reads earlier heads.
    int reader = -1;                    // layer · heads + head
    Matrix k_composition;               // (layers, heads): each earlier head's K-composition into the reader; NaN from its layer on
    int query = 0, key = 0;             // the reader's strongest score on the clean prompt: the last token's, on its best key
    std::string query_token, key_token; // as shown
    double score = 0.0;                 // s_ij, after the scale
    std::vector<std::string> qk_pairs;  // its three largest (query part, key part) pairs, in words
};

// What a run is of: model, clean prompt and patch, in one string.
std::string patch_key(const std::string& model, const std::string& clean, const Actions::Patch& patch);

// Opens `model` and measures it on the prompts. Throws what opening and running the model throw
// (core::model::Cancelled once `cancel` is set); calls progress(done, total) after each batch of patches.
PatchRun run_patch(const std::string& model, const std::string& clean, const Actions::Patch& patch, const std::atomic<bool>* cancel = nullptr,
                   const std::function<void(int done, int total)>& progress = {});

// best_recovery, recovery_layer, attribution_layer, lens_layer, reader_layer and composition_layer
// (the layer of the head that K-composes most into the reader); with a head picked (layer · heads +
// head, from 0; -1: none) picked_recovery, picked_attribution and, before the reader's layer,
// picked_composition.
void add_patch_facts(const PatchRun& r, int picked, Facts& f);

} // namespace core::learn
