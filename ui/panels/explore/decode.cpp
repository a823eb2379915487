// ui/panels/explore/decode.cpp — generating text one token at a time with a KV cache (the every-token article,
// "Generating text: never compute the same key twice"): step core::Decoder forward and back and
// watch K and V grow by one row per step, with the counters and the memory the cache costs.
#include "ui/panels/explore/decode.h"
#include "ui/grid.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cstdio>

namespace ui {

namespace {

constexpr float seconds_per_step = 0.5f; // Play: 2 steps a second, slow enough to read each one

const ImVec4 caution(1.0f, 0.75f, 0.35f, 1.0f);

void step(DecodeView& d) {
    d.last = d.decoder->step();
    ++d.steps;
}

// A fresh decoder on `s`, stepped to `steps` (or to the end, if there are fewer tokens now).
// Stepping back rebuilds too: a cache only grows.
void rebuild(DecodeView& d, const core::Scenario& s, int steps) {
    d.decoder.emplace(s);
    d.steps = 0;
    while (d.steps < steps && !d.decoder->done()) step(d);
}

std::string bytes(long long b) {
    char text[32];
    if (b < 1024) std::snprintf(text, sizeof text, "%lld B", b);
    else if (b < 1024 * 1024) std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(b) / 1024.0);
    else std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
    return text;
}

// "1 + 2 + 3" while short enough to read, then "1 + 2 + … + t".
std::string sum_of_steps(int t) {
    if (t == 0) return "0";
    if (t > 6) return "1 + 2 + … + " + std::to_string(t);
    std::string out = "1";
    for (int k = 2; k <= t; ++k) out += " + " + std::to_string(k);
    return out;
}

void controls(DecodeView& d, const core::Scenario& s, View& v) {
    const int n = s.n();
    ImGui::BeginDisabled(d.steps == 0);
    if (ImGui::Button("◀ Back")) {
        rebuild(d, s, d.steps - 1);
        d.playing = false;
    }
    ImGui::EndDisabled();
    remember(v, "decode_back");
    tip("One step back: the decoder is rebuilt and run to the step before (a cache only ever grows).");
    ImGui::SameLine();
    ImGui::BeginDisabled(d.decoder->done());
    if (ImGui::Button("Step ▶")) {
        step(d);
        d.playing = false;
    }
    ImGui::EndDisabled();
    remember(v, "decode_step");
    tip("Generate the next token: compute its key and value once, append them to the caches, attend over the caches.");
    ImGui::SameLine();
    if (ImGui::Button(d.playing ? "Pause###play" : "Play###play")) {
        if (!d.playing && d.decoder->done()) rebuild(d, s, 0);
        d.playing = !d.playing;
        d.timer = 0.0f;
    }
    remember(v, "decode_play");
    tip("Step automatically, two steps a second (from the start again when at the end).");
    ImGui::SameLine();
    if (ImGui::Button("Reset")) {
        rebuild(d, s, 0);
        d.playing = false;
    }
    remember(v, "decode_reset");
    tip("Empty the caches and start again from the first token.");
    ImGui::SameLine(0, em());
    if (d.steps == 0) ImGui::TextDisabled("step 0 of %d: the caches are empty", n);
    else ImGui::Text("step %d of %d: \"%s\"", d.steps, n, d.last.token.c_str());

    if (d.playing) {
        d.timer += ImGui::GetIO().DeltaTime;
        while (d.playing && d.timer >= seconds_per_step) {
            d.timer -= seconds_per_step;
            if (d.decoder->done()) d.playing = false;
            else step(d);
        }
    }
    if (d.playing) v.motion.wake_after(seconds_per_step - d.timer); // the next step's frame
}

// The two counters side by side, then the memory.
void counters(const DecodeView& d, const core::Scenario& s) {
    const core::Decoder& dec = *d.decoder;
    const int t = d.steps;
    if (ImGui::BeginTable("counters", 2, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchSame)) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("rows of K and V computed, with the cache");
        ImGui::TableNextColumn();
        ImGui::TextDisabled("without a cache (recompute the prefix)");
        ImGui::TableNextColumn();
        ImGui::Text("%lld  (one new row per step)", dec.kv_rows_with_cache());
        tip("Each step computes the new token's key and value once; the earlier ones are read from the cache.");
        ImGui::TableNextColumn();
        ImGui::Text("%s = %lld", sum_of_steps(t).c_str(), dec.kv_rows_without_cache());
        tip("Without a cache, step t recomputes K and V for all t tokens of the prefix: 1 + 2 + … + t = t(t+1)/2 rows.");
        ImGui::EndTable();
    }
    const long long per_head = dec.cache_bytes_per_head();
    const int heads = static_cast<int>(s.heads.size());
    ImGui::Text("Memory: %d row%s × (d_k + d_v = %d) × 8 bytes = %s per head", t, t == 1 ? "" : "s", s.d_k() + s.d_v(),
                bytes(per_head).c_str());
    if (heads > 1) {
        ImGui::SameLine();
        ImGui::Text("· × %d heads = %s", heads, bytes(per_head * heads).c_str());
    }
    tip("What the cache costs: it keeps every key and value row (doubles, 8 bytes each) for as long as the text is generated.");
}

// The decoder attends causally whatever the checkbox says; compare with the heatmap when it can.
void causal_note(const DecodeView& d, const core::Scenario& s, const core::Result& r, int head) {
    if (!s.causal) {
        ImGui::PushStyleColor(ImGuiCol_Text, caution);
        ImGui::TextWrapped("The decoder is always causal: token t sees only tokens 1 … t, the ones generated so far. "
                           "The causal mask is off, so the heatmap's rows differ; tick \"Causal mask\" to compare.");
        ImGui::PopStyleColor();
        return;
    }
    if (d.steps == 0) return;
    const int t = d.steps;
    const double difference = (d.last.weights[head] - r.heads[head].weights.row(t - 1).head(t).transpose()).cwiseAbs().maxCoeff();
    const bool same = difference <= 1e-12;
    ImGui::TextColored(same ? good_text_colour() : caution, "%s row %d of the causal heatmap (largest difference %.1e)",
                       same ? "✓ equal to" : "✗ not equal to", t, difference);
    tip("The decoder's weights for token t, from the cache, against row t of A computed all at once.");
}

void caches(const DecodeView& d, const core::Scenario& s, View& v, int head, float height) {
    const int t = d.steps;
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x * 2.0f) * 0.5f;
    const float label_w = std::min(token_label_width(s), 7.0f * em()) + 0.8f * em();
    const struct {
        const char* name;
        const core::Matrix& cache;
        const char* tooltip;
    } items[] = {
        {"K cache", d.decoder->k_cache(head), "Keys of tokens 1 … t, one row per token; the new row is outlined."},
        {"V cache", d.decoder->v_cache(head), "Values of tokens 1 … t, one row per token; the new row is outlined."},
    };
    bool first = true;
    for (const auto& item : items) {
        GridSpec g = value_grid(item.name, item.cache, t, ImVec2(half, height));
        g.row_header_w = label_w;
        g.highlight_row = t - 1;
        g.row_label = [&s](int r) { return s.tokens[r]; };
        const std::string title = std::string(item.name) + "  (" + std::to_string(t) + " × " + std::to_string(g.cols) + ")";
        if (!first) ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 2.0f);
        first = false;
        ImGui::BeginGroup();
        ImGui::TextUnformatted(title.c_str());
        tip(item.tooltip);
        if (t > 0) v.grids[item.name] = draw_grid(g);
        else ImGui::TextDisabled("empty");
        ImGui::EndGroup();
    }
}

} // namespace

void draw_decode_panel(const core::Scenario& s, const core::Result& r, View& v) {
    DecodeView& d = v.state<DecodeView>();
    // A changed scenario means a new decoder, at the same step when the tokens still reach it.
    if (!d.decoder || d.version != v.result_version) {
        rebuild(d, s, d.steps);
        d.version = v.result_version;
    }
    const int head = v.selected_head;
    controls(d, s, v);
    if (s.heads.size() > 1) {
        ImGui::SameLine(0, em());
        ImGui::TextDisabled("· head %d of %d", head + 1, static_cast<int>(s.heads.size()));
        tip("The caches and weights of the focused head (pick another in the Heads panel or the Weights panel).");
    }
    causal_note(d, s, r, head);
    if (v.lesson.secret.decoder) ImGui::TextDisabled("Rows of K and V computed: %s.", reveal_hint);
    else counters(d, s);

    ImGui::Spacing();
    const float avail_h = ImGui::GetContentRegionAvail().y;
    caches(d, s, v, head, std::max(5.0f * ImGui::GetFrameHeight(), avail_h * 0.5f));

    ImGui::Spacing();
    if (d.steps == 0) {
        ImGui::TextDisabled("Press Step: token 1's key and value become row 1 of the caches.");
        return;
    }
    const core::Vector& w = d.last.weights[head];
    ImGui::Text("\"%s\" attends to tokens 1 … %d", d.last.token.c_str(), d.steps);
    if (v.lesson.hides("A", d.steps - 1)) { // an open prediction's row
        ImGui::TextDisabled("%s", reveal_hint);
        return;
    }
    tip("Step t's query against the t cached keys, through softmax: one weight per token so far.");
    ImGui::BeginChild("bars", ImVec2(0, 0), false);
    const float name_w = std::min(token_label_width(s) + 0.6f * em(), 7.0f * em());
    weight_bars(
        d.steps, name_w, IM_COL32(150, 185, 230, 255), w.maxCoeff(), [&s](int j) { return s.tokens[j].c_str(); },
        [&w](int j) { return w[j]; }, [](int) { return false; });
    ImGui::EndChild();
}

} // namespace ui
