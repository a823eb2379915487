// tests/gguf_writer.h — GGUF files as the format lays them out (version 3, little-endian): metadata
// of each value type, and tensor records whose data is filler of the right size. For tests of what
// reads the metadata; the weights' numbers are the gguf fixtures' (tests/fixtures).
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace fixtures {

class GgufWriter {
public:
    enum Type : std::uint32_t { u8 = 0, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9, u64 = 10 };

    void put_string(const std::string& key, const std::string& v) { head(key, string), text(kv_, v), ++n_kv_; }
    void put_u32(const std::string& key, std::uint32_t v) { head(key, 4), raw(kv_, v), ++n_kv_; }
    void put_bool(const std::string& key, bool v) { head(key, boolean), raw(kv_, static_cast<std::uint8_t>(v)), ++n_kv_; }
    void put_strings(const std::string& key, const std::vector<std::string>& v) {
        array_head(key, string, v.size());
        for (const auto& s : v) text(kv_, s);
    }
    void put_f32s(const std::string& key, const std::vector<float>& v) {
        array_head(key, f32, v.size());
        for (float x : v) raw(kv_, x);
    }
    void put_i32s(const std::string& key, const std::vector<std::int32_t>& v) {
        array_head(key, i32, v.size());
        for (std::int32_t x : v) raw(kv_, x);
    }
    // A tensor of ggml type `type` with `bytes` bytes of data, dims innermost first as GGUF has them.
    void tensor(const std::string& name, const std::vector<std::uint64_t>& ne, std::uint32_t type, std::uint64_t bytes) {
        text(tensors_, name);
        raw(tensors_, static_cast<std::uint32_t>(ne.size()));
        for (std::uint64_t d : ne) raw(tensors_, d);
        raw(tensors_, type);
        raw(tensors_, data_bytes_);
        data_bytes_ += (bytes + 31) / 32 * 32;
        ++n_tensors_;
    }
    std::string bytes() const {
        std::string out = "GGUF";
        raw(out, std::uint32_t{3});
        raw(out, n_tensors_);
        raw(out, n_kv_);
        out += kv_ + tensors_;
        out.resize((out.size() + 31) / 32 * 32, '\0');
        out.resize(out.size() + data_bytes_, '\x11');
        return out;
    }
    void write(const std::string& path) const { std::ofstream(path, std::ios::binary) << bytes(); }

private:
    std::string kv_, tensors_;
    std::uint64_t n_kv_ = 0, n_tensors_ = 0, data_bytes_ = 0;

    template <class T> static void raw(std::string& out, T v) {
        char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        out.append(b, sizeof(T));
    }
    static void text(std::string& out, const std::string& s) {
        raw(out, static_cast<std::uint64_t>(s.size()));
        out += s;
    }
    void head(const std::string& key, std::uint32_t type) { text(kv_, key), raw(kv_, type); }
    void array_head(const std::string& key, std::uint32_t type, std::size_t n) {
        head(key, array), raw(kv_, type), raw(kv_, static_cast<std::uint64_t>(n)), ++n_kv_;
    }
};

} // namespace fixtures
