// ui/panels/model/attention.cpp — the attention viewer: opening a file, the worker that summarises its
// heads, and the grid of thumbnails (one head's map and the top keys: attention_map.cpp).
//
// [SECTION] Opening, the worker and closing
// [SECTION] Textures
// [SECTION] The open prompt and the header
// [SECTION] The grid of thumbnails
#include "ui/panels/model/attention.h"

#include "core/io/formats.h"
#include "core/colormap.h"
#include "ui/widgets.h"
#include "ui/panels/shared/zoom_map.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ui {

namespace {

constexpr int thumb_texels = 48;            // a thumbnail's side, fewer for models whose atlas would be too big
constexpr int max_atlas_texels = 8192;      // a texture side every OpenGL 3.3 driver takes

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Opening, the worker and closing
//-----------------------------------------------------------------------------

bool AttentionView::open(const std::string& path, const std::string& labels_path) {
    std::unique_ptr<core::io::AttentionFile> opened;
    std::vector<std::string> names;
    try {
        opened = core::io::AttentionFile::open(path);
        names = labels_path.empty() ? opened->labels() : core::io::read_token_labels(labels_path);
    } catch (const core::io::FileError& e) {
        error = e.what();
        return false;
    }
    if (!names.empty() && static_cast<int>(names.size()) != opened->n()) {
        error = labels_path + ": " + std::to_string(names.size()) + " labels for " + std::to_string(opened->n()) + " tokens";
        return false;
    }
    if (names.empty())
        for (int i = 0; i < opened->n(); ++i) names.push_back(std::to_string(i + 1));
    close();
    file = std::move(opened);
    labels = std::move(names);
    error.clear();
    summaries.assign(static_cast<std::size_t>(total()), {});
    thumb_side = std::clamp(max_atlas_texels / std::max(file->layers(), file->heads()), 1, std::min(thumb_texels, file->n()));
    done.store(0);
    // Reading the whole file (600 MB for 12 × 12 × 1024²) takes seconds: a worker does it, below the
    // UI thread (on a busy machine the frames come first, the thumbnails after), and the grid shows
    // each thumbnail as it comes.
    worker.start([this](const core::TaskControl& c) {
        const int heads = file->heads();
        for (int k = 0; k < total() && !c.stopped(); ++k) {
            summaries[static_cast<std::size_t>(k)] = core::io::summarise_head(*file, k / heads, k % heads, thumb_side);
            done.store(k + 1, std::memory_order_release);
        }
        return true;
    });
    return true;
}

void AttentionView::close() {
    worker.cancel();
    worker.wait_idle();
    if (uploader && map) uploader->release(map);
    atlas.release();
    uploaded = 0, map = nullptr, map_layer = -1;
    summaries.clear(), done.store(0);
    file.reset(), labels.clear();
    layer = -1, head = 0, mean = false, fit(), selected_row = -1, top.clear();
}

int AttentionView::non_causal_heads() const {
    int count = 0;
    for (int k = 0; k < summarised(); ++k) count += summaries[static_cast<std::size_t>(k)].above_max > core::io::causal_tolerance;
    return count;
}

//-----------------------------------------------------------------------------
// [SECTION] Textures
//-----------------------------------------------------------------------------

void put_texel(unsigned char* p, float w, float top) {
    const core::Rgb c = std::isnan(w) ? core::masked_rgb() : core::viridis(static_cast<double>(w / top));
    p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
}

namespace {

// Puts every thumbnail the worker has finished since the last frame into the atlas. They come in
// layer order, so one row of the atlas (a layer) is being filled at a time, and is sent whole.
void upload_thumbnails(AttentionView& st, TextureUploader& textures) {
    const int heads = st.file->heads();
    st.atlas.reshape(textures, st.file->layers(), heads, st.thumb_side);
    const int ready = st.summarised();
    for (; st.uploaded < ready; ++st.uploaded) {
        const int layer = st.uploaded / heads, head = st.uploaded % heads;
        const core::io::HeadSummary& s = st.summaries[static_cast<std::size_t>(st.uploaded)];
        st.atlas.put(head, s.thumb.data(), std::max(s.max_weight, 1e-12f), put_texel); // each stretched to its own largest weight
        if (head == heads - 1 || st.uploaded + 1 == ready) st.atlas.send(layer);
    }
}

//-----------------------------------------------------------------------------
// [SECTION] The open prompt and the header
//-----------------------------------------------------------------------------

void open_prompt(AttentionView& st, View& v) {
    static const std::string what = "Open a file of attention weights: " + core::io::extension_list(core::io::Kind::attention, " or ") +
                                    " of shape (n, n), (heads, n, n) or (layers, heads, n, n), with an optional batch axis of 1.";
    ImGui::TextWrapped("%s", what.c_str());
    // The box gives way to the button beside it, so a narrow panel never cuts "Choose…" off.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float button = ImGui::CalcTextSize("Choose…").x + 2.0f * style.FramePadding.x + style.ItemSpacing.x;
    ImGui::SetNextItemWidth(std::max(4.0f * em(), std::min(24.0f * em(), ImGui::GetContentRegionAvail().x - button)));
    ImGui::InputTextWithHint("##attention-labels", "token labels (optional): JSON array or one a line", &st.labels_input);
    ImGui::SameLine();
    if (ImGui::Button("Choose…")) {
        v.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Token labels", {core::io::filter_of(core::io::Kind::labels, "Labels")}, "", "",
                                     [&st](const std::string& path) { st.labels_input = path; }};
    }
    if (ImGui::Button("Open the weights file…")) ask_attention_file(v);
}

void header(AttentionView& st) {
    const core::io::AttentionFile& f = *st.file;
    ImGui::Text("%s", f.path().c_str());
    ImGui::TextDisabled("%d layer%s × %d head%s × %d tokens · %s%s", f.layers(), f.layers() == 1 ? "" : "s", f.heads(),
                        f.heads() == 1 ? "" : "s", f.n(), core::io::dtype_name(f.dtype()), f.memory_mapped() ? " · memory-mapped" : "");
    if (st.summarised() < st.total()) {
        char text[64];
        std::snprintf(text, sizeof text, "reading heads: %d of %d", st.summarised(), st.total());
        ImGui::ProgressBar(static_cast<float>(st.summarised()) / static_cast<float>(st.total()), ImVec2(-1, 0), text);
        return;
    }
    const int bad = st.non_causal_heads();
    if (bad == 0) {
        ImGui::TextColored(ImVec4(0.45f, 0.8f, 0.45f, 1), "causal: no weight above the diagonal in any head");
        return;
    }
    const auto worst = std::max_element(st.summaries.begin(), st.summaries.end(), [](const auto& a, const auto& b) { return a.above_max < b.above_max; });
    const int k = static_cast<int>(worst - st.summaries.begin());
    ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "not causal: %d of %d heads have weight above the diagonal (outlined)", bad, st.total());
    ImGui::TextDisabled("largest: %.4g in layer %d, head %d: query %s → later key %s", static_cast<double>(worst->above_max),
                        k / f.heads() + 1, k % f.heads() + 1, st.token(worst->above_row).c_str(), st.token(worst->above_col).c_str());
}

//-----------------------------------------------------------------------------
// [SECTION] The grid of thumbnails
//-----------------------------------------------------------------------------

void open_map(AttentionView& st, int layer, int head, bool mean) {
    st.layer = layer, st.head = head, st.mean = mean;
    st.fit(), st.selected_row = -1, st.top.clear();
}

// The thumbnails' side: as large as the space allows (the grid of layers × heads fills the panel),
// within 1.5 … 12 em; a grid too large for the panel scrolls.
float thumbnail_side(const core::io::AttentionFile& f, float label_w, float gap) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float mean_w = ImGui::CalcTextSize("mean").x + 2.0f * ImGui::GetStyle().FramePadding.x + gap;
    const float across = (avail.x - label_w - mean_w - ImGui::GetStyle().ScrollbarSize) / static_cast<float>(f.heads()) - gap;
    const float down = (avail.y - ImGui::GetTextLineHeightWithSpacing() - gap) / static_cast<float>(f.layers()) - gap;
    return std::floor(std::clamp(std::min(across, down), 1.5f * em(), 12.0f * em()));
}

void grid(AttentionView& st) {
    const core::io::AttentionFile& f = *st.file;
    const float e = em(), gap = 0.25f * e, label_w = 2.6f * e;
    const float side = thumbnail_side(f, label_w, gap);
    st.thumb_rects.assign(static_cast<std::size_t>(st.total()), ImRect());
    ImGui::BeginChild("thumbnails", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    // The thumbnails in a channel of their own, so that they merge into one draw call: under a
    // software rasteriser every draw call costs a copy of the vertices (150 ms a frame for 144
    // thumbnails interleaved with outlines and labels, against 12 ms).
    draw->ChannelsSplit(2);
    draw->ChannelsSetCurrent(1);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    for (int h = 0; h < f.heads(); ++h) {
        char name[16];
        std::snprintf(name, sizeof name, "H%d", h + 1);
        draw->AddText(ImVec2(p0.x + label_w + static_cast<float>(h) * (side + gap), p0.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), name);
    }
    const float top = p0.y + ImGui::GetTextLineHeightWithSpacing();
    for (int l = 0; l < f.layers(); ++l) {
        const float y = top + static_cast<float>(l) * (side + gap);
        char name[16];
        std::snprintf(name, sizeof name, "L%d", l + 1);
        draw->AddText(ImVec2(p0.x, y + 0.5f * (side - ImGui::GetTextLineHeight())), ImGui::GetColorU32(ImGuiCol_TextDisabled), name);
        for (int h = 0; h < f.heads(); ++h) {
            const int k = l * f.heads() + h;
            const ImVec2 a(p0.x + label_w + static_cast<float>(h) * (side + gap), y), b(a.x + side, a.y + side);
            st.thumb_rects[static_cast<std::size_t>(k)] = ImRect(a, b);
            ImGui::SetCursorScreenPos(a);
            ImGui::PushID(k);
            if (ImGui::InvisibleButton("thumb", ImVec2(side, side)) && k < st.uploaded) open_map(st, l, h, false);
            ImGui::PopID();
            if (k < st.uploaded) {
                draw->ChannelsSetCurrent(0);
                st.atlas.draw(draw, l, h, a, b);
                draw->ChannelsSetCurrent(1);
                const core::io::HeadSummary& s = st.summaries[static_cast<std::size_t>(k)];
                if (s.above_max > core::io::causal_tolerance) draw->AddRect(a, b, IM_COL32(255, 90, 80, 255), 0, 0, 2.0f);
                if (l == st.layer && (st.mean || h == st.head))
                    draw->AddRect(ImVec2(a.x - 0.15f * e, a.y - 0.15f * e), ImVec2(b.x + 0.15f * e, b.y + 0.15f * e), selection_color(), 0, 0, 2.0f);
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("layer %d, head %d: largest weight %.3g%s\nclick to open", l + 1, h + 1, static_cast<double>(s.max_weight),
                                      s.above_max > core::io::causal_tolerance ? ", weight above the diagonal" : "");
            } else {
                draw->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_FrameBg));
            }
        }
        ImGui::SetCursorScreenPos(ImVec2(p0.x + label_w + static_cast<float>(f.heads()) * (side + gap), y + 0.5f * (side - ImGui::GetFrameHeight())));
        ImGui::PushID(l);
        if (ImGui::Button("mean")) open_map(st, l, 0, true);
        ImGui::PopID();
        tip("The mean of this layer's heads");
    }
    draw->ChannelsMerge();
    ImGui::SetCursorScreenPos(ImVec2(p0.x, top + static_cast<float>(f.layers()) * (side + gap)));
    ImGui::Dummy(ImVec2(1, 1));
    ImGui::EndChild();
}

} // namespace

void ask_attention_file(View& v) {
    v.open["attention"] = true;
    AttentionView& st = v.state<AttentionView>();
    v.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Open attention weights",
                                 {core::io::filter_of(core::io::Kind::attention, "Attention weights")}, "", "", [&st](const std::string& path) {
                                     if (!st.open(path, st.labels_input)) throw core::io::FileError(st.error);
                                 }};
}

void draw_attention_viewer(AttentionView& st, TextureUploader& textures, View* v) {
    if (st.uploader && st.uploader != &textures) st.close(); // textures belong to one renderer
    st.uploader = &textures;
    if (!st.file) {
        if (v) open_prompt(st, *v);
        if (!st.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", st.error.c_str());
        return;
    }
    upload_thumbnails(st, textures);
    if (ImGui::SmallButton("Close")) {
        st.close();
        return;
    }
    ImGui::SameLine();
    header(st);
    if (!st.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", st.error.c_str());
    const bool map_beside = v && v->open["attention_map"]; // the Model workspace: the map has a panel of its own
    bool filling = st.thumbnails_pending();
    if (st.layer < 0 || map_beside) {
        grid(st);
    } else {
        map_toolbar(st, true);
        filling = !map_view(st, textures, (AttentionView::top_count + 2) * ImGui::GetTextLineHeightWithSpacing()) || filling;
        top_keys(st);
    }
    if (v && filling) v->motion.moving = true;
}

} // namespace ui
