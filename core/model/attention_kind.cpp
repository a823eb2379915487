// core/model/attention_kind.cpp — the table of attention kinds (attention_kind.h).
#include "core/model/attention_kind.h"

namespace core::model {

const std::vector<AttentionKindRow>& attention_kind_rows() {
    static const std::vector<AttentionKindRow> rows = {
        {"linear (Gated DeltaNet)", [](const AttentionKind& k) { return k.linear; }, [](const AttentionKind&) { return std::string("linear"); }, false},
        {"sliding window", [](const AttentionKind& k) { return k.window > 0; },
         [](const AttentionKind& k) { return "window " + std::to_string(k.window); }, false},
        {"no position encoding", [](const AttentionKind& k) { return !k.rope; }, [](const AttentionKind&) { return std::string("no RoPE"); }, false},
        {"learned sink", [](const AttentionKind& k) { return k.learned_sink(); }, [](const AttentionKind&) { return std::string("sink"); }, true},
    };
    return rows;
}

std::string kind_label(const AttentionKind& k) {
    std::string label;
    for (const AttentionKindRow& row : attention_kind_rows())
        if (row.has(k)) label += (label.empty() ? "" : " · ") + row.label(k);
    return label.empty() ? "full" : label;
}

} // namespace core::model
