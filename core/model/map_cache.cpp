// core/model/map_cache.cpp — the maps a view asked for last.
#include "core/model/map_cache.h"

#include "core/background.h"
#include "core/wake.h"

#include <algorithm>

namespace core::model {

std::shared_ptr<const MatrixF> MapCache::held(int l, int h) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& e : entries_)
        if (e.layer == l && e.head == h) return e.map;
    return nullptr;
}

std::shared_ptr<const MatrixF> MapCache::head(const AttentionMaps& maps, int l, int h) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.layer == l && e.head == h; });
        if (it != entries_.end()) {
            Entry e = *it;
            entries_.erase(it);
            entries_.push_back(e);
            return e.map;
        }
    }
    auto map = std::make_shared<const MatrixF>(maps.head(l, h)); // outside the lock: the slow part
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back({l, h, map});
    const std::size_t each = static_cast<std::size_t>(map->size()) * sizeof(float);
    while (entries_.size() > 1 && entries_.size() * each > budget_) entries_.pop_front();
    return map;
}

std::shared_ptr<const MatrixF> MapCache::soon(std::shared_ptr<const void> owner, const AttentionMaps& maps, int l, int h) {
    if (auto map = held(l, h)) return head(maps, l, h); // held: head() only marks it recent
    if (static_cast<std::size_t>(maps.t_new()) * static_cast<std::size_t>(maps.t_total()) <= inline_cells) return head(maps, l, h);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (rebuilding_) return nullptr;
        rebuilding_ = true;
    }
    const auto rebuild = [this, owner = std::move(owner), &maps, l, h] {
        try {
            head(maps, l, h);
        } catch (const std::exception&) { // out of memory: the view keeps asking; nothing to report from here
        }
        std::lock_guard<std::mutex> lock(mutex_);
        rebuilding_ = false;
        core::wake();
    };
    try {
        background::start(rebuild);
    } catch (const std::exception&) { // no thread to be had: the next frame asks again
        std::lock_guard<std::mutex> lock(mutex_);
        rebuilding_ = false;
    }
    return nullptr;
}

} // namespace core::model
