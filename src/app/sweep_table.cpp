// The sweep's table (sweep_parts.h): the locked journal of --out, resuming and the stale rows of
// an earlier sweep, the final rewrite, the JSON that must not be lost.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "sbufsim/app/outputs.h"
#include "sweep_parts.h"

namespace sbufsim::app::sweep_parts {

// The final table, in table order: written beside --out and renamed over it (OutputFile), so an
// interruption while rewriting cannot lose the rows.
void write_csv_file(OutputFile& file, const std::vector<std::string>& cols, const std::vector<Row>& rows,
                    bool header) {
    std::ostream& f = file.stream();
    if (header) f << sweep::csv_line(cols) << "\n";
    for (const auto& r : rows) f << sweep::csv_line(r) << "\n";
    file.commit();
}

// A file this sweep may resume and rewrite: a CSV whose first line is a header or a row.
std::function<bool(std::string_view)> sweep_table_kind(std::size_t ncols) {
    return [ncols](std::string_view head) {
        const std::string first(head.substr(0, head.find('\n')));
        const auto cells = sweep::parse_csv_line(first);
        return cells && (cells->size() == ncols || (!cells->empty() && cells->front() == "trace"));
    };
}

Journal::Journal(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0)
        throw OutputError(OutputError::Kind::refused,
                          "cannot write --out " + path + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(fd_);
        throw OutputError(
            OutputError::Kind::refused,
            "--out " + path + ": " +
                (err == EWOULDBLOCK ? std::string("another sweep is writing it (the file is locked)")
                                    : std::string("cannot lock it: ") + std::strerror(err)) +
                "; wait for that sweep to finish, or pass another --out");
    }
}

Journal::~Journal() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void Journal::write(const std::string& text) {
    if (error_ == 0 && !write_all(fd_, text)) error_ = errno ? errno : EIO;
}

void Journal::check() const {
    if (error_ != 0)
        throw OutputError(OutputError::Kind::io,
                          "cannot write --out " + path_ + ": " + std::strerror(error_));
}

bool ends_with_newline(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    f.seekg(-1, std::ios::end);
    char c = 0;
    return f.get(c) && c == '\n';
}

// --json names a sweep's JSON whose rows have other columns: another sweep's results, which
// replacing would lose (as --out refuses a table of other columns). Refused unless --force.
void refuse_other_sweep_json(const std::string& path, const std::vector<std::string>& cols) {
    namespace pt = boost::property_tree;
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (!in.gcount() || !is_sweep_json(head))
        return;  // absent, unreadable or not a sweep's: OutputFile says why
    pt::ptree rows;
    try {
        pt::read_json(path, rows);
    } catch (const pt::json_parser_error&) {
        return;  // cut off: not one whose rows could be lost
    }
    if (rows.empty()) return;
    std::vector<std::string> keys;
    for (const auto& [key, _] : rows.front().second) keys.push_back(key);
    if (keys == cols) return;
    std::string list;
    for (std::size_t i = 1; i < keys.size() && i < 4; ++i) list += (i > 1 ? ", " : "") + keys[i];
    throw OutputError(OutputError::Kind::refused,
                      "--json " + path + ": holds another sweep's rows (columns trace, " + list +
                          (keys.size() > 4 ? ", ..." : "") +
                          "), which replacing it would lose; write this sweep to another --json, or pass "
                          "--force to replace it");
}

// Rows of --out computed under another base configuration or from another version of a trace are
// stale: a table holds one base configuration, so this sweep would replace those it runs again and
// drop the others. Either way an earlier experiment's results would go: refused unless --force,
// before any point runs, naming how many and one of them.
void drop_stale_rows(std::vector<Row>& existing, const Plan& o, const std::vector<std::string>& cols,
                     const std::vector<Job>& jobs, std::pair<std::size_t, std::size_t> range,
                     std::size_t axes, const DigestOf& digest_of, std::ostream& err) {
    const std::size_t digest_col = cols.size() - 3;
    std::set<std::string> runs;
    for (std::size_t i = range.first; i < range.second; ++i)
        runs.insert(sweep::row_key(sweep::make_row(jobs[i], {}, "", ""), axes));
    std::size_t rerun = 0, lost_count = 0;
    const Row* stale = nullptr;
    for (const Row& r : existing) {
        if (r[digest_col] == digest_of(r[0])) continue;
        if (!stale) stale = &r;
        ++(runs.count(sweep::row_key(r, axes)) ? rerun : lost_count);
    }
    if (!stale) return;
    const auto rows = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); };
    if (!o.force) {
        std::string point;
        for (std::size_t a = 1; a <= axes && a < stale->size(); ++a)
            point += (a > 1 ? ", " : "") + cols[a] + "=" + (*stale)[a];
        const std::string fate = !lost_count ? "this sweep would run their points again and replace them"
                                 : !rerun ? "this sweep does not run their points again: they would be lost"
                                          : "this sweep would replace " + rows(rerun) +
                                                " and lose the other " + std::to_string(lost_count);
        const std::string& d = digest_of((*stale)[0]);
        const std::string origin = d.starts_with(kUnreadableTrace)
                                       ? " came from a trace that " + d.substr(kUnreadableTrace.size()) + " ("
                                       : " came from another base configuration (--gen, --config, --set) or "
                                         "another version of the trace (";
        throw OutputError(OutputError::Kind::refused,
                          "--out " + o.out + ": " + rows(rerun + lost_count) + origin + (*stale)[0] +
                              (point.empty() ? "" : ", " + point) + "), and " + fate +
                              ". Write this sweep to another --out, or pass --force to " +
                              (lost_count ? "drop them" : "replace them"));
    }
    std::erase_if(existing, [&](const Row& r) { return r[digest_col] != digest_of(r[0]); });
    if (rerun)
        err << "sbufsim sweep: " << rows(rerun) << " of " << o.out
            << " came from another base configuration (--gen, --config, --set) or another version of the "
               "trace; they are run again (--force)\n";
    if (lost_count)
        err << "sbufsim sweep: " << rows(lost_count) << " of " << o.out
            << " came from another base configuration or another version of the trace and are not in this "
               "sweep: dropped (--force)\n";
}

Assembled assemble(const std::vector<Job>& jobs, std::pair<std::size_t, std::size_t> range,
                   std::map<std::string, Row>& have, std::size_t axes, const std::vector<Row>& existing) {
    Assembled a;
    for (std::size_t i = range.first; i < range.second; ++i) {
        const auto it = have.find(sweep::row_key(sweep::make_row(jobs[i], {}, "", ""), axes));
        if (it == have.end()) continue;
        a.own.push_back(it->second);
        have.erase(it);
    }
    a.rows = a.own;
    for (const auto& r : existing)
        if (have.count(sweep::row_key(r, axes))) a.rows.push_back(r), ++a.earlier;
    // Without earlier rows the table keeps the point order (shards concatenate to the whole).
    if (a.earlier) sweep::sort_by_point(a.rows, axes);
    return a;
}

}  // namespace sbufsim::app::sweep_parts
