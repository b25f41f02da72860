#include "sbufsim/app/picture.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "sbufsim/app/outputs.h"
#include "sbufsim/output/output_file.h"

extern char** environ;

namespace sbufsim::app {

namespace {

// rsvg-convert reads the SVG from a file next to nothing else the user owns: a temporary file
// removed on every path out (a pipe would need SIGPIPE handling when the renderer quits early).
class TempSvg {
public:
    explicit TempSvg(const std::string& svg) {
        std::string tmpl = (std::filesystem::temp_directory_path() / "sbufsim-picture-XXXXXX.svg").string();
        std::vector<char> name(tmpl.begin(), tmpl.end());
        name.push_back('\0');
        const int fd = mkstemps(name.data(), 4);
        if (fd < 0)
            throw std::runtime_error("cannot create a temporary SVG for the PNG export: " +
                                     std::string(std::strerror(errno)));
        close(fd);
        path_ = name.data();
        std::ofstream f(path_, std::ios::binary);
        if (!(f << svg) || !f.flush()) throw std::runtime_error("cannot write the temporary SVG " + path_);
    }
    ~TempSvg() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    TempSvg(const TempSvg&) = delete;
    TempSvg& operator=(const TempSvg&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

std::string renderer();

// PNG's CRC-32 of a chunk's type and data (ISO/IEC 15948 annex D).
std::uint32_t png_crc(std::string_view bytes) {
    std::uint32_t c = 0xffffffffu;
    for (unsigned char b : bytes) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

void put_be32(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xffu));
}

// The PNG the renderer wrote, with a Software text chunk saying sbufsim wrote it right after the
// header chunk (an ancillary chunk before the image data, ISO/IEC 15948 §11.3.4.3), where
// is_picture() finds it. A renderer that wrote no PNG is an error here, not an empty picture.
void mark_png(const std::string& path, const std::string& write_path) {
    if (!std::filesystem::is_regular_file(write_path)) return;  // a device: written through, not kept
    std::ifstream in(write_path, std::ios::binary);
    std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    constexpr std::size_t kHeaderEnd = 8 + 4 + 4 + 13 + 4;  // signature, then IHDR: length, type, data, CRC
    if (png.size() < kHeaderEnd || png.compare(0, 4, "\x89PNG") != 0 || png.compare(12, 4, "IHDR") != 0)
        throw OutputError(OutputError::Kind::io, "cannot write " + path + ": " + renderer() +
                                                     " exited 0 but wrote no PNG (" +
                                                     std::to_string(png.size()) + " bytes)");
    const std::string body = png_mark() + "; sbufsim replaces this file when told to write it again";
    std::string chunk;
    put_be32(chunk, static_cast<std::uint32_t>(body.size() - 4));  // the data, without the type
    chunk += body;
    put_be32(chunk, png_crc(body));
    png.insert(kHeaderEnd, chunk);
    std::ofstream out(write_path, std::ios::binary | std::ios::trunc);
    if (!(out << png) || !out.flush())
        throw OutputError(OutputError::Kind::io, "cannot write " + path + ": " + std::strerror(errno));
}

std::string renderer() {
    if (const char* p = std::getenv("SBUFSIM_RSVG_CONVERT"); p && *p) return p;
    return "rsvg-convert";
}

void render_png(const std::string& svg, const std::string& path, const std::string& write_path) {
    const TempSvg in(svg);
    const std::string prog = renderer();
    std::vector<std::string> args{prog, "--format=png", "--zoom=1.5", "--output=" + write_path, in.path()};
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    spdlog::debug("png: {} --format=png --zoom=1.5 --output={} {}", prog, write_path, in.path());
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, prog.c_str(), nullptr, nullptr, argv.data(), environ);
    if (rc != 0)
        throw MissingTool(
            "cannot write " + path + ": PNG export needs " + prog + " (" + std::strerror(rc) +
            "); install it (Debian/Ubuntu: apt-get install librsvg2-bin) or write an .svg file instead");
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("cannot write " + path + ": " + prog + " failed (" +
                                 (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                                    : std::string("killed by a signal")) +
                                 ")");
}

}  // namespace

namespace {
std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}
}  // namespace

bool wants_png(const std::string& path) { return lower_extension(path) == ".png"; }

std::string picture_path_problem(const std::string& path) {
    const std::string ext = lower_extension(path);
    if (ext.empty() || ext == ".svg" || ext == ".png") return "";
    return path + ": pictures are written as SVG (.svg) or PNG (.png), not " + ext.substr(1) +
           "; name the file .svg or .png";
}

void write_picture(const std::string& svg, OutputFile* file, std::ostream& out) {
    if (file == nullptr) {
        out << svg;
        return;
    }
    if (wants_png(file->path())) {
        render_png(svg, file->path(), file->write_path());
        mark_png(file->path(), file->write_path());
    } else {
        file->stream() << svg;
    }
    file->check();
    spdlog::info("drew {} ({} bytes of SVG)", file->path(), svg.size());
}

}  // namespace sbufsim::app
