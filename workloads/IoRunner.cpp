#include "workloads/IoRunner.h"

#include "workloads/WorkloadError.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <liburing.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace tierscope {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kAlign = 4096;
constexpr int kReplaced = 1 << 20; // openFile(): not an errno, the file is not the job's

double seconds(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

std::uint64_t splitmix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct Range {
    std::uint64_t offset;
    std::uint64_t length;
};

struct OpenFile {
    int fd = -1;
    std::size_t index = 0; // position in the job's flattened file list
    std::string path;
    std::uint64_t size = 0;
    std::uint64_t next = 0;    // sequential cursor
    std::uint64_t opsLeft = 0; // random reads still to issue
    std::deque<Range> retries; // rest of short transfers
    int pending = 0;
    bool issuedAll = false;
    bool syncing = false;
    bool synced = false;
    Clock::time_point start;
};

struct Slot {
    int stream = -1;
    std::size_t nextFile = 0;
    std::deque<std::unique_ptr<OpenFile>> files;
    Clock::time_point start;
    int inflight = 0;
};

struct Op {
    Slot* slot = nullptr;
    OpenFile* file = nullptr;
    int buffer = -1; // -1: fsync
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
};

struct AlignedFree {
    void operator()(void* p) const { std::free(p); }
};

class Engine {
  public:
    Engine(const IoJob& job, std::atomic<std::uint64_t>& read, std::atomic<std::uint64_t>& written)
        : m_job(job), m_read(read), m_written(written), m_random(job.seed) {}

    IoRunner::Result run(const std::atomic<bool>* cancel);

  private:
    void setUp();
    void assignStreams();
    void fill(Slot& slot);
    bool openNext(Slot& slot);
    int openFile(const FileSpan& span);
    int checkOpened(int fd, const FileSpan& span);
    bool issue(Slot& slot, OpenFile& f);
    void issueSync(Slot& slot, OpenFile& f);
    std::optional<Range> nextRange(OpenFile& f);
    void complete(Op& op, int res);
    void settle(Slot& slot);
    void fail(WorkloadError error);
    io_uring_sqe* sqe();

    const IoJob& m_job;
    std::atomic<std::uint64_t>& m_read;
    std::atomic<std::uint64_t>& m_written;
    std::uint64_t m_random;
    io_uring m_ring{};
    bool m_ringReady = false;
    std::unique_ptr<char, AlignedFree> m_memory;
    std::vector<int> m_freeBuffers;
    std::vector<Op> m_ops;
    std::vector<int> m_freeOps;
    std::vector<Slot> m_slots;
    std::vector<std::size_t> m_fileBase; // first flattened file index of each stream
    std::size_t m_nextStream = 0;
    std::uint64_t m_stamp = 0;
    int m_inflight = 0;
    std::optional<WorkloadError> m_error;
    bool m_stopping = false;
    Clock::time_point m_start;
    IoRunner::Result m_result;

  public:
    ~Engine() {
        for (auto& slot : m_slots)
            for (auto& f : slot.files)
                if (f->fd >= 0)
                    close(f->fd);
        if (m_ringReady)
            io_uring_queue_exit(&m_ring);
    }
};

void Engine::setUp() {
    const int slots = std::max(1, m_job.concurrency);
    const int depth = std::max(1, m_job.depth);
    const int buffers = slots * depth;
    const int entries = std::min(4096, buffers + slots); // + one fsync per slot
    // One thread submits and reaps, so completions can wait until it asks for them instead of
    // interrupting it (DEFER_TASKRUN, COOP_TASKRUN). Older kernels refuse these flags and get
    // the plainer ring.
    int rc = -EINVAL;
    for (const unsigned flags :
         {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN,
          unsigned(IORING_SETUP_COOP_TASKRUN), 0u}) {
        rc = io_uring_queue_init(static_cast<unsigned>(entries), &m_ring, flags);
        if (rc != -EINVAL)
            break;
    }
    if (rc < 0)
        throw WorkloadError(WorkloadError::Kind::Io, std::string("cannot set up io_uring: ") +
                                                         std::strerror(-rc) +
                                                         " (is io_uring disabled by sysctl "
                                                         "kernel.io_uring_disabled?)");
    m_ringReady = true;
    void* memory = nullptr;
    if (posix_memalign(&memory, kAlign, static_cast<std::size_t>(buffers) * m_job.blockSize) != 0)
        throw WorkloadError(WorkloadError::Kind::Io, "cannot allocate I/O buffers");
    m_memory.reset(static_cast<char*>(memory));
    if (m_job.write) {
        // Incompressible contents; each 4 KiB block is stamped per write below, so arrays that
        // deduplicate cannot collapse the data either.
        auto* words = reinterpret_cast<std::uint64_t*>(m_memory.get());
        const std::size_t count = static_cast<std::size_t>(buffers) * m_job.blockSize / 8;
        std::uint64_t state = m_job.seed ^ 0x5eed;
        for (std::size_t i = 0; i < count; ++i)
            words[i] = splitmix(state);
    }
    for (int i = buffers - 1; i >= 0; --i)
        m_freeBuffers.push_back(i);
    m_ops.resize(static_cast<std::size_t>(buffers) + static_cast<std::size_t>(slots));
    for (int i = static_cast<int>(m_ops.size()) - 1; i >= 0; --i)
        m_freeOps.push_back(i);
    m_slots = std::vector<Slot>(static_cast<std::size_t>(slots));
    std::size_t base = 0;
    for (const auto& stream : m_job.streams) {
        m_fileBase.push_back(base);
        base += stream.size();
    }
    m_result.fileSeconds.assign(base, 0.0);
    m_result.streamSeconds.assign(m_job.streams.size(), 0.0);
}

void Engine::fail(WorkloadError error) {
    if (!m_error)
        m_error = std::move(error);
    m_stopping = true;
}

// Requests go to the kernel one by one, as fio's do: the one prepared before is handed over
// as the next is prepared, and the last goes with the wait in run(), so a request costs one
// io_uring_enter however the completions come. Handing over the refills for a whole batch of
// completions at once measured 8-13 % below fio on 4 KiB random reads at QD 64 on a virtio
// disk; one by one, at par (docs/PERFORMANCE.md). Null when the ring is full because the
// kernel refused a submit; the wait in run() then reports why.
io_uring_sqe* Engine::sqe() {
    if (io_uring_sq_ready(&m_ring) > 0)
        io_uring_submit(&m_ring);
    return io_uring_sq_space_left(&m_ring) > 0 ? io_uring_get_sqe(&m_ring) : nullptr;
}

void Engine::assignStreams() {
    for (auto& slot : m_slots) {
        if (m_stopping || slot.stream >= 0 || m_nextStream >= m_job.streams.size())
            continue;
        slot.stream = static_cast<int>(m_nextStream++);
        slot.nextFile = 0;
        slot.start = Clock::now();
        settle(slot); // a stream of no files (or empty files) ends at once
    }
}

int Engine::openFile(const FileSpan& span) {
    const int base = (m_job.write ? O_WRONLY : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW;
    if (m_job.write && m_job.create) {
        // Created without O_DIRECT first: a filesystem that refuses O_DIRECT may still create
        // the file before failing, and O_EXCL must only ever meet files of our own.
        const int fd = open(span.path.c_str(), base | O_CREAT | O_EXCL, 0600);
        if (fd < 0)
            return -errno;
        close(fd);
    }
    int fd = -1;
    std::string bufferedReason = "buffered I/O was requested";
    if (m_job.direct) {
        fd = open(span.path.c_str(), base | O_DIRECT);
        if (fd < 0 && errno != EINVAL)
            return -errno;
        bufferedReason = "the filesystem refused O_DIRECT";
    }
    const bool buffered = fd < 0;
    if (buffered && (fd = open(span.path.c_str(), base)) < 0)
        return -errno;
    if (const int error = checkOpened(fd, span); error != 0) {
        close(fd);
        return -error;
    }
    ++m_result.filesOpened;
    if (buffered) {
        ++m_result.filesBuffered;
        m_result.bufferedReason = bufferedReason;
    }
    return fd;
}

// The file opened must be the one the job was given: a name swapped for another file between
// creating and opening it is refused before a byte is written. Then, writes into allocated
// extents skip the per-write block allocation, and extending O_DIRECT writes serialize on
// ext4 and XFS; filesystems without fallocate write as is.
int Engine::checkOpened(int fd, const FileSpan& span) {
    if (span.inode != 0) {
        struct stat st {};
        if (fstat(fd, &st) != 0)
            return errno;
        if (static_cast<std::uint64_t>(st.st_ino) != span.inode || !S_ISREG(st.st_mode))
            return kReplaced;
    }
    if (m_job.write && m_job.preallocate && span.size > 0 &&
        fallocate(fd, 0, 0, static_cast<off_t>(span.size)) != 0 && errno != EOPNOTSUPP)
        return errno;
    return 0;
}

bool Engine::openNext(Slot& slot) {
    const auto& stream = m_job.streams[static_cast<std::size_t>(slot.stream)];
    if (slot.nextFile >= stream.size())
        return false;
    const FileSpan& span = stream[slot.nextFile];
    const int fd = openFile(span);
    if (fd < 0) {
        const int error = -fd;
        if (error == EEXIST)
            fail(WorkloadError(WorkloadError::Kind::Refused,
                               span.path + " already exists; refusing to overwrite it"));
        else if (error == kReplaced || (span.inode != 0 && error == ELOOP))
            fail(WorkloadError(WorkloadError::Kind::Refused,
                               span.path + " was replaced after tierscope created it; refusing "
                                           "to write it"));
        else
            fail(WorkloadError::fromErrno(error, "cannot open", span.path));
        return false;
    }
    auto f = std::make_unique<OpenFile>();
    f->fd = fd;
    f->index = m_fileBase[static_cast<std::size_t>(slot.stream)] + slot.nextFile;
    f->path = span.path;
    f->size = span.size;
    f->start = Clock::now();
    if (m_job.random && !m_job.write)
        f->opsLeft = m_job.randomOps > 0 ? m_job.randomOps
                                         : std::max<std::uint64_t>(1, span.size / m_job.blockSize);
    f->issuedAll = span.size == 0 || (m_job.random && f->opsLeft == 0);
    ++slot.nextFile;
    slot.files.push_back(std::move(f));
    return true;
}

std::optional<Range> Engine::nextRange(OpenFile& f) {
    if (!f.retries.empty()) {
        const Range r = f.retries.front();
        f.retries.pop_front();
        return r;
    }
    if (f.issuedAll)
        return std::nullopt;
    if (m_job.random && !m_job.write) {
        const std::uint64_t blocks = std::max<std::uint64_t>(1, f.size / m_job.blockSize);
        const std::uint64_t offset = (splitmix(m_random) % blocks) * m_job.blockSize;
        f.issuedAll = --f.opsLeft == 0;
        return Range{offset, std::min<std::uint64_t>(m_job.blockSize, f.size - offset)};
    }
    const Range r{f.next, std::min<std::uint64_t>(m_job.blockSize, f.size - f.next)};
    f.next += r.length;
    f.issuedAll = f.next >= f.size;
    return r;
}

bool Engine::issue(Slot& slot, OpenFile& f) {
    if (m_freeBuffers.empty() || m_freeOps.empty())
        return false;
    if (f.issuedAll && f.retries.empty())
        return false;
    io_uring_sqe* entry = sqe();
    if (!entry)
        return false;
    const auto range = nextRange(f); // present: checked above
    const int buffer = m_freeBuffers.back();
    m_freeBuffers.pop_back();
    const int id = m_freeOps.back();
    m_freeOps.pop_back();
    m_ops[static_cast<std::size_t>(id)] = {&slot, &f, buffer, range->offset, range->length};
    char* data = m_memory.get() + static_cast<std::size_t>(buffer) * m_job.blockSize;
    if (m_job.write) {
        for (std::uint64_t at = 0; at + 16 <= range->length; at += kAlign) {
            const std::uint64_t stamp[2] = {++m_stamp, range->offset + at};
            std::memcpy(data + at, stamp, sizeof stamp);
        }
        io_uring_prep_write(entry, f.fd, data, static_cast<unsigned>(range->length), range->offset);
    } else {
        // O_DIRECT wants aligned lengths; reading past the end of the file returns short.
        const std::uint64_t length = (range->length + kAlign - 1) / kAlign * kAlign;
        io_uring_prep_read(entry, f.fd, data,
                           static_cast<unsigned>(std::min<std::uint64_t>(length, m_job.blockSize)),
                           range->offset);
    }
    io_uring_sqe_set_data64(entry, static_cast<std::uint64_t>(id));
    ++f.pending;
    ++slot.inflight;
    ++m_inflight;
    return true;
}

void Engine::issueSync(Slot& slot, OpenFile& f) {
    io_uring_sqe* entry = m_freeOps.empty() ? nullptr : sqe();
    if (!entry)
        return;
    const int id = m_freeOps.back();
    m_freeOps.pop_back();
    m_ops[static_cast<std::size_t>(id)] = {&slot, &f, -1, 0, 0};
    io_uring_prep_fsync(entry, f.fd, 0);
    io_uring_sqe_set_data64(entry, static_cast<std::uint64_t>(id));
    f.syncing = true;
    ++f.pending;
    ++slot.inflight;
    ++m_inflight;
}

void Engine::fill(Slot& slot) {
    if (slot.stream < 0 || m_stopping)
        return;
    const int depth = std::max(1, m_job.depth);
    for (auto& f : slot.files)
        if (m_job.write && m_job.fsyncEachFile && f->issuedAll && f->retries.empty() &&
            f->pending == 0 && !f->syncing && !f->synced)
            issueSync(slot, *f);
    while (slot.stream >= 0 && slot.inflight < depth && !m_stopping) {
        OpenFile* target = nullptr;
        for (auto& f : slot.files)
            if (!f->retries.empty() || !f->issuedAll) {
                target = f.get();
                break;
            }
        if (!target) {
            if (!openNext(slot))
                return;
            settle(slot);
            continue;
        }
        if (!issue(slot, *target))
            return;
    }
}

void Engine::complete(Op& op, int res) {
    OpenFile& f = *op.file;
    Slot& slot = *op.slot;
    --f.pending;
    --slot.inflight;
    --m_inflight;
    if (op.buffer >= 0)
        m_freeBuffers.push_back(op.buffer);
    if (res < 0) {
        const char* what = op.buffer < 0 ? "cannot fsync"
                           : m_job.write ? "cannot write"
                                         : "cannot read";
        fail(WorkloadError::fromErrno(-res, what, f.path));
        return;
    }
    if (op.buffer < 0) {
        f.synced = true;
        return;
    }
    const auto done = static_cast<std::uint64_t>(res);
    const std::uint64_t wanted = op.length;
    const std::uint64_t counted = std::min(done, wanted);
    (m_job.write ? m_written : m_read).fetch_add(counted, std::memory_order_relaxed);
    if (counted < wanted) {
        if (done == 0) {
            fail(WorkloadError(WorkloadError::Kind::Io, f.path +
                                                            " is shorter than expected at offset " +
                                                            std::to_string(op.offset)));
            return;
        }
        f.retries.push_back({op.offset + counted, wanted - counted});
    }
}

void Engine::settle(Slot& slot) {
    // Only read the clock when something ends: at 100k IOPS per-completion clock reads show.
    std::optional<Clock::time_point> stamp;
    auto now = [&stamp] { return stamp ? *stamp : *(stamp = Clock::now()); };
    while (!slot.files.empty()) {
        OpenFile& f = *slot.files.front();
        const bool needsSync = m_job.write && m_job.fsyncEachFile && !f.synced;
        if (!f.issuedAll || !f.retries.empty() || f.pending > 0 || needsSync)
            break;
        close(f.fd);
        m_result.fileSeconds[f.index] = seconds(f.start, now());
        slot.files.pop_front();
    }
    const auto& stream = m_job.streams[static_cast<std::size_t>(slot.stream)];
    if (slot.files.empty() && slot.nextFile >= stream.size() && slot.inflight == 0) {
        m_result.streamSeconds[static_cast<std::size_t>(slot.stream)] = seconds(slot.start, now());
        slot.stream = -1;
    }
}

IoRunner::Result Engine::run(const std::atomic<bool>* cancel) {
    setUp();
    m_start = Clock::now();
    for (;;) {
        if (cancel && cancel->load() && !m_stopping) {
            m_stopping = true;
            m_result.cancelled = true;
        }
        assignStreams();
        for (auto& slot : m_slots)
            fill(slot);
        if (m_inflight == 0) {
            bool idle = true;
            for (const auto& slot : m_slots)
                idle = idle && slot.stream < 0;
            if (m_stopping || (idle && m_nextStream >= m_job.streams.size()))
                break;
            continue; // slots freed by settle() take new streams
        }
        io_uring_cqe* cqe = nullptr;
        const int rc = io_uring_submit_and_wait(&m_ring, 1);
        if (rc < 0 && rc != -EINTR) {
            fail(WorkloadError(WorkloadError::Kind::Io,
                               std::string("io_uring submit failed: ") + std::strerror(-rc)));
            break; // nothing more can be submitted, and nothing completes without a submit
        }
        unsigned head = 0, seen = 0;
        io_uring_for_each_cqe(&m_ring, head, cqe) {
            Op& op = m_ops[io_uring_cqe_get_data64(cqe)];
            Slot* slot = op.slot;
            complete(op, cqe->res);
            m_freeOps.push_back(static_cast<int>(&op - m_ops.data()));
            if (slot->stream >= 0)
                settle(*slot);
            ++seen;
        }
        io_uring_cq_advance(&m_ring, seen);
    }
    // Drain what is still in flight before the buffers go away.
    while (m_inflight > 0) {
        io_uring_cqe* cqe = nullptr;
        if (io_uring_wait_cqe(&m_ring, &cqe) < 0)
            break;
        Op& op = m_ops[io_uring_cqe_get_data64(cqe)];
        complete(op, cqe->res);
        io_uring_cqe_seen(&m_ring, cqe);
    }
    m_result.seconds = seconds(m_start, Clock::now());
    m_result.bytesRead = m_read.load();
    m_result.bytesWritten = m_written.load();
    if (m_error)
        throw *m_error;
    return m_result;
}

} // namespace

IoRunner::IoRunner(IoJob job) : m_job(std::move(job)) {}

IoRunner::Result IoRunner::run(const std::atomic<bool>* cancel) {
    Engine engine(m_job, m_bytesRead, m_bytesWritten);
    return engine.run(cancel);
}

} // namespace tierscope
