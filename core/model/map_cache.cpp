// core/model/map_cache.cpp — the maps a view asked for last.
#include "core/model/map_cache.h"

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

} // namespace core::model
