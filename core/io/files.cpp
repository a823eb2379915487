// core/io/files.cpp — whole reads, atomic writes and exact numbers (see files.h).
#include "core/io/files.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace core::io {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Removes the temporary file and throws "path: what: why".
[[noreturn]] void give_up(const std::string& path, const std::string& tmp, const std::string& what) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw WriteError(path + ": " + what + ": " + why);
}

} // namespace

std::optional<std::string> read_whole_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    // One buffer of the file's size, read into directly (a stream and its copy cost a third of
    // loading a 33 MB tokenizer.json); the loop also takes files that grow or have no size.
    struct stat st {};
    std::string text(::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) + 1 : 4096, '\0');
    std::size_t got = 0;
    for (;;) {
        if (got == text.size()) text.resize(text.size() * 2);
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; // the end, or an error such as reading a directory: what was read
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    text.resize(got);
    return text;
}

namespace {

// n bytes to fd, the temporary file `tmp` for `path`; on failure gives up (removes tmp, throws).
void write_all(int fd, const char* data, size_t n, const std::string& path, const std::string& tmp) {
    for (size_t written = 0; written < n;) {
        const ssize_t w = ::write(fd, data + written, n - written);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            const int saved = errno;
            ::close(fd);
            errno = saved;
            give_up(path, tmp, "cannot write");
        }
        written += static_cast<size_t>(w);
    }
}

// tmp synced and renamed over path, and the rename itself made durable.
void finish(int fd, const std::string& path, const std::string& tmp) {
    if (::fsync(fd) != 0 || ::close(fd) != 0) give_up(path, tmp, "cannot write");
    if (::rename(tmp.c_str(), path.c_str()) != 0) give_up(path, tmp, "cannot replace the file");
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

int create_beside(const std::string& path, std::string& tmp) {
    tmp = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw WriteError(path + ": cannot create a temporary file: " + errno_text());
    ::fchmod(fd, 0644);
    return fd;
}

} // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
    std::string tmp;
    const int fd = create_beside(path, tmp);
    write_all(fd, text.data(), text.size(), path, tmp);
    finish(fd, path, tmp);
}

void write_file_atomically(const std::string& path, const std::function<bool(std::string& piece)>& next) {
    std::string tmp;
    const int fd = create_beside(path, tmp);
    std::string piece;
    for (bool more = true; more;) {
        piece.clear();
        try {
            more = next(piece);
        } catch (...) {
            ::close(fd);
            ::unlink(tmp.c_str());
            throw;
        }
        write_all(fd, piece.data(), piece.size(), path, tmp);
    }
    finish(fd, path, tmp);
}

std::string json_number(double x) {
    if (std::abs(x) < 1e15 && x == std::round(x)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", x == 0 ? 0.0 : x);
        return buf;
    }
    return nlohmann::json(x).dump(); // nlohmann writes the shortest text that reads back exactly
}

} // namespace core::io
