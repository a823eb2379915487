// tests/test_model_memory.cpp — a forward too big for memory is refused before it allocates, with
// its figures, on the command line and in the window's session; nothing open is lost.
#include "core/error_text.h"
#include "core/model/format/checkpoint.h"
#include "core/model/memory.h"
#include "core/model/session.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <new>

namespace {

// ATTNVIZ_MEMORY_LIMIT for one test's scope.
struct MemoryLimit {
    explicit MemoryLimit(const char* value) { setenv("ATTNVIZ_MEMORY_LIMIT", value, 1); }
    ~MemoryLimit() { unsetenv("ATTNVIZ_MEMORY_LIMIT"); }
};

core::model::ModelConfig llama_1b_shape() {
    core::model::ModelConfig c;
    c.layers = 16;
    c.heads = 32;
    c.kv_heads = 8;
    c.d_head = 64;
    c.d_model = 2048;
    c.d_ff = 8192;
    c.vocab = 128256;
    c.context = 131072;
    return c;
}

} // namespace

TEST_CASE("memory: a forward's footprint counts the maps' queries and keys (every map when dense), and prints in three figures") {
    core::model::ForwardOptions o;
    o.logits = core::model::Logits::none;
    const core::model::ForwardFootprint f = core::model::forward_footprint(llama_1b_shape(), o, 0, 5000);
    const double kept = 16.0 * 5000 * (32 * 64 + 8 * 64) * 4 + 16.0 * 32 * 5000 * 4; // queries, keys and entropies, float32
    CHECK(static_cast<double>(f.maps) == kept);
    CHECK(core::model::bytes_text(f.maps) == "829 MB");
    o.dense_attention = true;
    const core::model::ForwardFootprint dense = core::model::forward_footprint(llama_1b_shape(), o, 0, 5000);
    CHECK(static_cast<double>(dense.maps) == 16.0 * 32 * 5000 * 5000 * 4 + 16.0 * 32 * 5000 * 4); // every map
    CHECK(core::model::bytes_text(dense.maps) == "51.2 GB");
    CHECK(dense.other < dense.maps / 50); // the KV cache and one layer's activations
    o.dense_attention = false;
    o.attention = false;
    CHECK(core::model::forward_footprint(llama_1b_shape(), o, 0, 5000).maps == 0);
    CHECK(core::model::bytes_text(999) == "999 bytes");
    CHECK(core::model::bytes_text(1234) == "1.23 KB");
    CHECK(core::model::bytes_text(310'000'000) == "310 MB");
}

TEST_CASE("memory: ATTNVIZ_MEMORY_LIMIT lowers what is free — a forward past it is refused and the cache kept") {
    NEED_CHECKPOINTS();
    const core::model::OpenedModel m = core::model::open_model(fixtures::checkpoints() + "/gpt2");
    core::model::KvCache cache;
    m.model->extend(cache, {1, 2, 3}, {});
    REQUIRE(cache.length == 3);
    {
        const MemoryLimit limit("1M"); // less than the test program already holds
        CHECK(core::model::free_memory_bytes() == 0);
        try {
            m.model->extend(cache, {4, 5}, {});
            FAIL("the forward ran past the limit");
        } catch (const core::model::MemoryError& e) {
            const std::string what = e.what();
            CHECK(what.find("5 tokens need ") == 0);
            CHECK(what.find("(the attention queries and keys of ") != std::string::npos);
            CHECK(what.find("; 0 bytes is free") != std::string::npos);
        }
        CHECK(cache.length == 3);
    }
    CHECK(core::model::free_memory_bytes() > 0);
    m.model->extend(cache, {4, 5}, {});
    CHECK(cache.length == 5);
}

TEST_CASE("memory: on the command line, a forward past the limit is one line and exit 2") {
    NEED_CHECKPOINTS();
    const MemoryLimit limit("1M");
    const Run r = run({"--forward", fixtures::checkpoints() + "/gpt2", "--sequence", "1 2 3"});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("attnviz: 3 tokens need ") == 0);
    CHECK(r.err.find('\n') == r.err.size() - 1);
}

TEST_CASE("memory: in the window's session, a run past the limit is the run's error with its figures") {
    NEED_CHECKPOINTS();
    core::model::Session s;
    std::string error;
    REQUIRE(s.open(fixtures::checkpoints() + "/gpt2", error));
    s.request({" cat sat"});
    REQUIRE(s.wait_idle(60));
    REQUIRE(s.snapshot()->error.empty());
    const MemoryLimit limit("1M");
    s.request({" cat sat on"});
    REQUIRE(s.wait_idle(60));
    CHECK(s.snapshot()->error.find("tokens need ") != std::string::npos);
}

TEST_CASE("memory: a failed allocation reads as a sentence, not std::bad_alloc") {
    const std::string text = core::error_text(std::bad_alloc());
    CHECK(text.find("not enough memory") != std::string::npos);
    CHECK(text.find("bad_alloc") == std::string::npos);
    CHECK(core::error_text(std::runtime_error("x.gguf: truncated")) == "x.gguf: truncated");
}
