// core/io/npz.cpp — the zip side of .npz; each member goes through the .npy reader.
#include "core/io/npz.h"

#include <zip.h>

#include <memory>

namespace core::io {

namespace {

constexpr std::size_t max_member_bytes = static_cast<std::size_t>(max_tensor_elements) * 8 + (1u << 20);
constexpr std::size_t max_npz_bytes = max_member_bytes * 2;

struct ZipCloser {
    void operator()(zip_t* z) const { zip_discard(z); }
};
using Zip = std::unique_ptr<zip_t, ZipCloser>;
struct ZipFileCloser {
    void operator()(zip_file_t* f) const { zip_fclose(f); }
};

std::string zip_error_text(zip_error_t* e) {
    std::string s = zip_error_strerror(e);
    zip_error_fini(e);
    return s;
}

// Opens the archive on a buffer we own; the zip never frees it.
Zip open_archive(const char* bytes, std::size_t size, const std::string& path) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes, size, 0, &err);
    if (!src) throw FileError(path + ": cannot read as a zip: " + zip_error_text(&err));
    zip_t* z = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!z) {
        zip_source_free(src);
        throw FileError(path + ": not a valid .npz (zip) file, or it is truncated: " + zip_error_text(&err));
    }
    zip_error_fini(&err);
    return Zip(z);
}

std::string read_member(zip_t* z, zip_uint64_t index, std::size_t size, const std::string& where) {
    std::unique_ptr<zip_file_t, ZipFileCloser> file(zip_fopen_index(z, index, 0));
    if (!file) throw FileError(where + ": cannot read: " + zip_strerror(z));
    std::string bytes(size, '\0');
    std::size_t got = 0;
    while (got < size) {
        const zip_int64_t n = zip_fread(file.get(), bytes.data() + got, size - got);
        if (n < 0) throw FileError(where + ": corrupt or truncated: " + zip_file_strerror(file.get()));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    char extra;
    if (got != size || zip_fread(file.get(), &extra, 1) != 0)
        throw FileError(where + ": the member's size does not match the zip directory");
    return bytes;
}

} // namespace

TensorFile parse_npz(const char* bytes, std::size_t size, const std::string& path) {
    if (size == 0) throw FileError(path + ": the file is empty, not an .npz (zip) archive");
    Zip z = open_archive(bytes, size, path);
    const zip_int64_t count = zip_get_num_entries(z.get(), 0);
    if (count < 0 || static_cast<std::uint64_t>(count) > max_tensors_per_file)
        throw FileError(path + ": the archive has more than " + std::to_string(max_tensors_per_file) + " members");
    TensorFile f;
    std::int64_t total = 0;
    for (zip_int64_t i = 0; i < count; ++i) {
        zip_stat_t st;
        if (zip_stat_index(z.get(), static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) || !(st.valid & ZIP_STAT_SIZE))
            throw FileError(path + ": corrupt zip directory entry " + std::to_string(i));
        std::string name = st.name;
        if (!name.empty() && name.back() == '/') continue; // a folder entry
        const std::string where = path + ": member \"" + name + "\"";
        if (name.size() < 5 || name.compare(name.size() - 4, 4, ".npy") != 0)
            throw FileError(where + " is not a .npy array; an .npz holds only .npy members");
        if (st.size > max_member_bytes)
            throw FileError(where + " has " + std::to_string(st.size) + " bytes, more than the limit of " + std::to_string(max_member_bytes));
        const std::string member = read_member(z.get(), static_cast<zip_uint64_t>(i), static_cast<std::size_t>(st.size), where);
        Tensor t = parse_npy(member.data(), member.size(), where);
        total += static_cast<std::int64_t>(t.values.size());
        if (total > max_tensor_elements)
            throw FileError(path + ": the arrays hold more than " + std::to_string(max_tensor_elements) + " elements, past the limit");
        name.resize(name.size() - 4);
        if (f.tensors.count(name)) throw FileError(path + ": the key \"" + name + "\" appears twice");
        f.tensors[name] = std::move(t);
    }
    return f;
}

TensorFile read_npz(const std::string& path) {
    const std::string bytes = read_file_bytes(path, max_npz_bytes);
    return parse_npz(bytes.data(), bytes.size(), path);
}

namespace {

// The whole archive, built in memory: its members, then the central directory.
std::string archive_bytes(const std::vector<std::pair<std::string, std::string>>& members, bool compressed, const std::string& path) {
    if (members.empty()) return std::string("PK\x05\x06", 4) + std::string(18, '\0'); // an empty zip: its end record alone
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!out) throw FileError(path + ": cannot make a zip: " + zip_error_text(&err));
    zip_t* z = zip_open_from_source(out, ZIP_TRUNCATE, &err);
    if (!z) {
        zip_source_free(out);
        throw FileError(path + ": cannot make a zip: " + zip_error_text(&err));
    }
    zip_error_fini(&err);
    zip_source_keep(out); // survives zip_close so that we can read the bytes back
    auto fail = [&](const std::string& why) {
        zip_discard(z);
        zip_source_free(out);
        throw FileError(path + ": cannot make a zip: " + why);
    };
    for (const auto& [name, bytes] : members) {
        zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0); // read at zip_close, while `members` lives
        if (!src) fail(zip_strerror(z));
        const zip_int64_t idx = zip_file_add(z, name.c_str(), src, ZIP_FL_ENC_UTF_8);
        if (idx < 0) {
            zip_source_free(src);
            fail(zip_strerror(z));
        }
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), compressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
        zip_file_set_mtime(z, static_cast<zip_uint64_t>(idx), 315619200, 0); // 1980-01-02: same arrays, same bytes
    }
    if (zip_close(z) != 0) fail(zip_strerror(z));
    std::string bytes;
    zip_stat_t st;
    if (zip_source_stat(out, &st) != 0 || zip_source_open(out) != 0) {
        zip_source_free(out);
        throw FileError(path + ": cannot make a zip");
    }
    bytes.resize(static_cast<std::size_t>(st.size));
    const zip_int64_t n = zip_source_read(out, bytes.data(), bytes.size());
    zip_source_close(out);
    zip_source_free(out);
    if (n != static_cast<zip_int64_t>(bytes.size())) throw FileError(path + ": cannot make a zip");
    return bytes;
}

} // namespace

std::string npz_bytes(const TensorFile& f, bool compressed, const std::string& path) {
    std::vector<std::pair<std::string, std::string>> members;
    for (const auto& [key, t] : f.tensors) {
        if (key.empty()) throw FileError(path + ": an empty name cannot be a key of an .npz");
        members.emplace_back(key + ".npy", npy_bytes(t, path + ": \"" + key + "\""));
    }
    return archive_bytes(members, compressed, path);
}

} // namespace core::io
