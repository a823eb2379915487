// core/io/figure.cpp
//
// [SECTION] Text: UTF-8, the font, measuring and rasterising
// [SECTION] Layout (shared by PNG and SVG)
// [SECTION] PNG
// [SECTION] SVG
#include "core/io/figure.h"
#include "core/io/xml.h"

#include "core/colormap.h"

#include <stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>

namespace core::io {

const char* const figure_font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

namespace {

constexpr float pad = 16, gap = 6;
constexpr float label_px = 13, title_px = 17, value_px = 11;
constexpr float max_label_w = 130;   // longer token names end in "…"
constexpr float bar_w = 14;
constexpr float values_from_cell = 40; // cells at least this wide show their weight
constexpr Rgb paper{255, 255, 255}, ink{34, 34, 34};

//-----------------------------------------------------------------------------
// [SECTION] Text: UTF-8, the font, measuring and rasterising
//-----------------------------------------------------------------------------

std::vector<int> code_points(const std::string& text) {
    std::vector<int> out;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const int extra = c < 0x80 ? 0 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
        if (extra < 0 || i + static_cast<std::size_t>(extra) >= text.size()) { out.push_back(0xFFFD); ++i; continue; }
        int cp = extra == 0 ? c : c & (0x3F >> extra);
        for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]) & 0x3F);
        out.push_back(cp);
        i += static_cast<std::size_t>(extra) + 1;
    }
    return out;
}

// A coverage bitmap of one line of text; (0, 0) is the top-left, the baseline at `ascent`.
struct TextBitmap {
    int width = 0, height = 0, ascent = 0;
    std::vector<std::uint8_t> alpha;
};

class Font {
public:
    // Empty (loaded() false) when the file is missing or not a font.
    explicit Font(const char* path) {
        std::ifstream in(path, std::ios::binary);
        bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        ok_ = !bytes_.empty() && stbtt_InitFont(&info_, reinterpret_cast<const unsigned char*>(bytes_.data()), 0) != 0;
    }
    bool loaded() const { return ok_; }

    float width(const std::string& text, float px) const {
        if (!ok_) return 0.6f * px * static_cast<float>(code_points(text).size()); // SVG without the font: an estimate
        const float scale = stbtt_ScaleForPixelHeight(&info_, px);
        const std::vector<int> cps = code_points(text);
        float w = 0;
        for (std::size_t k = 0; k < cps.size(); ++k) {
            int advance = 0, bearing = 0;
            stbtt_GetCodepointHMetrics(&info_, cps[k], &advance, &bearing);
            w += static_cast<float>(advance) * scale;
            if (k + 1 < cps.size()) w += static_cast<float>(stbtt_GetCodepointKernAdvance(&info_, cps[k], cps[k + 1])) * scale;
        }
        return w;
    }

    TextBitmap render(const std::string& text, float px) const {
        const float scale = stbtt_ScaleForPixelHeight(&info_, px);
        int ascent = 0, descent = 0, line_gap = 0;
        stbtt_GetFontVMetrics(&info_, &ascent, &descent, &line_gap);
        TextBitmap b;
        b.ascent = static_cast<int>(std::ceil(static_cast<float>(ascent) * scale));
        b.height = b.ascent + static_cast<int>(std::ceil(static_cast<float>(-descent) * scale));
        b.width = static_cast<int>(std::ceil(width(text, px))) + 2;
        b.alpha.assign(static_cast<std::size_t>(b.width) * static_cast<std::size_t>(b.height), 0);
        const std::vector<int> cps = code_points(text);
        float x = 0;
        for (std::size_t k = 0; k < cps.size(); ++k) {
            int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
            const float shift = x - std::floor(x);
            stbtt_GetCodepointBitmapBoxSubpixel(&info_, cps[k], scale, scale, shift, 0, &x0, &y0, &x1, &y1);
            const int gx = static_cast<int>(std::floor(x)) + x0, gy = b.ascent + y0;
            const int gw = x1 - x0, gh = y1 - y0;
            if (gw > 0 && gh > 0) {
                std::vector<std::uint8_t> glyph(static_cast<std::size_t>(gw) * static_cast<std::size_t>(gh));
                stbtt_MakeCodepointBitmapSubpixel(&info_, glyph.data(), gw, gh, gw, scale, scale, shift, 0, cps[k]);
                for (int v = 0; v < gh; ++v)
                    for (int u = 0; u < gw; ++u) {
                        const int px_x = gx + u, px_y = gy + v;
                        if (px_x < 0 || px_y < 0 || px_x >= b.width || px_y >= b.height) continue;
                        std::uint8_t& a = b.alpha[static_cast<std::size_t>(px_y) * static_cast<std::size_t>(b.width) + static_cast<std::size_t>(px_x)];
                        a = std::max(a, glyph[static_cast<std::size_t>(v) * static_cast<std::size_t>(gw) + static_cast<std::size_t>(u)]);
                    }
            }
            int advance = 0, bearing = 0;
            stbtt_GetCodepointHMetrics(&info_, cps[k], &advance, &bearing);
            x += static_cast<float>(advance) * scale;
            if (k + 1 < cps.size()) x += static_cast<float>(stbtt_GetCodepointKernAdvance(&info_, cps[k], cps[k + 1])) * scale;
        }
        return b;
    }

private:
    std::string bytes_;
    stbtt_fontinfo info_{};
    bool ok_ = false;
};

const Font& figure_font() {
    static const Font font(figure_font_path);
    return font;
}

// `text` cut to `max_w` pixels with a trailing "…".
std::string fitted(const Font& font, const std::string& text, float px, float max_w) {
    if (font.width(text, px) <= max_w) return text;
    std::vector<int> cps = code_points(text);
    std::string out;
    for (int cp : cps) {
        std::string next = out;
        if (cp < 0x80) next += static_cast<char>(cp);
        else if (cp < 0x800) next += {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
        else if (cp < 0x10000) next += {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
        else next += {static_cast<char>(0xF0 | (cp >> 18)), static_cast<char>(0x80 | ((cp >> 12) & 0x3F)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
        if (font.width(next + "…", px) > max_w) break;
        out = std::move(next);
    }
    return out + "…";
}

//-----------------------------------------------------------------------------
// [SECTION] Layout (shared by PNG and SVG)
//-----------------------------------------------------------------------------

struct Label {
    std::string text;
    float x = 0, y = 0;  // the start of the baseline (for vertical text: its bottom end)
    float px = label_px;
    bool vertical = false; // reads bottom to top
    bool right_aligned = false; // x is the end of the text
    Rgb color = ink;
};

struct Layout {
    int n = 0;
    float cell = 0, map_x = 0, map_y = 0, map_side = 0, bar_x = 0;
    int width = 0, height = 0;
    std::vector<Label> labels;
    std::string value_format; // printf format of the weights written in the cells, or empty
};

float baseline_offset(float px) { return 0.36f * px; } // from a line's middle to its baseline, DejaVu Sans

std::string tick_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

Layout lay_out(const Matrix& w, const FigureSpec& spec, const Font& font) {
    Layout L;
    L.n = static_cast<int>(w.rows());
    const float n = static_cast<float>(L.n);
    L.cell = std::clamp(std::floor(512.0f / n), 1.0f, 64.0f);
    L.map_side = L.cell * n;
    const int step = static_cast<int>(std::ceil((label_px + 2) / L.cell)); // label every step-th token
    const bool labelled = static_cast<int>(spec.tokens.size()) == L.n;
    float label_w = 0;
    std::vector<std::string> shown(static_cast<std::size_t>(L.n));
    if (labelled)
        for (int i = 0; i < L.n; i += step) {
            shown[static_cast<std::size_t>(i)] = fitted(font, spec.tokens[static_cast<std::size_t>(i)], label_px, max_label_w);
            label_w = std::max(label_w, font.width(shown[static_cast<std::size_t>(i)], label_px));
        }
    const float title_h = spec.title.empty() ? 0 : title_px + gap;
    L.map_x = pad + label_w + gap;
    L.map_y = pad + title_h + label_w + gap;
    if (!spec.title.empty()) L.labels.push_back({spec.title, pad, pad + 0.8f * title_px, title_px, false, false, ink});
    for (int i = 0; labelled && i < L.n; i += step) {
        const float middle = static_cast<float>(i) * L.cell + 0.5f * L.cell;
        const std::string& t = shown[static_cast<std::size_t>(i)];
        L.labels.push_back({t, L.map_x - gap, L.map_y + middle + baseline_offset(label_px), label_px, false, true, ink});
        L.labels.push_back({t, L.map_x + middle + baseline_offset(label_px), L.map_y - gap, label_px, true, false, ink});
    }
    // The colour bar right of the map, its ticks at 0, half and top (signed: −top, 0, top).
    L.bar_x = L.map_x + L.map_side + 2 * gap;
    float tick_w = 0;
    for (int k = 0; k <= 2; ++k) {
        const std::string t = tick_text(spec.diverging ? spec.top * (k - 1) : spec.top * k / 2);
        tick_w = std::max(tick_w, font.width(t, label_px));
        const float y = L.map_y + L.map_side * (1.0f - static_cast<float>(k) / 2.0f);
        L.labels.push_back({t, L.bar_x + bar_w + gap, std::clamp(y + baseline_offset(label_px), L.map_y + label_px, L.map_y + L.map_side), label_px, false, false, ink});
    }
    L.width = static_cast<int>(std::ceil(L.bar_x + bar_w + gap + tick_w + pad));
    float bottom = L.map_y + L.map_side + pad;
    if (spec.causal) {
        L.labels.push_back({"grey: masked (key after the query)", L.map_x, L.map_y + L.map_side + gap + label_px, label_px, false, false, ink});
        bottom += label_px + gap;
    }
    L.height = static_cast<int>(std::ceil(bottom));
    L.width = std::max(L.width, static_cast<int>(std::ceil(pad + font.width(spec.title, title_px) + pad)));
    if (L.cell >= values_from_cell) L.value_format = "%.3f";
    return L;
}

bool masked(const FigureSpec& spec, int i, int j) { return spec.causal && j > i; }
// u in [0, 1] up the colour bar.
Rgb bar_color(const FigureSpec& spec, double u) { return spec.diverging ? diverging(2 * u - 1) : viridis(u); }
Rgb cell_color(const Matrix& w, const FigureSpec& spec, int i, int j) {
    if (masked(spec, i, j)) return masked_rgb();
    return spec.diverging ? diverging(w(i, j) / spec.top) : viridis(w(i, j) / spec.top);
}
Rgb text_on(Rgb background) {
    const double luminance = (0.2126 * background.r + 0.7152 * background.g + 0.0722 * background.b) / 255.0;
    return luminance > 0.5 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}
std::string value_text(const Layout& L, double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, L.value_format.c_str(), v);
    return buf;
}

//-----------------------------------------------------------------------------
// [SECTION] PNG
//-----------------------------------------------------------------------------

void fill(Image& im, int x0, int y0, int w, int h, Rgb c) {
    for (int y = std::max(0, y0); y < std::min(im.height, y0 + h); ++y)
        for (int x = std::max(0, x0); x < std::min(im.width, x0 + w); ++x) {
            std::uint8_t* p = &im.rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(im.width) + static_cast<std::size_t>(x)) * 3];
            p[0] = c.r, p[1] = c.g, p[2] = c.b;
        }
}

void blend(Image& im, int x, int y, std::uint8_t alpha, Rgb c) {
    if (x < 0 || y < 0 || x >= im.width || y >= im.height || alpha == 0) return;
    std::uint8_t* p = &im.rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(im.width) + static_cast<std::size_t>(x)) * 3];
    const auto mix = [alpha](std::uint8_t under, std::uint8_t over) {
        return static_cast<std::uint8_t>((under * (255 - alpha) + over * alpha + 127) / 255);
    };
    p[0] = mix(p[0], c.r), p[1] = mix(p[1], c.g), p[2] = mix(p[2], c.b);
}

void draw_label(Image& im, const Font& font, const Label& l) {
    const TextBitmap b = font.render(l.text, l.px);
    const float start = l.right_aligned ? l.x - font.width(l.text, l.px) : l.x;
    const int ox = static_cast<int>(std::lround(start)), oy = static_cast<int>(std::lround(l.y));
    for (int v = 0; v < b.height; ++v)
        for (int u = 0; u < b.width; ++u) {
            const std::uint8_t a = b.alpha[static_cast<std::size_t>(v) * static_cast<std::size_t>(b.width) + static_cast<std::size_t>(u)];
            // Vertical text: the bitmap turned a quarter counter-clockwise about the baseline start.
            if (l.vertical) blend(im, ox + (v - b.ascent), oy - u, a, l.color);
            else blend(im, ox + u, oy + (v - b.ascent), a, l.color);
        }
}

} // namespace

Image heatmap_figure_png(const Matrix& w, const FigureSpec& spec) {
    const Font& font = figure_font();
    if (!font.loaded())
        throw ExportError(std::string("a labelled PNG needs the font ") + figure_font_path + " (Debian package fonts-dejavu-core)");
    const Layout L = lay_out(w, spec, font);
    Image im;
    im.width = L.width, im.height = L.height;
    im.rgb.assign(static_cast<std::size_t>(im.width) * static_cast<std::size_t>(im.height) * 3, 255);
    const int c = static_cast<int>(L.cell), mx = static_cast<int>(L.map_x), my = static_cast<int>(L.map_y);
    for (int i = 0; i < L.n; ++i)
        for (int j = 0; j < L.n; ++j) fill(im, mx + j * c, my + i * c, c, c, cell_color(w, spec, i, j));
    const int side = c * L.n;
    for (int y = 0; y < side; ++y) fill(im, static_cast<int>(L.bar_x), my + y, static_cast<int>(bar_w), 1, bar_color(spec, 1.0 - (y + 0.5) / side));
    for (const Label& l : L.labels) draw_label(im, font, l);
    if (!L.value_format.empty())
        for (int i = 0; i < L.n; ++i)
            for (int j = 0; j < L.n; ++j) {
                if (masked(spec, i, j)) continue;
                const std::string t = value_text(L, w(i, j));
                const float x = L.map_x + (static_cast<float>(j) + 0.5f) * L.cell - 0.5f * font.width(t, value_px);
                const float y = L.map_y + (static_cast<float>(i) + 0.5f) * L.cell + baseline_offset(value_px);
                draw_label(im, font, {t, x, y, value_px, false, false, text_on(cell_color(w, spec, i, j))});
            }
    return im;
}

//-----------------------------------------------------------------------------
// [SECTION] SVG
//-----------------------------------------------------------------------------

namespace {

std::string hex(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

std::string num(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

std::string svg_text(const Label& l) {
    std::string attrs = " font-size=\"" + num(l.px) + "\" fill=\"" + hex(l.color) + "\"";
    if (l.right_aligned) attrs += " text-anchor=\"end\"";
    const std::string body = ">" + xml_escaped(l.text) + "</text>\n";
    if (l.vertical) return "<text transform=\"translate(" + num(l.x) + " " + num(l.y) + ") rotate(-90)\"" + attrs + body;
    return "<text x=\"" + num(l.x) + "\" y=\"" + num(l.y) + "\"" + attrs + body;
}

} // namespace

std::string heatmap_figure_svg(const Matrix& w, const FigureSpec& spec) {
    if (w.rows() > max_svg_tokens)
        throw ExportError("A has " + std::to_string(w.rows()) + " × " + std::to_string(w.rows()) + " cells; an SVG stops at " +
                          std::to_string(max_svg_tokens) + " × " + std::to_string(max_svg_tokens) + " (one element per cell): use PNG");
    const Layout L = lay_out(w, spec, figure_font());
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                      std::to_string(L.width) + "\" height=\"" + std::to_string(L.height) + "\" viewBox=\"0 0 " +
                      std::to_string(L.width) + " " + std::to_string(L.height) + "\" font-family=\"DejaVu Sans, sans-serif\">\n";
    if (!spec.title.empty()) out += "<title>" + xml_escaped(spec.title) + "</title>\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"" + hex(paper) + "\"/>\n";
    // The colour bar: the map's nine stops as a vertical gradient, 0 at the bottom.
    out += "<defs><linearGradient id=\"colour-bar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
    for (int k = 0; k <= 8; ++k) out += "<stop offset=\"" + num(static_cast<float>(k) / 8) + "\" stop-color=\"" + hex(bar_color(spec, k / 8.0)) + "\"/>";
    out += "</linearGradient></defs>\n";
    out += "<g shape-rendering=\"crispEdges\">\n";
    const std::string side = num(L.cell);
    for (int i = 0; i < L.n; ++i)
        for (int j = 0; j < L.n; ++j)
            out += "<rect class=\"cell\" x=\"" + num(L.map_x + static_cast<float>(j) * L.cell) + "\" y=\"" + num(L.map_y + static_cast<float>(i) * L.cell) +
                   "\" width=\"" + side + "\" height=\"" + side + "\" fill=\"" + hex(cell_color(w, spec, i, j)) + "\"/>\n";
    out += "</g>\n<rect class=\"colour-bar\" x=\"" + num(L.bar_x) + "\" y=\"" + num(L.map_y) + "\" width=\"" + num(bar_w) + "\" height=\"" +
           num(L.map_side) + "\" fill=\"url(#colour-bar)\"/>\n";
    for (const Label& l : L.labels) out += svg_text(l);
    if (!L.value_format.empty())
        for (int i = 0; i < L.n; ++i)
            for (int j = 0; j < L.n; ++j) {
                if (masked(spec, i, j)) continue;
                const float x = L.map_x + (static_cast<float>(j) + 0.5f) * L.cell, y = L.map_y + (static_cast<float>(i) + 0.5f) * L.cell + baseline_offset(value_px);
                out += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(value_px) + "\" text-anchor=\"middle\" fill=\"" +
                       hex(text_on(cell_color(w, spec, i, j))) + "\">" + value_text(L, w(i, j)) + "</text>\n";
            }
    return out + "</svg>\n";
}

FigureSpec heatmap_spec(const Scenario& s, const Matrix& weights, std::string title, bool stretch) {
    const bool signed_map = s.rule != AttentionRule::softmax;
    const double largest = std::max(signed_map ? weights.cwiseAbs().maxCoeff() : weights.maxCoeff(), 1e-12);
    return {std::move(title), s.tokens, s.sees_only_past(), signed_map || stretch ? largest : 1.0, signed_map};
}

} // namespace core::io
