// Lessons without a window: the expression language, Markdown, the loader's FILE:LINE messages,
// the step engine, progress on disk and the command-line modes.
#include "app/cli/cli.h"
#include "cli_run.h"
#include "core/learn/lesson_load.h"
#include "core/learn/session.h"
#include "core/presets.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <cstdlib>

using namespace core::learn;

namespace {

Value eval(const std::string& text, const core::Scenario& s = core::preset_three_tokens()) {
    return Expr::parse(text).evaluate(s, core::compute(s));
}

// Inside the test process's own state folder, which the suite's main removes.
std::string lesson_dir() {
    const std::string dir = std::string(std::getenv("XDG_STATE_HOME")) + "/lesson-files";
    std::filesystem::create_directories(dir);
    return dir;
}

// The message loading `text` as DIR/bad.toml gives ("" when it loads).
std::string load_error(const std::string& text) {
    const std::string path = lesson_dir() + "/bad.toml";
    try {
        parse_lesson(text, path);
        return "";
    } catch (const LessonError& e) {
        const std::string what = e.what();
        REQUIRE(what.rfind(path + ":", 0) == 0);
        return what.substr(lesson_dir().size() + 1);
    }
}

const char* const header = "title = \"t\"\npreset = \"it_sentence\"\n";

} // namespace

TEST_CASE("lesson expressions: the worked example's numbers from the article") {
    CHECK(eval("score(\"sat\", \"sat\")").number == 6.0);
    CHECK(eval("scores[3, 1]").number == 4.0);
    CHECK(eval("scaled[\"sat\", \"sat\"]").number == doctest::Approx(4.243).epsilon(1e-3));
    CHECK(eval("A[\"sat\", \"the\"]").number == doctest::Approx(0.187).epsilon(2e-3));
    CHECK(eval("weight(\"sat\", \"cat\")").number == doctest::Approx(0.045).epsilon(1e-2));
    CHECK(eval("argmax(A[\"sat\"])").token == "sat");
    CHECK(eval("argmin(A[\"sat\"])").token == "cat");
    CHECK(eval("argmax(A[:, \"the\"])").token == "the"); // column: the query that looks at "the" most (0.446)
    CHECK(eval("Z[\"sat\", 1]").number == doctest::Approx(0.955).epsilon(1e-3));
    CHECK(eval("argmax(Q[\"sat\"])").number == 1.0); // (2, 2): the first of equals, a dimension index
    CHECK(eval("sum(A[\"cat\"])").number == doctest::Approx(1.0));
    CHECK(eval("norm(Q[\"sat\"])").number == doctest::Approx(std::sqrt(8.0)));
    CHECK(eval("spread(scores[\"sat\"])").number == 4.0);
    CHECK(eval("n * n + d_k - heads").number == 10.0);
    CHECK(eval("cache_rows(3)").number == 1.0);
    CHECK(eval("nocache_rows(3)").number == 3.0);
    CHECK(eval("argmax(A[\"sat\"]) == \"sat\" and not (max(A[2]) < 0.5)").boolean);
    CHECK(eval("-2 * 3 + 8 / 4 >= -4").boolean);
    core::Scenario masked = core::preset_three_tokens();
    masked.causal = true;
    CHECK(eval("weight(\"cat\", \"the\")", masked).number == doctest::Approx(0.5));
    CHECK(eval("max(scaled[\"the\"])", masked).number == doctest::Approx(std::sqrt(2.0))); // −∞ entries skipped
}

TEST_CASE("lesson expressions: mistakes are named with their column") {
    auto parse_error = [](const std::string& text) -> std::pair<std::string, int> {
        try {
            Expr::parse(text);
        } catch (const ExprError& e) {
            return {e.what(), e.column};
        }
        return {"", 0};
    };
    CHECK(parse_error("argmx(A)") == std::pair<std::string, int>{"unknown function \"argmx\"", 1});
    CHECK(parse_error("max(A[\"it\"]").second == 12);
    CHECK(parse_error("B[1]").first.find("unknown name \"B\"") == 0);
    CHECK(parse_error("max(A, Q)").first == "max takes 1 argument, not 2");
    CHECK(parse_error("A[\"it\"").first == "expected ']', found the end");
    CHECK(parse_error("1 # 2").second == 3);
    CHECK(parse_error(std::string(100000, '(') + "1").first == "nested more than 64 deep");
    CHECK(parse_error(std::string(100000, '-') + "1").first == "nested more than 64 deep");
    auto eval_error = [](const std::string& text) {
        try {
            eval(text);
        } catch (const ExprError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(eval_error("A[\"dog\"]").find("no token \"dog\" in the scenario (its tokens: the, cat, sat)") == 0);
    CHECK(eval_error("A[4]") == "index 4 is out of range: give 1 to 3");
    CHECK(eval_error("A@2") == "head 2 does not exist (the scenario has 1)");
    CHECK(eval_error("Q[1, \"cat\"]").find("the columns of Q are dimensions") == 0);
    CHECK(eval_error("A[\"sat\"] + 1").find("this names 3 numbers") == 0);
    CHECK(eval_error("max(A) and true").find("unknown name \"true\"") == 0);
    CHECK(eval_error("cache_rows(4)") == "decoding step 4 is out of range: give 1 to 3");
}

TEST_CASE("lesson expressions: read out as English, and the places they read") {
    auto says = [](const std::string& text) { return Expr::parse(text).describe(); };
    CHECK(says("argmax(A[\"it\"]) == \"ate\"") == "the row of “it” in A has its largest weight on “ate”");
    CHECK(says("spread(A[\"it\"]) < 0.01") == "the gap between the largest and smallest weight in the row of “it” in A is below 0.01");
    CHECK(says("max(A[\"it\"]) > 0.95") == "the largest weight in the row of “it” in A is above 0.95");
    CHECK(says("argmin(scores@2[3]) != \"cat\"") == "row 3 in scores of head 2 does not have its smallest score on “cat”");
    CHECK(says("weight(\"sat\", \"cat\") >= 0.5 and A[\"sat\", \"the\"] <= 0.2") ==
          "the weight “sat” gives “cat” is at least 0.5, and the weight “sat” gives “the” is at most 0.2");
    CHECK(says("norm(Q[\"sat\"]) * 2 == n - 1") == "the length of the row of “sat” in Q times 2 is the number of tokens minus 1");
    CHECK(says("cache_rows(5)") == "the new rows of K at decoding step 5 with a KV cache");
    CHECK(says("not (sum(A[:, \"the\"]) < 1)") == "it is not so that the sum of the column of “the” in A is below 1");
    CHECK(says("score(\"it\", \"cat\")") == "the score of “it” against “cat”");

    const core::Scenario s = core::preset_three_tokens();
    const core::Result r = core::compute(s);
    const std::vector<MatrixPlace> read = Expr::parse("argmax(A[\"cat\"]) == \"sat\" or weight(\"the\", \"sat\") > Z[3, 1]").places_read(s, r);
    REQUIRE(read.size() == 3);
    CHECK((read[0].matrix == "A" && read[0].row == 1 && read[0].col == -1));
    CHECK((read[1].matrix == "A" && read[1].row == 0));
    CHECK((read[2].matrix == "Z" && read[2].row == 2 && read[2].col == 0));
    CHECK(Expr::parse("cache_rows(2) + 1").reads_decoder());
    CHECK_FALSE(Expr::parse("n * n").reads_decoder());
    CHECK(Expr::parse("n * n").places_read(s, r).empty());
}

TEST_CASE("lesson text: Markdown with bold, lists and inline math as Unicode") {
    const std::vector<Block> b = parse_markdown("Divide by $\\sqrt{d_k}$, **not** d_k.\n\n- one\n- $QK^\\top$ two\n\n1. first\n2. second\n");
    REQUIRE(b.size() == 5);
    CHECK(b[0].kind == Block::Kind::paragraph);
    CHECK(plain_text(b) == "Divide by √d_k, not d_k.\n• one\n• QKᵀ two\n1. first\n2. second\n");
    CHECK(b[0].spans[1].math);
    CHECK(b[0].spans[3].bold);
    CHECK(b[0].spans[3].text == "not");
    CHECK(b[4].kind == Block::Kind::numbered);
    CHECK(b[4].number == 2);
    CHECK(tex_to_unicode("\\operatorname{softmax}(QK^\\top / \\sqrt{d})\\, V") == "softmax(QKᵀ / √d) V");
    CHECK(tex_to_unicode("q \\cdot k \\approx \\infty \\leq \\le") == "q · k ≈ ∞ ≤ ≤");
}

TEST_CASE("lesson files: each mistake is reported as FILE:LINE: what") {
    const std::string h = header; // lines 1-2
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\n") == "");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"unclosed\n") .rfind("bad.toml:5: invalid TOML", 0) == 0);
    CHECK(load_error(h + "colour = 3\n[[step]]\ntitle = \"a\"\ntext = \"x\"\n").rfind("bad.toml:3: unknown key \"colour\"", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\n\ntxet = \"x\"\n").rfind("bad.toml:6: unknown key in a step \"txet\"", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\nkind = \"quiz\"\n").rfind("bad.toml:5: unknown kind \"quiz\"", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { select = \"it\", zoom = 2 }\n").rfind("bad.toml:6: unknown action \"zoom\"", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { open = [\"heatmap\", \"map\"] }\n").rfind("bad.toml:6: unknown panel \"map\"", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { select = \"dog\" }\n") == "bad.toml:6: no token \"dog\" to select");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { highlight = 'max(A)' }\n").rfind("bad.toml:6: highlight `max(A)` must name", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { file = \"missing.json\" }\n").rfind("bad.toml:6: scenario file: ", 0) == 0);
    CHECK(load_error("title = \"t\"\nfile = \"nowhere.json\"\n[[step]]\ntitle = \"a\"\ntext = \"x\"\n").rfind("bad.toml:2: scenario file: ", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { preset = \"cats\" }\n").rfind("bad.toml:6: unknown preset \"cats\"", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { rule = \"cosine\" }\n") == "bad.toml:6: \"rule\" must be \"softmax\", \"linear\" or \"delta\"");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { rule = \"delta\", beta = 1.5 }\n") == "bad.toml:6: \"beta\" must be a number from 0 to 1");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { decay = \"slow\" }\n") == "bad.toml:6: \"decay\" must be a number from 0 to 1");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { window = -1 }\n") == "bad.toml:6: \"window\" must be 0 (off) or a width from 1");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\n[[step]]\ntitle = \"b\"\nkind = \"predict\"\nquestion = \"?\"\nwhy = \"w\"\n\nanswer = 'argmax(A[\"it\"]'\n")
              == "bad.toml:12: answer `argmax(A[\"it\"]`: expected ')', found the end (column 15)");
    CHECK(load_error(h + "[[step]]\ntitle = \"b\"\nkind = \"predict\"\nquestion = \"?\"\nwhy = \"w\"\nanswer = 'argmax(A[\"dog\"])'\n")
              .rfind("bad.toml:8: in `argmax(A[\"dog\"])`: no token \"dog\" in the scenario", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"b\"\nkind = \"predict\"\nquestion = \"?\"\nwhy = \"w\"\nanswer = 'argmax(A[\"it\"])'\nchoices = [\"the\", \"ate\"]\n")
              == "bad.toml:9: the answer on this step's scenario is \"cat\", which is not among the choices");
    CHECK(load_error(h + "[[step]]\ntitle = \"b\"\nkind = \"predict\"\nquestion = \"?\"\nwhy = \"w\"\nanswer = 'max(A[\"it\"])'\n")
              .rfind("bad.toml:8: answer `max(A[\"it\"])` is a number: give \"choices\"", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"c\"\nkind = \"challenge\"\ngoal = 'max(A[\"it\"]) > 0.1'\n")
              .rfind("bad.toml:6: goal `max(A[\"it\"]) > 0.1` already holds", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"c\"\nkind = \"challenge\"\ngoal = 'max(A[\"it\"])'\n").rfind("bad.toml:6: goal `max(A[\"it\"])` must be a comparison", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"c\"\nkind = \"challenge\"\ngoal = 'argmax(A[\"it\"]) == \"ate\"'\nsolution = [1, 0]\nactions = { pin = \"it\" }\n")
              == "bad.toml:7: the solution does not meet the goal `argmax(A[\"it\"]) == \"ate\"`");
    CHECK(load_error(h + "[[step]]\ntitle = \"c\"\nkind = \"challenge\"\ngoal = 'argmax(A[\"it\"]) == \"ate\"'\nsolution = [-0.4, 1.8]\n")
              .rfind("bad.toml:7: a solution moves the pinned query", 0) == 0);
    CHECK(load_error(h + "[[step]]\nid = \"a\"\ntitle = \"a\"\ntext = \"x\"\n[[step]]\nid = \"a\"\ntitle = \"b\"\ntext = \"y\"\n") == "bad.toml:8: two steps have the id \"a\"");
    CHECK(load_error(h) == "bad.toml:1: a lesson needs at least one [[step]]");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { train = \"yes\" }\n") == "bad.toml:6: \"train\" must be true or false");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { model = \"austen-gpt2\" }\n").rfind("bad.toml:6: give model and model_text together", 0) == 0);
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { model = \"no-such-model\", model_text = \"hi\" }\n")
              .rfind("bad.toml:6: model \"no-such-model\" is neither a model attnviz ships nor a directory with config.json", 0) == 0);
    const std::string m = h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\n[step.actions]\nmodel = \"austen-gpt2\"\nmodel_text = \"Emma had a friend\"\n";
    CHECK(load_error(m + "patch = { corrupt = \"Emma had a house\", answer = \" friend\", vs = \" house\" }\n") == "");
    CHECK(load_error(m + "patch = { corrupt = \"Emma had a house\", answer = \" garden\", vs = \" house\" }\n")
          == "bad.toml:9: patch answer \" garden\" is 3 tokens of the model's vocabulary, not one");
    CHECK(load_error(m + "patch = { corrupt = \"x\", answer = \" house\", vs = \" house\" }\n").rfind("bad.toml:9: patch answer and vs are the same token", 0) == 0);
    CHECK(load_error(m + "patch = { corrupt = \"x\", answer = \" house\" }\n").rfind("bad.toml:9: ", 0) == 0);
    CHECK(load_error(m + "patch = { corrupt = \"x\", answer = \" house\", vs = \" friend\", by = \"position\" }\n").rfind("bad.toml:9: unknown patch key \"by\"", 0) == 0);
    CHECK(load_error(m + "patch = \"x\"\n").rfind("bad.toml:9: \"patch\" must be a table", 0) == 0);
    CHECK(load_error(m + "patch = { corrupt = \"x\", answer = \" house\", vs = \" friend\", show = [\"heads\"] }\n")
          == "bad.toml:9: patch shows \"heads\": give recovery, attribution, lens, composition or qk");
    CHECK(load_error(h + "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { patch = { corrupt = \"x\", answer = \"a\", vs = \"b\" } }\n")
              .rfind("bad.toml:6: patch needs model and model_text", 0) == 0);
}

TEST_CASE("lesson actions: train asks for the Train panel's run on its step, and when a later step is opened directly — model names a model directory") {
    const std::string dir = lesson_dir();
    std::filesystem::create_directories(dir + "/m");
    std::ofstream(dir + "/m/config.json") << "{}"; // read when the grid runs, not when the lesson loads
    std::ofstream(dir + "/actions.toml") << "title = \"t\"\npreset = \"it_sentence\"\n"
                                            "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { train = true, model = \"m\", model_text = \"hi there\" }\n"
                                            "[[step]]\ntitle = \"b\"\ntext = \"y\"\n";
    const Lesson l = load_lesson_file(dir + "/actions.toml");
    CHECK(opening_state(l, 0).train);
    CHECK(opening_state(l, 1).train); // resumed there, the run step 1 started is needed again
    StepState followed = opening_state(l, 0);
    CHECK_FALSE(apply(l.steps[1].actions, followed).size());
    CHECK_FALSE(followed.train); // followed step by step, the run is asked for once
    CHECK(l.steps[0].actions.model == dir + "/m");
    CHECK(l.steps[0].actions.model_text == "hi there");
    CHECK(l.steps[1].actions.model.empty());
}

TEST_CASE("lesson files: a scenario file is read relative to the lesson") {
    const std::string dir = lesson_dir();
    {
        std::ofstream(dir + "/two.json") << R"({"tokens": ["x", "y"], "X": [[1, 0], [0, 1]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]})";
        std::ofstream(dir + "/file.toml") << "title = \"t\"\n[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { file = \"two.json\", select = \"y\" }\n";
    }
    const Lesson l = load_lesson_file(dir + "/file.toml");
    const StepState st = opening_state(l, 0);
    CHECK(st.scenario.tokens == std::vector<std::string>{"x", "y"});
    CHECK(st.selected_row == 1);
    CHECK(l.id == "file");
}

TEST_CASE("built-in lessons: six, all valid, with their answers computed from the scenario") {
    const std::vector<Lesson> lessons = builtin_lessons();
    REQUIRE(lessons.size() == 6);
    // Each lesson's id and its counts of predict, challenge and question steps (-1: not checked).
    const char* kinds[] = {"predict", "challenge", "question"};
    const struct {
        const char* id;
        int counts[3];
    } expected[] = {{"worked-example", {-1, -1, -1}}, {"step-by-step", {-1, -1, -1}}, {"every-token", {5, 3, -1}},
                    {"heads-that-learn", {4, 4, 4}}, {"reading-a-circuit", {4, 2, 5}}, {"beyond-softmax", {4, 2, 5}}};
    for (std::size_t k = 0; k < lessons.size(); ++k) {
        CAPTURE(k);
        CHECK(lessons[k].id == expected[k].id);
        for (int c = 0; c < 3; ++c)
            if (expected[k].counts[c] >= 0) CHECK(lessons[k].count(kinds[c]) == expected[k].counts[c]);
    }
    for (const Lesson& l : lessons) {
        const Run r = run({"--lesson", l.id, "--check"});
        CHECK(r.code == 0);
        CHECK(r.err == "");
    }
    const nlohmann::json list = nlohmann::json::parse(run({"--lessons"}).out);
    REQUIRE(list.size() == 6);
    CHECK(list[2]["id"] == "every-token");
    CHECK(list[2]["steps"] == lessons[2].steps.size());

    const nlohmann::json worked = nlohmann::json::parse(run({"--lesson", "worked-example", "--answers"}).out);
    REQUIRE(worked.size() == 4);
    CHECK(worked[0]["id"] == "predict-score");
    CHECK(worked[0]["answer"] == 6.0);          // q_sat · k_sat = 2·2 + 2·1
    CHECK(worked[1]["answer"] == "sat");         // "cat" attends most to "sat" (0.673)
    CHECK(worked[2]["holds"] == false);
    CHECK(worked[2]["value"].get<double>() == doctest::Approx(0.045).epsilon(1e-2));
    CHECK(worked[3]["answer"].get<double>() == doctest::Approx(0.5)); // masked: "cat" splits 0.500 / 0.500
    const nlohmann::json it = nlohmann::json::parse(run({"--lesson", "every-token", "--answers"}).out);
    CHECK(it[0]["answer"] == "cat");
    CHECK(it[3]["answer"].get<double>() == doctest::Approx(1.0));  // "the" alone under the mask
    CHECK(it[4]["answer"].get<double>() == 1.0);                   // one new K row at step 5
    // The Train panel measures the fourth lesson's facts; outside the window they are unknown.
    const nlohmann::json heads = nlohmann::json::parse(run({"--lesson", "heads-that-learn", "--answers"}).out);
    REQUIRE(heads.size() == 8);
    CHECK(heads[0]["holds"].is_null());
    CHECK(heads[1]["answer"].is_null());
    CHECK(heads[5]["holds"] == false); // induction(1) on the worked example: no token repeats
    CHECK(heads[7]["id"] == "real-previous");
    CHECK(heads[7]["holds"].is_null()); // the head picked in the window
    // The fifth lesson's patch steps are measured on the bundled model; the heads picked, in the window.
    const nlohmann::json circuit = nlohmann::json::parse(run({"--lesson", "reading-a-circuit", "--answers"}).out);
    REQUIRE(circuit.size() == 6);
    CHECK(circuit[0]["id"] == "find-induction");
    CHECK(circuit[0]["holds"].is_null());
    CHECK(circuit[4]["goal"] == "picked_recovery >= best_recovery");
    CHECK(circuit[4]["holds"].is_null());
    const Lesson& fifth = lessons[4];
    const core::learn::Actions& a = fifth.steps[static_cast<size_t>(circuit[1]["step"].get<int>() - 1)].actions;
    REQUIRE(a.patch);
    const nlohmann::json patched = nlohmann::json::parse(
        run({"--patch", a.model, "--clean", a.model_text, "--corrupt", a.patch->corrupt, "--answer", a.patch->answer, "--vs", a.patch->vs}).out);
    double best = -1e9, best_layer = 0;
    for (size_t l = 0; l < patched["recovery"].size(); ++l)
        for (const nlohmann::json& x : patched["recovery"][l])
            if (x.get<double>() > best) std::tie(best, best_layer) = std::pair{x.get<double>(), static_cast<double>(l + 1)};
    CHECK(circuit[1]["id"] == "predict-recovery");
    CHECK(circuit[1]["answer"].get<double>() == doctest::Approx(best).epsilon(1e-9));
    CHECK(best_layer >= 3); // the copy is carried late
    CHECK(circuit[2]["answer"].get<double>() >= 3);
    CHECK(circuit[3]["id"] == "predict-lens");
    const nlohmann::json lens = nlohmann::json::parse(run({"--logit-lens", a.model, "--text", a.model_text + a.patch->answer, "--top", "1"}).out);
    int first = 0;
    for (size_t l = 0; l < lens["rank_next"].size() && !first; ++l)
        if (lens["rank_next"][l][lens["tokens"].size() - 2] == 1) first = static_cast<int>(l + 1);
    CHECK(circuit[3]["answer"] == first);
    // The reader: the best-recovering head past the first layer; the answer, the layer of the earlier
    // head with the largest K-composition into it.
    int rl = 1, rh = 0;
    for (int l = 1; l < static_cast<int>(patched["recovery"].size()); ++l)
        for (int h = 0; h < static_cast<int>(patched["recovery"][l].size()); ++h)
            if (patched["recovery"][l][h].get<double>() > patched["recovery"][rl][rh].get<double>()) rl = l, rh = h;
    const nlohmann::json k = nlohmann::json::parse(run({"--composition", a.model, "--kind", "k"}).out)["scores"];
    double top = -1;
    int top_layer = 0;
    for (int l = 0; l < rl; ++l)
        for (size_t h = 0; h < k[l].size(); ++h)
            if (k[l][h][rl][rh].get<double>() > top) top = k[l][h][rl][rh].get<double>(), top_layer = l + 1;
    CHECK(circuit[5]["id"] == "why-it-attends");
    CHECK(circuit[5]["answer"] == top_layer);
    // The sixth lesson's answers: the window, linear attention's row sum, the delta rule's erase and decay.
    const nlohmann::json beyond = nlohmann::json::parse(run({"--lesson", "beyond-softmax", "--answers"}).out);
    REQUIRE(beyond.size() == 6);
    CHECK(beyond[0]["answer"].get<double>() == doctest::Approx(0.0558).epsilon(1e-3));
    CHECK(beyond[1]["holds"] == false);
    CHECK(beyond[2]["answer"].get<double>() == doctest::Approx(6 * std::sqrt(2.0)).epsilon(1e-12)); // (4 + 2 + 6) / √2
    CHECK(beyond[3]["answer"] == "the");
    CHECK(beyond[4]["holds"] == false);
    CHECK(beyond[5]["answer"].get<double>() == doctest::Approx(-0.025).epsilon(1e-4));
}

TEST_CASE("lesson command line: bad lessons and flags exit 2 with one line") {
    const std::string path = lesson_dir() + "/cli.toml";
    std::ofstream(path) << header << "[[step]]\ntitle = \"a\"\ntext = \"x\"\nactions = { highlight = 'A[\"dog\"]' }\n";
    Run r = run({"--lesson", path, "--check"});
    CHECK(r.code == 2);
    CHECK(r.err.rfind("attnviz: " + path + ":6: highlight A[\"dog\"]: no token \"dog\"", 0) == 0);
    r = run({"--lesson", "no-such-lesson", "--check"});
    CHECK(r.code == 2);
    CHECK(r.err == "attnviz: no-such-lesson: no such lesson (built-in: worked-example, step-by-step, every-token, heads-that-learn, reading-a-circuit, beyond-softmax; or give a path to a .toml file)\n");
    r = run({"--lesson", "/nonexistent/x.toml", "--answers"});
    CHECK(r.err == "attnviz: /nonexistent/x.toml: cannot read the file\n");
    CHECK(run({"--check"}).err == "attnviz: --check needs --lesson ID|FILE (see attnviz --help)\n");
    CHECK(run({"--lesson", "every-token", "--dump"}).code == 2);
    CHECK(run({"--step", "3"}).err == "attnviz: --step goes with --lesson (see attnviz --help)\n");
    CHECK(run({"--lesson", "every-token", "--step", "0"}).code == 2);
    CHECK(run({"--lesson", "every-token", "--check", "--step", "2"}).code == 2);
}

TEST_CASE("lesson session: forward applies actions on the live state, back restores what a step opened on") {
    LessonProgress progress;
    Session s(find_lesson("every-token"), progress);
    StepState live = s.go(0, {});
    CHECK(live.scenario.tokens.size() == 7);
    CHECK(live.scenario.tokens[static_cast<size_t>(live.selected_row)] == "it");
    live.scenario.X(1, 0) = 3.0; // the learner edits "cat"
    const StepState second = s.go(1, live);
    CHECK(second.scenario.X(1, 0) == 3.0); // kept: the step has no preset
    StepState edited = second;
    edited.scenario.X(1, 0) = -1.0;
    const StepState back = s.go(0, edited);
    CHECK(back.scenario.X(1, 0) == doctest::Approx(2.0)); // step 1 loaded the preset
    CHECK(s.go(1, back).scenario.X(1, 0) == doctest::Approx(2.0)); // forward again: on from the live state
    CHECK(s.is_done(0));
    const StepState jumped = s.go(8, back); // not seen yet: the state the lesson reaches from its start
    CHECK(jumped.scenario.causal);
    CHECK(progress.current == 8);
}

TEST_CASE("lesson session: opening a step with nothing to go on from gives the state the lesson reaches there") {
    LessonProgress progress;
    Session s(find_lesson("every-token"), progress);
    const StepState second = s.open(1); // the step after the first, as --step 2 opens it on a fresh start
    CHECK(second.scenario.tokens.size() == 7);
    CHECK(second.scenario.tokens[static_cast<size_t>(second.selected_row)] == "it");
    CHECK(s.index() == 1);
    CHECK(progress.current == 1);
}

TEST_CASE("lesson session: a prediction locks next, is judged on the live scenario, and counts") {
    LessonProgress progress;
    Session s(find_lesson("every-token"), progress);
    StepState live = s.go(4, {});
    REQUIRE(s.step().id == "predict-winner");
    CHECK_FALSE(s.can_next());
    core::Result r = core::compute(live.scenario);
    const PredictionRecord rec = s.commit(Value::of_token("ate"), live.scenario, r);
    CHECK(rec == PredictionRecord{"ate", "cat", false});
    CHECK(s.can_next());
    CHECK(s.predictions_made() == 1);
    CHECK(s.commit(Value::of_token("cat"), live.scenario, r) == rec); // committed once
    REQUIRE(s.live_numbers(live.scenario, r));
    CHECK(s.live_numbers(live.scenario, r)->text().find("cat 0.423") != std::string::npos);

    live = s.go(5, live); // the sum: numbers choose the nearest choice
    live.scenario.heads[0].W_Q *= 3.0; // an edit before committing: the answer follows it (still 1)
    r = core::compute(live.scenario);
    CHECK(s.commit(Value::of(1.0), live.scenario, r).correct);
    live = s.go(6, live);
    r = core::compute(live.scenario);
    CHECK(s.live_answer(live.scenario, r)->number > 0.56); // × 3 and unscaled: sharper than the file's 0.556
    CHECK(s.commit(Value::of(0.56), live.scenario, r).correct);
    CHECK(s.predictions_made() == 3);
    CHECK(s.predictions_total() == 5);
}

TEST_CASE("lesson session: a challenge is done after its goal holds 0.5 s — hints — show me") {
    LessonProgress progress;
    Session s(find_lesson("every-token"), progress);
    StepState live = s.go(10, {});
    REQUIRE(s.step().id == "steer-ate");
    REQUIRE(live.scenario.pin);
    core::Result r = core::compute(live.scenario);
    s.tick(10.0, live.scenario, r);
    CHECK_FALSE(s.status().holds);
    CHECK(s.status().hints_shown == 0);
    s.tick(20.5, live.scenario, r);
    CHECK(s.status().hints_shown == 1); // after 30 s
    CHECK_FALSE(s.can_show_me());
    s.request_hint();
    CHECK(s.status().hints_shown == 2);
    REQUIRE(s.can_show_me());
    s.show_me(live.scenario);
    std::optional<core::QueryPin> pin;
    for (int k = 0; k < 100 && s.showing(); ++k) {
        pin = s.tick(1.0 / 60.0, live.scenario, r);
        REQUIRE(pin);
        live.scenario.pin = pin;
        r = core::compute(live.scenario);
    }
    CHECK(pin->q[0] == doctest::Approx(-0.4));
    CHECK(pin->q[1] == doctest::Approx(1.8));
    CHECK(s.status().holds);
    CHECK(s.is_done(10));
}

TEST_CASE("lesson session: the goal must hold half a second without a break") {
    LessonProgress progress;
    Session s(find_lesson("every-token"), progress);
    StepState live = s.go(11, {});
    REQUIRE(s.step().id == "steer-zero");
    const core::Result before = core::compute(live.scenario);
    live.scenario.pin->q.setZero();
    const core::Result zero = core::compute(live.scenario);
    s.tick(0.3, live.scenario, zero);
    CHECK(s.status().holds);
    s.tick(0.1, live.scenario, before); // let go for a frame: the clock starts again
    s.tick(0.3, live.scenario, zero);
    CHECK_FALSE(s.is_done(11));
    s.tick(0.25, live.scenario, zero);
    CHECK(s.is_done(11));
    CHECK(s.status().shown->number < 0.01);
}

TEST_CASE("lesson progress: written atomically, read back, a damaged file kept aside") {
    const std::string path = lesson_dir() + "/state/attnviz/progress.json";
    std::filesystem::remove_all(lesson_dir() + "/state");
    ProgressStore store(path);
    CHECK(store.load() == "");
    LessonProgress& p = store.lesson("every-token");
    p.current = 4;
    p.done = {"who-is-it", "predict-winner"};
    p.predictions["predict-winner"] = {"ate", "cat", false};
    REQUIRE(store.save() == "");
    ProgressStore again(path);
    CHECK(again.load() == "");
    CHECK(again.lesson("every-token") == p);
    std::ofstream(path) << "{\"lessons\": {\"x\": {\"current\": \"two\"}}}";
    ProgressStore damaged(path);
    const std::string why = damaged.load();
    CHECK(why.find("kept as " + path + ".bad") != std::string::npos);
    CHECK(std::filesystem::exists(path + ".bad"));
    CHECK(damaged.lessons().empty());
    setenv("XDG_STATE_HOME", "/somewhere", 1);
    CHECK(default_progress_path() == "/somewhere/attnviz/progress.json");
    unsetenv("XDG_STATE_HOME");
}

// A goal on a fact the lesson's panels have not measured yet says how to measure it, as a step still
// to take (drawn as guidance, not in red); a goal that cannot hold on the scenario is a fault.
TEST_CASE("lesson goals: a fact not measured yet is a step to take, a bad head number a fault") {
    const core::Scenario s = core::preset_three_tokens();
    const core::Result r = core::compute(s);
    const core::learn::Facts none;
    try {
        Expr::parse("picked_recovery >= 0.5").evaluate(s, r, &none);
        FAIL("an unmeasured fact evaluated");
    } catch (const core::learn::ExprError& e) {
        CHECK(e.awaiting);
        CHECK(std::string(e.what()).find("pick a head there") != std::string::npos);
    }
    const core::learn::Facts measured = {{"picked_recovery", 0.75}};
    CHECK(Expr::parse("picked_recovery >= 0.5").evaluate(s, r, &measured).boolean);
    try {
        Expr::parse("induction(9) > 0").evaluate(s, r, &none);
        FAIL("head 9 of 1 evaluated");
    } catch (const core::learn::ExprError& e) {
        CHECK_FALSE(e.awaiting);
    }
}
