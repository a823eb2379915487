// core/model/requests/: generating (with the cache, and recomputing where heads are knocked out by
// their mean) against a loop of whole forwards written here, and a second prompt's comparison
// against its own forward with the first run's knock-outs.
#include "tests/checkpoint_fixtures.h"

#include "core/model/requests/compare.h"
#include "core/model/requests/forward.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <vector>

namespace {

using core::model::ForwardOptions;

// Greedy decoding as whole forwards of the sequence so far, the last row's argmax each step.
std::vector<int> argmax_path(const core::model::Model& model, std::vector<int> ids, int count, const ForwardOptions& o) {
    std::vector<int> made;
    for (int k = 0; k < count; ++k) {
        const core::model::ForwardResult r = model.forward(ids, o);
        const int V = static_cast<int>(r.logits.cols());
        const float* last = r.logits.data() + static_cast<std::ptrdiff_t>(r.t_new - 1) * V;
        made.push_back(static_cast<int>(std::max_element(last, last + V) - last));
        ids.push_back(made.back());
    }
    return made;
}

} // namespace

TEST_CASE("requests: generate follows the whole-forward argmax, intact, with a head zeroed and with a head knocked out by its mean") {
    NEED_CHECKPOINTS();
    const auto m = core::model::open_model(fixtures::checkpoints() + "/gpt2");
    const std::vector<int> prompt = {5, 9, 2, 17};
    ForwardOptions zero, mean;
    zero.ablate = mean.ablate = {{1, 1}};
    mean.ablation = core::model::Ablation::mean;
    for (const ForwardOptions& o : {ForwardOptions{}, zero, mean}) {
        const std::vector<int> made = core::model::generate(*m.model, {prompt, 6, o});
        CHECK(made == argmax_path(*m.model, prompt, 6, o));
    }
    // The mean knock-out differs from the zero one here, or the test above would not tell them apart.
    CHECK(argmax_path(*m.model, prompt, 6, mean) != argmax_path(*m.model, prompt, 6, zero));
}

TEST_CASE("requests: a second prompt is compared with the first run under the first run's knock-outs") {
    NEED_CHECKPOINTS();
    const auto m = core::model::open_model(fixtures::checkpoints() + "/gpt2");
    core::model::Snapshot first;
    first.ids = {5, 9, 2, 17, 5};
    first.request.ablate = {{0, 1}};
    ForwardOptions o;
    o.logits = core::model::Logits::none;
    o.ablate = first.request.ablate;
    first.result = m.model->forward(first.ids, o);
    const std::vector<int> second = {5, 9, 3, 17, 5};
    const core::model::Comparison got = core::model::compare_with_run(*m.model, first, second, nullptr);
    const core::model::Comparison want = core::model::compare_prompts(first.result, first.ids, m.model->forward(second, o), second);
    const core::model::ModelConfig& c = m.model->config();
    REQUIRE(got.mean_js.size() == static_cast<std::size_t>(c.layers * c.heads));
    CHECK(got.mean_js == want.mean_js);
    const core::model::Comparison intact = core::model::compare_prompts(first.result, first.ids, m.model->forward(second, {}), second);
    CHECK(intact.mean_js != want.mean_js); // the knock-out changed the second run
    std::atomic<bool> stop{true};
    CHECK_THROWS_AS(core::model::compare_with_run(*m.model, first, second, &stop), core::model::Cancelled);
}
