// The GPT-2 that attnviz trains on text: its gradients against finite differences (float64 path),
// its forward pass against plain loops written here, the float32 builds against the float64 one,
// a short run that must learn, and the Hugging Face files it writes.
#include "core/io/safetensors.h"
#include "core/train/gpt2_file.h"
#include "core/train/text_trainer.h"

#include "tests/fixture_files.h"
#include "tests/train_fixtures.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <vector>

using namespace core::train;

namespace {

// vocab 11, 6 positions, n_embd 8, 2 heads, 2 layers.
Gpt2Config tiny_text_config() { return Gpt2Config{11, 6, 8, 2, 2}; }

// Weights of order one, LN gains and biases away from 1 and 0: every path of the gradient matters.
std::vector<double> random_params(const Gpt2Layout& lay, std::uint64_t seed) {
    std::vector<double> p = gpt2_initial_params<double>(lay, seed);
    Rng rng(seed + 1);
    for (double& v : p) v += 0.4 * rng.normal();
    return p;
}

struct Tokens {
    int B = 2, T = 6;
    std::vector<int> inputs{1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9};
    std::vector<int> targets{4, 1, 5, 9, 2, 6, 5, -1, 5, 8, 9, 7}; // one position not scored
};

double text_loss(const Gpt2Layout& lay, const std::vector<double>& p, const Tokens& t) {
    Gpt2Activations<double> a;
    return gpt2_forward(lay, p.data(), t.inputs.data(), t.targets.data(), t.B, t.T, a, *gpt2_ops::generic_f64()) / 11.0;
}

// GPT-2's forward in plain loops: LN, Conv1D (in, out), causal softmax, gelu_new, the tied head.
std::vector<double> reference_logits(const Gpt2Layout& lay, const std::vector<double>& p, const std::vector<int>& ids) {
    const Gpt2Config& c = lay.config;
    const int T = static_cast<int>(ids.size()), C = c.n_embd, hs = C / c.n_head;
    auto w = [&](int id) { return p.data() + lay.tensors[static_cast<std::size_t>(id)].offset; };
    using Rows = std::vector<std::vector<double>>;
    auto layer_norm = [&](const Rows& x, int wi, int bi) {
        Rows out = x;
        for (int i = 0; i < T; ++i) {
            double mean = 0, var = 0;
            for (int j = 0; j < C; ++j) mean += x[i][j] / C;
            for (int j = 0; j < C; ++j) var += (x[i][j] - mean) * (x[i][j] - mean) / C;
            for (int j = 0; j < C; ++j) out[i][j] = (x[i][j] - mean) / std::sqrt(var + 1e-5) * w(wi)[j] + w(bi)[j];
        }
        return out;
    };
    auto conv1d = [&](const Rows& x, int wi, int bi, int in, int outw) {
        Rows out(static_cast<std::size_t>(T), std::vector<double>(static_cast<std::size_t>(outw)));
        for (int i = 0; i < T; ++i)
            for (int o = 0; o < outw; ++o) {
                double s = w(bi)[o];
                for (int k = 0; k < in; ++k) s += x[i][k] * w(wi)[k * outw + o];
                out[i][o] = s;
            }
        return out;
    };
    Rows x(static_cast<std::size_t>(T), std::vector<double>(static_cast<std::size_t>(C)));
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < C; ++j) x[i][j] = w(lay.wte)[ids[i] * C + j] + w(lay.wpe)[i * C + j];
    for (const Gpt2Layout::Block& b : lay.blocks) {
        const Rows qkv = conv1d(layer_norm(x, b.ln_1_w, b.ln_1_b), b.c_attn_w, b.c_attn_b, C, 3 * C);
        Rows y(static_cast<std::size_t>(T), std::vector<double>(static_cast<std::size_t>(C), 0.0));
        for (int h = 0; h < c.n_head; ++h)
            for (int i = 0; i < T; ++i) {
                std::vector<double> s(static_cast<std::size_t>(i + 1));
                double top = -1e300, sum = 0;
                for (int j = 0; j <= i; ++j) {
                    double d = 0;
                    for (int k = 0; k < hs; ++k) d += qkv[i][h * hs + k] * qkv[j][C + h * hs + k];
                    s[j] = d / std::sqrt(static_cast<double>(hs));
                    top = std::max(top, s[j]);
                }
                for (double& v : s) sum += v = std::exp(v - top);
                for (int j = 0; j <= i; ++j)
                    for (int k = 0; k < hs; ++k) y[i][h * hs + k] += s[j] / sum * qkv[j][2 * C + h * hs + k];
            }
        const Rows proj = conv1d(y, b.attn_proj_w, b.attn_proj_b, C, C);
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < C; ++j) x[i][j] += proj[i][j];
        Rows hidden = conv1d(layer_norm(x, b.ln_2_w, b.ln_2_b), b.c_fc_w, b.c_fc_b, C, 4 * C);
        for (auto& row : hidden)
            for (double& v : row) v = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        const Rows out = conv1d(hidden, b.mlp_proj_w, b.mlp_proj_b, 4 * C, C);
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < C; ++j) x[i][j] += out[i][j];
    }
    const Rows f = layer_norm(x, lay.ln_f_w, lay.ln_f_b);
    std::vector<double> logits;
    for (int i = 0; i < T; ++i)
        for (int v = 0; v < c.vocab; ++v) {
            double s = 0;
            for (int j = 0; j < C; ++j) s += f[i][j] * w(lay.wte)[v * C + j];
            logits.push_back(s);
        }
    return logits;
}

std::vector<float> to_float(const std::vector<double>& p) { return {p.begin(), p.end()}; }

// English with repeats, a few kB: enough for a BPE and a run that learns within a second.
std::string small_corpus() {
    const char* lines[] = {"The cat sat on the mat, and the dog sat by the door.\n", "It is a truth universally acknowledged.\n",
                           "She walked to the village and back again before dinner.\n", "\"My dear,\" said he, \"have you heard?\"\n"};
    std::string text;
    for (int i = 0; i < 120; ++i) text += lines[(i * 7 + i / 3) % 4];
    return text;
}

} // namespace

TEST_CASE("GPT-2 training: the backward pass matches finite differences of the loss (float64)") {
    const Gpt2Layout lay(tiny_text_config());
    std::vector<double> p = random_params(lay, 5);
    const Tokens t;
    Gpt2Activations<double> a;
    gpt2_forward(lay, p.data(), t.inputs.data(), t.targets.data(), t.B, t.T, a, *gpt2_ops::generic_f64());
    std::vector<double> grad(lay.total, 0.0);
    gpt2_backward(lay, p.data(), grad.data(), t.inputs.data(), t.targets.data(), a, 1.0 / 11.0, *gpt2_ops::generic_f64());
    const double eps = 1e-5;
    for (const Gpt2Tensor& s : lay.tensors) {
        double diff2 = 0, num2 = 0, ana2 = 0;
        for (std::size_t i = s.offset; i < s.offset + s.size; ++i) {
            const double keep = p[i];
            p[i] = keep + eps;
            const double up = text_loss(lay, p, t);
            p[i] = keep - eps;
            const double down = text_loss(lay, p, t);
            p[i] = keep;
            const double numeric = (up - down) / (2 * eps);
            diff2 += (numeric - grad[i]) * (numeric - grad[i]);
            num2 += numeric * numeric;
            ana2 += grad[i] * grad[i];
        }
        const std::string name = s.name;
        CAPTURE(name);
        CHECK(std::sqrt(ana2) > 1e-6); // every tensor matters to the loss
        CHECK(std::sqrt(diff2) / (std::sqrt(num2) + std::sqrt(ana2)) <= 1e-7);
    }
}

TEST_CASE("GPT-2 training: the forward pass is GPT-2's, and the float32 builds agree with float64") {
    const Gpt2Layout lay(tiny_text_config());
    const std::vector<double> p = random_params(lay, 9);
    const Tokens t;
    const std::vector<int> first(t.inputs.begin(), t.inputs.begin() + t.T);
    const std::vector<double> want = reference_logits(lay, p, first);
    Gpt2Activations<double> a;
    gpt2_forward(lay, p.data(), first.data(), nullptr, 1, t.T, a, *gpt2_ops::generic_f64());
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(a.logits[i] == doctest::Approx(want[i]).epsilon(1e-12));

    // float32: every build this CPU runs, logits and gradients against float64
    std::vector<double> grad64(lay.total, 0.0);
    gpt2_forward(lay, p.data(), t.inputs.data(), t.targets.data(), t.B, t.T, a, *gpt2_ops::generic_f64());
    gpt2_backward(lay, p.data(), grad64.data(), t.inputs.data(), t.targets.data(), a, 1.0 / 11.0, *gpt2_ops::generic_f64());
    std::vector<const gpt2_ops::Set<float>*> builds{gpt2_ops::generic_f32(), &gpt2_ops::best_f32()};
    const std::vector<float> pf = to_float(p);
    for (const gpt2_ops::Set<float>* ops : builds) {
        const std::string build = ops->name;
        CAPTURE(build);
        Gpt2Activations<float> af;
        gpt2_forward(lay, pf.data(), first.data(), nullptr, 1, t.T, af, *ops);
        double worst = 0;
        for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(af.logits[i] - want[i]) / (1 + std::abs(want[i])));
        CHECK(worst < 1e-4);
        std::vector<float> gf(lay.total, 0.0f);
        gpt2_forward(lay, pf.data(), t.inputs.data(), t.targets.data(), t.B, t.T, af, *ops);
        gpt2_backward(lay, pf.data(), gf.data(), t.inputs.data(), t.targets.data(), af, 1.0f / 11.0f, *ops);
        double diff2 = 0, norm2 = 0;
        for (std::size_t i = 0; i < lay.total; ++i) {
            diff2 += (gf[i] - grad64[i]) * (gf[i] - grad64[i]);
            norm2 += grad64[i] * grad64[i];
        }
        CHECK(std::sqrt(diff2 / norm2) < 1e-4);
    }
}

TEST_CASE("GPT-2 training: a short run on text lowers the held-out loss below the unigram baseline") {
    TextTrainConfig c = train_fixtures::short_text_run(Gpt2Config{0, 16, 32, 2, 2}, 60, 60, 5, 8);
    c.lr = 1e-2;
    c.held_out = 0.1;
    TextTrainer trainer(c, make_text_corpus(small_corpus(), c.merges, c.held_out));
    const TextEvaluation before = trainer.evaluate();
    for (int i = 0; i < c.steps; ++i) trainer.step();
    const TextEvaluation after = trainer.evaluate();
    CAPTURE(before.loss);
    CAPTURE(after.loss);
    CAPTURE(after.unigram_loss);
    CHECK(before.loss > after.unigram_loss); // an untrained model is no better than counting
    CHECK(after.loss < 0.6 * after.unigram_loss);
    CHECK(after.bits_per_byte < after.unigram_bits_per_byte);
    CHECK(after.text_heads.size() == 4);
}

TEST_CASE("GPT-2 training: a seed gives the same parameters on every run, however the cores shared the chunks") {
    // The batch is cut into the same chunks whoever runs them; their gradients are summed in chunk order.
    const TextTrainConfig c = train_fixtures::short_text_run(Gpt2Config{0, 8, 16, 2, 1}, 20, 3, 1, 12);
    Buffer<float> runs[2];
    for (int k = 0; k < 2; ++k) {
        TextTrainer trainer(c, make_text_corpus(small_corpus(), c.merges, 0.1));
        for (int i = 0; i < c.steps; ++i) trainer.step();
        runs[k] = trainer.params();
    }
    CHECK(runs[0] == runs[1]);
}

TEST_CASE("GPT-2 training: the model directory has GPT-2's names, shapes and dtypes, and reads back") {
    const Gpt2Config cfg{11, 6, 8, 2, 2};
    const Gpt2Layout lay(cfg);
    const Gpt2Saved saved{cfg, to_float(random_params(lay, 3)), 10};
    const std::string dir = fixtures::temp_dir() + "/model";
    save_gpt2_dir(dir, saved, Bpe::learn("ab ab ab", 0).tokenizer_json());

    const std::string bytes = core::io::read_file_bytes(dir + "/model.safetensors", 1u << 24);
    const core::io::SafetensorsHeader h = core::io::parse_safetensors_header(bytes.data(), bytes.size(), dir + "/model.safetensors");
    CHECK(h.metadata.at("format") == "pt");
    std::map<std::string, std::vector<std::int64_t>> shapes;
    for (const core::io::SafetensorsEntry& e : h.entries) {
        const std::string name = e.name;
        CAPTURE(name);
        CHECK(e.dtype == core::io::DType::f32);
        shapes[e.name] = e.shape;
    }
    std::map<std::string, std::vector<std::int64_t>> want = {
        {"wte.weight", {11, 8}}, {"wpe.weight", {6, 8}}, {"ln_f.weight", {8}}, {"ln_f.bias", {8}}};
    const std::map<std::string, std::vector<std::int64_t>> layer = {
        {"ln_1.weight", {8}},          {"ln_1.bias", {8}},          {"attn.c_attn.weight", {8, 24}}, {"attn.c_attn.bias", {24}},
        {"attn.c_proj.weight", {8, 8}}, {"attn.c_proj.bias", {8}},  {"ln_2.weight", {8}},            {"ln_2.bias", {8}},
        {"mlp.c_fc.weight", {8, 32}},   {"mlp.c_fc.bias", {32}},    {"mlp.c_proj.weight", {32, 8}},  {"mlp.c_proj.bias", {8}}};
    for (const std::string l : {"0", "1"})
        for (const auto& [part, shape] : layer) want["h." + l + "." + part] = shape;
    CHECK(shapes == want); // no lm_head.weight: tied to wte

    const nlohmann::json config = nlohmann::json::parse(core::io::read_file_bytes(dir + "/config.json", 1u << 20));
    CHECK(config["architectures"] == nlohmann::json::array({"GPT2LMHeadModel"}));
    CHECK(config["model_type"] == "gpt2");
    CHECK(config["n_embd"] == 8);
    CHECK(config["n_layer"] == 2);
    CHECK(config["n_head"] == 2);
    CHECK(config["n_positions"] == 6);
    CHECK(config["n_ctx"] == 6);
    CHECK(config["vocab_size"] == 11);
    CHECK(config["layer_norm_epsilon"] == 1e-5);
    CHECK(config["activation_function"] == "gelu_new");
    CHECK(config["bos_token_id"] == 10);
    CHECK(config["eos_token_id"] == 10);
    CHECK(config["tie_word_embeddings"] == true);

    const Gpt2Saved back = load_gpt2_dir(dir);
    CHECK(back.config == cfg);
    CHECK(back.eos_id == 10);
    CHECK(back.params == saved.params);
}

TEST_CASE("GPT-2 training: a model directory with a wrong tensor is refused, naming the file and the tensor") {
    const Gpt2Config cfg{11, 6, 8, 2, 1};
    const Gpt2Layout lay(cfg);
    const std::string dir = fixtures::temp_dir() + "/model";
    save_gpt2_dir(dir, Gpt2Saved{cfg, to_float(random_params(lay, 3)), 10}, "{}");
    core::io::TensorFile f = core::io::read_safetensors(dir + "/model.safetensors");
    f.tensors["h.0.attn.c_attn.weight"].shape = {24, 8}; // (out, in): Linear's layout, not Conv1D's
    core::io::write_safetensors(dir + "/model.safetensors", f);
    CHECK_THROWS_WITH_AS(load_gpt2_dir(dir), doctest::Contains("model.safetensors: tensor h.0.attn.c_attn.weight has shape (24, 8)"),
                         core::io::FileError);
    f.tensors["h.0.attn.c_attn.weight"].shape = {8, 24};
    f.tensors.erase("ln_f.bias");
    core::io::write_safetensors(dir + "/model.safetensors", f);
    CHECK_THROWS_WITH_AS(load_gpt2_dir(dir), doctest::Contains("is missing"), core::io::FileError);
}

TEST_CASE("GPT-2 training: a repeated-passage window is a passage of the corpus of T/8 … T/2 tokens, repeated to fill the window") {
    std::vector<int> ids(1000);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i); // each id names its place
    const int T = 64;
    std::vector<int> w(T + 1);
    Rng plain(7), repeated(7);
    for (int k = 0; k < 50; ++k) {
        draw_window(plain, ids, T, {}, w.data());
        for (int i = 1; i <= T; ++i) REQUIRE(w[static_cast<std::size_t>(i)] == w[0] + i);
        draw_window(repeated, ids, T, {1.0, 0.0}, w.data());
        int r = 1; // the first place where the text jumps back
        while (r <= T && w[static_cast<std::size_t>(r)] == w[0] + r) ++r;
        CAPTURE(r);
        REQUIRE(r >= T / 8);
        REQUIRE(r <= T / 2);
        for (int i = r; i <= T; ++i) REQUIRE(w[static_cast<std::size_t>(i)] == w[0] + i % r);
    }
    int repeats = 0;
    Rng mixed(3);
    for (int k = 0; k < 400; ++k) {
        draw_window(mixed, ids, T, {0.25, 0.0}, w.data());
        repeats += w[static_cast<std::size_t>(T)] != w[0] + T;
    }
    CHECK(repeats > 70);
    CHECK(repeats < 130);
}

TEST_CASE("GPT-2 training: a mirrored window is a passage of T/2 + 1 tokens of the corpus followed by itself backwards") {
    std::vector<int> ids(1000);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i); // each id names its place
    for (int T : {64, 9}) {
        CAPTURE(T);
        std::vector<int> w(static_cast<std::size_t>(T) + 1);
        Rng mirrored(11);
        for (int k = 0; k < 50; ++k) {
            draw_window(mirrored, ids, T, {0.0, 1.0}, w.data());
            const int half = T / 2;
            for (int i = 0; i <= half; ++i) REQUIRE(w[static_cast<std::size_t>(i)] == w[0] + i);
            // after the turn: the passage backwards, every token once more, the turning token once
            for (int i = half + 1; i <= T; ++i) REQUIRE(w[static_cast<std::size_t>(i)] == w[0] + std::max(0, 2 * half - i));
        }
    }
    // a mix of the three kinds, in about the shares asked for
    const int T = 64;
    std::vector<int> w(T + 1);
    int plain = 0, repeats = 0, mirrors = 0;
    Rng mixed(5);
    for (int k = 0; k < 600; ++k) {
        draw_window(mixed, ids, T, {0.25, 0.5}, w.data());
        if (w[T] == w[0] + T) ++plain;
        else if (w[T / 2 + 1] == w[0] + T / 2 - 1) ++mirrors;
        else ++repeats;
    }
    CHECK(plain > 110);
    CHECK(plain < 190);
    CHECK(repeats > 110);
    CHECK(repeats < 190);
    CHECK(mirrors > 250);
    CHECK(mirrors < 350);
}
