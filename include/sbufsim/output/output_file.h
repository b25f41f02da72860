// Output files that never lose what the user already has (docs/cli.md, "What is written when").
//
// An OutputFile is opened before the work starts, so a path that cannot be written fails at once
// with the operating system's reason. A regular file is written to a temporary of its own in the
// target's directory (mkstemp: unique per process) and renamed over the target only by commit(),
// after every write, the flush, fsync and close succeeded; on any failure, or when the object is
// destroyed uncommitted, only that temporary is removed — never the target. A symlink is followed
// (its target is replaced, the link stays), a device or FIFO is written in place (never removed,
// never replaced), a directory is refused. An existing regular file is replaced only when it is
// empty, of the command's own kind (the caller's `own_kind` test of its first bytes) or `force` is
// set; a file the command reads (`inputs`) is never an output.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sbufsim {

// The words sbufsim puts near the start of each file it writes, where its kind test looks (a text
// trace's first-line comment, an SVG's leading comment, a PNG's Software text chunk, a VCD's first
// $comment): a file of the same form another tool wrote is the user's, replaced only with --force.
inline constexpr std::string_view kWrittenBy = "written by sbufsim";
// A waveform's first section, the comment the clocked scheduler's VCD writer starts with.
inline constexpr const char* kVcdMark =
    "written by sbufsim run --vcd; sbufsim replaces this file when told to write it again";

// Why an output failed: `refused` (the path may not or cannot be written: a usage error, found
// before any work) or `io` (a write, flush or close failed, e.g. the disk is full).
class OutputError : public std::runtime_error {
public:
    enum class Kind { refused, io };
    OutputError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

// A stream buffer straight on a file descriptor that keeps the errno of the first failed write
// (a std::ofstream or std::cout loses it), so "No space left on device" reaches the user.
class FdStreamBuf : public std::streambuf {
public:
    // `owned`: the descriptor is closed with the buffer.
    FdStreamBuf(int fd, bool owned);
    ~FdStreamBuf() override;
    FdStreamBuf(const FdStreamBuf&) = delete;
    FdStreamBuf& operator=(const FdStreamBuf&) = delete;
    int error() const { return error_; }   // errno of the first failure, 0 if none
    // Writes what is buffered; false (error() set) on failure.
    bool drain();
    // Drains, fsyncs when `sync` (a device that cannot sync is fine), closes an owned descriptor;
    // false (error() set) on failure.
    bool close(bool sync);

protected:
    int_type overflow(int_type c) override;
    int sync() override;

private:
    int fd_;
    bool owned_;
    int error_ = 0;
    // Not zeroed: a page of it is touched (and faulted in) only when output reaches it, which
    // for a command's few lines of stdout is one page of sixteen.
    static constexpr std::size_t kSize = std::size_t{1} << 16;
    std::unique_ptr<char[]> data_;
};

struct OutputPolicy {
    // What the file is, in messages: "--json file", "the converted trace".
    std::string role = "output";
    // True when an existing file starting with `head` (its first 4 KiB) is one this command writes
    // and may replace. Unset: only an empty file may be replaced without `force`.
    std::function<bool(std::string_view head)> own_kind;
    // What makes a file of that kind, for the refusal ("a text trace is this command's when its
    // first line is ..."); empty: not said.
    std::string own_kind_rule;
    bool force = false;
    // Files the command reads: none of them may be the output (compared by device and inode).
    std::vector<std::string> inputs;
    // The temporary's name ends with this (".vcd": SystemC's VCD writer appends ".vcd" to any
    // name that does not, so it writes into write_path() itself only when the name has it).
    std::string temp_suffix;
};

class OutputFile {
public:
    // Checks `path` and creates the temporary; throws OutputError(refused) with the reason and
    // the fix.
    OutputFile(const std::string& path, const OutputPolicy& policy);
    ~OutputFile();  // uncommitted: removes the temporary only
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    std::ostream& stream();
    // The path to hand to a program that writes the file itself (the temporary, or the device).
    const std::string& write_path() const { return write_path_; }
    // The path as given.
    const std::string& path() const { return path_; }
    // Flush, fsync, close and rename into place; throws OutputError(io) with the OS reason and
    // removes the temporary. Idempotent once it succeeded.
    void commit();
    // Throws OutputError(io) with the OS reason (and removes the temporary) when a write has
    // failed so far; a caller whose writer reports only "the stream failed" asks here why.
    void check();
    // Removes the temporary now (a failure elsewhere means this output must not appear).
    void discard();

private:
    std::string path_, target_, write_path_;
    int temp_slot_ = -1;  // in the registry remove_temporaries_on_signals() empties
    bool in_place_ = false, done_ = false;
    int mode_ = 0;
    std::unique_ptr<FdStreamBuf> buf_;
    std::unique_ptr<std::ostream> os_;
};

// From now on SIGINT, SIGTERM and SIGHUP (Ctrl-C, `kill`, a Slurm pre-emption) first remove the
// temporaries of this process's OutputFiles not yet committed, then end the process as the signal
// would have. For a program's main(): it replaces those signals' handlers (the Python module,
// whose interpreter has its own, does not call it). A forked child (a sweep's worker) that gets
// one of them leaves its parent's temporaries alone.
void remove_temporaries_on_signals();

// A private scratch folder of this process: made by mkdtemp (mode 700, a random name, so no
// other user can plant a file or link in it and two processes never share one, even with equal
// PIDs in two containers sharing /tmp), never reused, and removed with everything in it by the
// destructor and by the signal handler of remove_temporaries_on_signals().
class ScratchDir {
public:
    // `prefix` ("sbufsim-nki") in $TMPDIR (else /tmp); throws OutputError(refused) with the OS
    // reason when it cannot be made.
    explicit ScratchDir(const std::string& prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
    int slot_ = -1;
};

// A child process group (a spawned program and all it starts, e.g. the NKI tracer and its sweep
// workers) that a fatal signal to this process ends too: the handler of
// remove_temporaries_on_signals() sends it SIGTERM, gives it two seconds, then SIGKILL, and reaps
// its leader before removing the scratch folders. Register right after the spawn (the leader's
// pid is the group's id), release once the leader was reaped.
int register_child_group(int pgid);
void release_child_group(int slot);

// "signal 9 (SIGKILL)": how a child's death by a signal is reported.
std::string describe_signal(int sig);

// A program that writes its output file itself by name, without checking its writes (SystemC's
// VCD writer), is given `path()`: a FIFO in a private scratch folder. A thread copies what it
// writes into `file`'s stream, so every byte goes through the checked writes (a full disk is an
// error, a device is written in place, nothing is replaced before commit()). `name` is the FIFO's
// file name ("waveform.vcd"). finish() after the writer closed the file: waits for the copy; an
// error of the writes is then found by file.check().
class FifoCopy {
public:
    FifoCopy(OutputFile& file, const std::string& name);
    ~FifoCopy();  // stops the copy (the writer may not have closed its end) and removes the FIFO
    FifoCopy(const FifoCopy&) = delete;
    FifoCopy& operator=(const FifoCopy&) = delete;
    const std::string& path() const { return path_; }
    // The writer is done: copies to the end of what it wrote, then returns.
    void finish();

private:
    void copy();
    void stop(bool drain);
    OutputFile& file_;
    ScratchDir dir_;
    std::string path_;
    int read_fd_ = -1, hold_fd_ = -1, stop_fds_[2] = {-1, -1};
    std::thread thread_;
};

// The device and inode of an existing file (0,0 when it does not exist): two paths name the
// same file when these are equal.
struct FileId {
    unsigned long long dev = 0, ino = 0;
    bool exists() const { return dev != 0 || ino != 0; }
    bool operator==(const FileId&) const = default;
};
FileId file_id(const std::string& path);

// Throws OutputError(refused) when two of `paths` (ignoring "" and "-") name the same file or
// path: "--json and --csv both write F".
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& role_paths);

}  // namespace sbufsim
