/* hcemu_run.c - `hcemu-run -n N [--] PROGRAM ARGS...`: runs one job of N ranks, one process
 * each, on a shared job folder, and leaves nothing behind.
 *
 * Each rank gets HCEMU_RANK, HCEMU_RANK_SIZE, HCEMU_LOCAL_RANK, HCEMU_JOB_PATH, HCEMU_JOB_ID and
 * HCEMU_DEVICES (one host of a job over several: --world-size/--first-rank/--root add
 * HCEMU_ROOT, and --key-file HCEMU_KEY_FILE or --insecure-loopback HCEMU_INSECURE_LOOPBACK,
 * docs/MULTIHOST.md);
 * its stdout and stderr come back through pipes and are printed line by line with a
 * "[rank r] " prefix. The first failing rank stops the job and its status becomes ours.
 * Entry point: main(); one job is run_job(). Single-threaded: every event (child exit,
 * signal, output, deadline) arrives through one poll() loop. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/contract/job.h"
#include "common/contract/job_key.h"
#include "common/contract/layout.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "common/contract/settings.h"
#include "run_machine.h"

enum { EXIT_USAGE = 2, EXIT_TIMEOUT = 124, EXIT_INTERNAL = 1 };

/* How long ranks (and orphaned executors at the end) get between SIGTERM and SIGKILL. The
 * host library needs a moment to close its devices and reap its executors. */
#define GRACE_MS 3000
#define LINE_MAX_BYTES 65536

struct options {
    uint32_t ranks;      /* ranks started here */
    uint32_t world;      /* ranks of the job over all hosts (--world-size; default `ranks`) */
    uint32_t first;      /* global rank of our first rank (--first-rank) */
    const char *root;    /* HOST:PORT of rank 0's rendezvous listener (--root), or NULL */
    char key_file[PATH_MAX]; /* the job's key file, absolute (--key-file), or "" */
    bool insecure_loopback;  /* --insecure-loopback */
    uint32_t schedules; /* 0: one plain run without HCEMU_SEED */
    double timeout_s;   /* 0: none */
    char **argv;        /* PROGRAM ARGS..., NULL-terminated */
};

/* Output of one pipe, cut into lines. */
struct line_buf {
    int fd;  /* read end, -1 after EOF */
    int out; /* where prefixed lines go: 1 or 2 */
    size_t used;
    char data[LINE_MAX_BYTES];
};

struct rank_proc {
    pid_t pid; /* also the rank's process group id */
    bool done;
    int status;               /* wait status once done */
    struct line_buf pipes[2]; /* stdout, stderr */
};

struct job {
    const struct options *opt;
    unsigned seed; /* 0 = no HCEMU_SEED */
    char dir[PATH_MAX];
    char id[64];
    int sigfd;
    struct rank_proc *ranks;
    uint32_t live; /* ranks not reaped yet */
    /* Why the job is being stopped (first cause wins). */
    int fail_rank;   /* -1 none */
    int fail_status; /* our exit code for that failure */
    int interrupted; /* signal number forwarded to the ranks, 0 none */
    bool timed_out;
    uint64_t kill_at_ns;         /* SIGKILL the ranks left at this time; 0 none */
    uint64_t timeout_at_ns;      /* 0 none */
    uint64_t orphans_kill_at_ns; /* SIGKILL leftover descendants at this time; 0 not armed */
};

static void usage(FILE *f)
{
    fprintf(f, "usage: hcemu-run -n N [--schedules K] [--timeout S]\n"
               "                 [--world-size W --first-rank R --root HOST:PORT\n"
               "                  (--key-file FILE | --insecure-loopback)]\n"
               "                 [--] PROGRAM [ARGS...]\n"
               "       hcemu-run --make-key FILE\n"
               "       hcemu-run --machine | --machine-cost OPERATOR:RANKS:SIZE\n"
               "  one host of a multi-host job: ranks R..R+N-1 of W run here, rank 0's process\n"
               "  listens on HOST:PORT for the other hosts' ranks, which must prove they hold\n"
               "  the job's key (the same FILE on every host, made by --make-key; or HCEMU_KEY /\n"
               "  HCEMU_KEY_FILE in the environment). --insecure-loopback: no key, for a job on\n"
               "  this machine with a 127.x root (any local user can then join it)\n"
               "  --machine: this machine's figures for the collectives' wall-clock cost model\n"
               "  (exported to the ranks as HCEMU_MACHINE) and the algorithms they choose;\n"
               "  --machine-cost: the modelled time of each algorithm for one call, e.g.\n"
               "  allreduce:8:128K\n");
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    /* One write, so the line cannot be split by the ranks' output. */
    if (write(STDERR_FILENO, "hcemu-run: ", 11) < 0 || write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
}

static uint64_t now_ns(void)
{
    return emu_os_now_ns();
}

/* ---- option parsing --------------------------------------------------------------------- */

static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;

    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < lo || v > hi)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* --key-file: the file must hold a key only we can read; the ranks get its absolute path. */
static bool check_key_file(const char *path, char *abs, size_t len)
{
    uint8_t key[EMU_JOB_KEY_BYTES];
    char why[200];

    if (emu_job_key_read_file(path, key, why, sizeof(why)) != EMU_OK) {
        fprintf(stderr, "hcemu-run: --key-file %s: %s\n", path, why);
        return false;
    }
    memset(key, 0, sizeof(key));
    if (realpath(path, abs) == NULL || strlen(abs) >= len) {
        fprintf(stderr, "hcemu-run: --key-file %s: %s\n", path, strerror(errno));
        return false;
    }
    return true;
}

static int make_key(const char *path)
{
    char why[200];

    if (emu_job_key_make_file(path, why, sizeof(why)) != EMU_OK) {
        fprintf(stderr, "hcemu-run: --make-key %s: %s\n", path, why);
        return EXIT_USAGE;
    }
    fprintf(stderr, "hcemu-run: wrote a new key to %s (mode 0600): give it to every host of "
                    "the job with --key-file\n", path);
    return 0;
}

/* Whether the HOST of HOST:PORT is an IPv4 loopback address (127.x). */
static bool root_is_loopback(const char *root)
{
    char host[256];
    const char *colon = strrchr(root, ':');
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;

    snprintf(host, sizeof(host), "%.*s", (int)(colon - root), root);
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || res == NULL)
        return false;
    uint32_t ip = ntohl(((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr);
    freeaddrinfo(res);
    return (ip >> 24) == 127;
}

/* A job with --root needs a key nobody else can derive: refuse to start without one. */
static bool root_has_key(const struct options *opt)
{
    if (opt->insecure_loopback) {
        if (root_is_loopback(opt->root))
            return true;
        fprintf(stderr, "hcemu-run: --insecure-loopback needs a root on this machine's loopback "
                        "(127.x), not %s: other hosts would join with a key anyone can derive\n",
                opt->root);
        return false;
    }
    if (opt->key_file[0] != '\0' || emu_settings_is_set(EMU_SET_KEY) ||
        emu_settings_is_set(EMU_SET_KEY_FILE))
        return true;
    fprintf(stderr, "hcemu-run: --root needs the job's key: --key-file FILE on every host (make "
                    "one with hcemu-run --make-key FILE) or HCEMU_KEY / HCEMU_KEY_FILE in the "
                    "environment; for a job on this machine only, --insecure-loopback with a "
                    "127.x root\n");
    return false;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
    static const struct option longs[] = {
        {"np", required_argument, NULL, 'n'},
        {"schedules", required_argument, NULL, 's'},
        {"timeout", required_argument, NULL, 't'},
        {"world-size", required_argument, NULL, 'w'},
        {"first-rank", required_argument, NULL, 'f'},
        {"root", required_argument, NULL, 'r'},
        {"secret", required_argument, NULL, 'S'},
        {"key-file", required_argument, NULL, 'K'},
        {"make-key", required_argument, NULL, 'M'},
        {"insecure-loopback", no_argument, NULL, 'L'},
        {"machine", no_argument, NULL, 'm'},
        {"machine-cost", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    char *end;

    /* '+': stop at PROGRAM, so its own options are not taken for ours. */
    while ((c = getopt_long(argc, argv, "+n:h", longs, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!parse_u32(optarg, 1, EMU_MAX_DEVICES, &opt->ranks)) {
                fprintf(stderr, "hcemu-run: -n %s: the rank count must be 1..%u\n", optarg,
                        EMU_MAX_DEVICES);
                return EXIT_USAGE;
            }
            break;
        case 's':
            if (!parse_u32(optarg, 1, 1000000, &opt->schedules)) {
                fprintf(stderr, "hcemu-run: --schedules %s: expected a count >= 1\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            errno = 0;
            opt->timeout_s = strtod(optarg, &end);
            if (errno != 0 || end == optarg || *end != '\0' || !(opt->timeout_s > 0) ||
                opt->timeout_s > 1e7) {
                fprintf(stderr, "hcemu-run: --timeout %s: expected seconds > 0\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'w':
        case 'f':
            if (!parse_u32(optarg, c == 'w' ? 1 : 0, 1u << 20, c == 'w' ? &opt->world : &opt->first)) {
                fprintf(stderr, "hcemu-run: --%s %s: expected a rank %s\n",
                        c == 'w' ? "world-size" : "first-rank", optarg,
                        c == 'w' ? "count >= 1" : "number");
                return EXIT_USAGE;
            }
            break;
        case 'r':
            if (strchr(optarg, ':') == NULL) {
                fprintf(stderr, "hcemu-run: --root %s: expected HOST:PORT\n", optarg);
                return EXIT_USAGE;
            }
            opt->root = optarg;
            break;
        case 'S':
            fprintf(stderr, "hcemu-run: --secret is refused: a command line is readable by every "
                            "user of this machine (/proc/PID/cmdline); make a key file with "
                            "hcemu-run --make-key FILE, copy it to every host and give "
                            "--key-file FILE\n");
            return EXIT_USAGE;
        case 'K':
            if (!check_key_file(optarg, opt->key_file, sizeof(opt->key_file)))
                return EXIT_USAGE;
            break;
        case 'M':
            exit(make_key(optarg));
        case 'L':
            opt->insecure_loopback = true;
            break;
        case 'm':
            exit(run_machine_print());
        case 'C':
            exit(run_machine_costs(optarg));
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (opt->ranks == 0 || optind >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (opt->world == 0)
        opt->world = opt->ranks;
    if (opt->first + opt->ranks > opt->world || (opt->world > opt->ranks && opt->root == NULL)) {
        fprintf(stderr, "hcemu-run: ranks %u..%u do not fit a job of %u%s\n", opt->first,
                opt->first + opt->ranks - 1, opt->world,
                opt->root == NULL ? " (a job spread over hosts needs --root HOST:PORT)" : "");
        return EXIT_USAGE;
    }
    if (opt->root != NULL && !root_has_key(opt))
        return EXIT_USAGE;
    opt->argv = &argv[optind];
    return 0;
}

/* ---- output relay ----------------------------------------------------------------------- */

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* our own output is gone (closed pipe): nothing sensible to do */
        p += w;
        n -= (size_t)w;
    }
}

/* Prints "[rank r] <line>\n" with a single write, so lines of different ranks never mix. */
static void emit_line(int out, uint32_t rank, const char *line, size_t len)
{
    char buf[LINE_MAX_BYTES + 32];
    int n = snprintf(buf, 32, "[rank %u] ", rank);

    memcpy(buf + n, line, len);
    buf[n + len] = '\n';
    write_all(out, buf, (size_t)n + len + 1);
}

/* Emits every complete line; with `flush` also the unterminated tail (at EOF). */
static void relay_lines(struct line_buf *b, uint32_t rank, bool flush)
{
    size_t start = 0;

    for (size_t i = 0; i < b->used; i++) {
        if (b->data[i] == '\n') {
            emit_line(b->out, rank, b->data + start, i - start);
            start = i + 1;
        }
    }
    /* A line longer than the buffer is cut rather than held forever. */
    if (start < b->used && (flush || (start == 0 && b->used == sizeof(b->data)))) {
        emit_line(b->out, rank, b->data + start, b->used - start);
        start = b->used;
    }
    memmove(b->data, b->data + start, b->used - start);
    b->used -= start;
}

/* Reads what the pipe has now; closes it at EOF. */
static void drain_pipe(struct line_buf *b, uint32_t rank)
{
    while (b->fd >= 0) {
        ssize_t n = read(b->fd, b->data + b->used, sizeof(b->data) - b->used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            relay_lines(b, rank, true);
            close(b->fd);
            b->fd = -1;
            return;
        }
        b->used += (size_t)n;
        relay_lines(b, rank, false);
    }
}

/* ---- starting ranks --------------------------------------------------------------------- */

/* Runs in the child between fork and exec: single-threaded parent, so setenv is safe. */
static void exec_rank(const struct job *job, uint32_t r, int out_fd, int err_fd,
                      const sigset_t *old_mask, pid_t parent)
{
    char v[32];

    /* Its own process group: Ctrl-C reaches only us, and we forward it exactly once; a stop
     * signal to the group also reaches the rank's helpers (not its executors, which run in
     * detached from the terminal by setsid and end when the rank hangs up). */
    setpgid(0, 0);
    /* If hcemu-run dies, the ranks must not live on (SIGTERM lets them clean up). */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(EXIT_INTERNAL);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(err_fd, STDERR_FILENO) < 0)
        _exit(EXIT_INTERNAL);
    snprintf(v, sizeof(v), "%u", job->opt->first + r);
    setenv("HCEMU_RANK", v, 1);
    snprintf(v, sizeof(v), "%u", job->opt->world);
    setenv("HCEMU_RANK_SIZE", v, 1);
    snprintf(v, sizeof(v), "%u", r);
    setenv("HCEMU_LOCAL_RANK", v, 1);
    setenv("HCEMU_JOB_PATH", job->dir, 1);
    setenv("HCEMU_JOB_ID", job->id, 1);
    if (job->opt->root != NULL) {
        /* Every host derives the same root info: the job is named by its root. */
        char id[sizeof(job->id) + 256];
        snprintf(id, sizeof(id), "root-%s", job->opt->root);
        setenv("HCEMU_JOB_ID", id, 1);
        setenv("HCEMU_ROOT", job->opt->root, 1);
    }
    if (job->opt->key_file[0] != '\0')
        setenv("HCEMU_KEY_FILE", job->opt->key_file, 1);
    if (job->opt->insecure_loopback)
        setenv("HCEMU_INSECURE_LOOPBACK", "1", 1);
    if (getenv("HCEMU_DEVICES") == NULL) {
        snprintf(v, sizeof(v), "%u", job->opt->ranks > 8 ? job->opt->ranks : 8);
        setenv("HCEMU_DEVICES", v, 1);
    }
    if (job->seed != 0) {
        snprintf(v, sizeof(v), "%u", job->seed);
        setenv("HCEMU_SEED", v, 1);
    }
    /* Undo what we changed for ourselves: exec keeps the mask and ignored signals. */
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    execvp(job->opt->argv[0], job->opt->argv);
    dprintf(STDERR_FILENO, "hcemu-run: cannot run %s: %s\n", job->opt->argv[0], strerror(errno));
    _exit(127);
}

static int start_rank(struct job *job, uint32_t r, const sigset_t *old_mask)
{
    struct rank_proc *p = &job->ranks[r];
    int out[2], err[2];

    if (pipe2(out, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_rank(job, r, out[1], err[1], old_mask, parent);
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        return -1;
    }
    setpgid(pid, pid); /* also here, so a signal sent before the child ran still finds it */
    p->pid = pid;
    p->pipes[0] = (struct line_buf){.fd = out[0], .out = STDOUT_FILENO};
    p->pipes[1] = (struct line_buf){.fd = err[0], .out = STDERR_FILENO};
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    job->live++;
    return 0;
}

/* ---- stopping ----------------------------------------------------------------------------- */

static void signal_ranks(struct job *job, int sig)
{
    for (uint32_t r = 0; r < job->opt->ranks; r++)
        if (job->ranks[r].pid > 0 && !job->ranks[r].done)
            kill(-job->ranks[r].pid, sig);
}

/* Asks every rank still running to stop and arms the SIGKILL that follows. */
static void stop_ranks(struct job *job, int sig)
{
    signal_ranks(job, sig);
    if (job->kill_at_ns == 0)
        job->kill_at_ns = now_ns() + GRACE_MS * 1000000ull;
}

/* Our direct children that are not ranks: executors and other helpers orphaned by a rank
 * that ended (we are their subreaper). Only called once every rank is gone. */
static void kill_orphans(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t me = getpid();

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        char path[300], buf[512];
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0)
            continue;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        /* "pid (comm) state ppid ...": comm may hold spaces, so parse after the last ')'. */
        char *rp = strrchr(buf, ')');
        int ppid = 0;
        char state;
        if (rp != NULL && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == me) {
            say("process %d was left behind by the job; killing it", (int)pid);
            kill(pid, SIGKILL);
        }
    }
    closedir(d);
}

static int exit_code_of(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_INTERNAL;
}

static void on_rank_exit(struct job *job, uint32_t r, int status)
{
    job->ranks[r].done = true;
    job->ranks[r].status = status;
    job->live--;
    bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Ranks that die from our own stop signal are consequences, not causes. */
    if (!failed || job->fail_rank >= 0 || job->interrupted != 0 || job->timed_out)
        return;
    job->fail_rank = (int)r;
    job->fail_status = exit_code_of(status);
    if (WIFSIGNALED(status))
        say("rank %u was killed by signal %d (%s); stopping the job", r, WTERMSIG(status),
            strsignal(WTERMSIG(status)));
    else
        say("rank %u exited with status %d; stopping the job", r, job->fail_status);
    stop_ranks(job, SIGTERM);
}

static void reap_children(struct job *job)
{
    int status;
    pid_t pid;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (uint32_t r = 0; r < job->opt->ranks; r++)
            if (job->ranks[r].pid == pid && !job->ranks[r].done)
                on_rank_exit(job, r, status);
        /* Any other pid is an orphaned descendant; reaping it is all we owe it. */
    }
}

static void on_signal(struct job *job, int sig)
{
    if (sig == SIGCHLD) {
        reap_children(job);
        return;
    }
    if (job->interrupted != 0) {
        say("second signal %d: killing the job", sig);
        signal_ranks(job, SIGKILL);
        job->kill_at_ns = now_ns();
        return;
    }
    job->interrupted = sig;
    stop_ranks(job, sig);
}

static void on_deadlines(struct job *job)
{
    uint64_t now = now_ns();

    if (job->timeout_at_ns != 0 && now >= job->timeout_at_ns && !job->timed_out && job->live > 0) {
        job->timed_out = true;
        say("the job did not finish within %g s; stopping it", job->opt->timeout_s);
        stop_ranks(job, SIGTERM);
    }
    if (job->kill_at_ns != 0 && now >= job->kill_at_ns && job->live > 0) {
        say("ranks still running %d ms after the stop signal; killing them", GRACE_MS);
        signal_ranks(job, SIGKILL);
        job->kill_at_ns = UINT64_MAX; /* once */
    }
    if (job->orphans_kill_at_ns != 0 && now >= job->orphans_kill_at_ns) {
        kill_orphans();
        job->orphans_kill_at_ns = UINT64_MAX;
    }
}

/* ---- the event loop --------------------------------------------------------------------- */

static bool has_children(void)
{
    /* waitid with WNOWAIT peeks without reaping; ECHILD means nobody is left. */
    siginfo_t si;

    memset(&si, 0, sizeof(si));
    return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

static int next_timeout_ms(const struct job *job)
{
    uint64_t next = UINT64_MAX, now = now_ns();
    const uint64_t ds[] = {job->timeout_at_ns, job->kill_at_ns, job->orphans_kill_at_ns};

    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
        if (ds[i] != 0 && ds[i] != UINT64_MAX && ds[i] < next)
            next = ds[i];
    if (job->live == 0)
        return 50; /* poll for the last orphans: no SIGCHLD if they already went */
    if (next == UINT64_MAX)
        return -1;
    return next <= now ? 0 : (int)((next - now) / 1000000 + 1);
}

/* Runs until every rank has ended and every descendant is gone. fds has room for the
 * signalfd and two pipes per rank. */
static void event_loop(struct job *job, struct pollfd *fds)
{
    uint32_t n = job->opt->ranks;

    for (;;) {
        nfds_t k = 0;
        fds[k++] = (struct pollfd){.fd = job->sigfd, .events = POLLIN};
        for (uint32_t r = 0; r < n; r++)
            for (int i = 0; i < 2; i++)
                fds[k++] = (struct pollfd){.fd = job->ranks[r].pipes[i].fd, .events = POLLIN};
        if (job->live == 0) {
            reap_children(job);
            /* Once every rank is gone, what remains are orphaned executors ending on their
             * own; give them the grace period, then kill them. */
            if (job->orphans_kill_at_ns == 0)
                job->orphans_kill_at_ns = now_ns() + GRACE_MS * 1000000ull;
            if (!has_children())
                break;
        }
        int rc = poll(fds, k, next_timeout_ms(job));
        if (rc < 0 && errno != EINTR) {
            say("poll: %s; killing the job", strerror(errno));
            signal_ranks(job, SIGKILL);
            break;
        }
        if (rc > 0 && (fds[0].revents & POLLIN)) {
            struct signalfd_siginfo si;
            while (read(job->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                on_signal(job, (int)si.ssi_signo);
        }
        for (uint32_t r = 0; rc > 0 && r < n; r++)
            for (int i = 0; i < 2; i++)
                if (fds[1 + 2 * r + (uint32_t)i].revents & (POLLIN | POLLHUP | POLLERR))
                    drain_pipe(&job->ranks[r].pipes[i], job->opt->first + r);
        on_deadlines(job);
    }
    /* Every writer is gone: what is left in the pipes is the last output of the job. */
    for (uint32_t r = 0; r < n; r++)
        for (int i = 0; i < 2; i++)
            drain_pipe(&job->ranks[r].pipes[i], job->opt->first + r);
}

/* ---- one job ---------------------------------------------------------------------------- */

static int make_job_dir(struct job *job)
{
    const char *parent = emu_settings_str(EMU_SET_JOB_DIR);

    /* A fresh private folder with a random name (common/contract/job.h); the ranks join its owners,
     * so a later job start collects it if we are killed and they are gone. */
    if (emu_job_make(parent, "run", job->dir, sizeof(job->dir) - 64) != EMU_OK) {
        say("cannot create a private job folder in %s (see the message above)", parent);
        return -1;
    }
    return 0;
}

/* Runs the job once; returns our exit code. *interrupted receives the signal that stopped
 * it, if any, so a schedule sweep ends on Ctrl-C instead of blaming the seed. */
static int run_job(const struct options *opt, unsigned seed, int sigfd, const sigset_t *old_mask,
                   int *interrupted)
{
    static unsigned runs;
    struct job job = {.opt = opt, .seed = seed, .sigfd = sigfd, .fail_rank = -1};
    struct timespec ts;
    int code = 0;

    clock_gettime(CLOCK_REALTIME, &ts);
    /* Unique on this machine: our pid, the run number and the wall clock. */
    snprintf(job.id, sizeof(job.id), "%d-%u-%llx", (int)getpid(), runs++,
             (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
    if (make_job_dir(&job) != 0)
        return EXIT_INTERNAL;
    job.ranks = calloc(opt->ranks, sizeof(*job.ranks));
    struct pollfd *fds = calloc(2 * (size_t)opt->ranks + 1, sizeof(*fds));
    if (job.ranks == NULL || fds == NULL) {
        free(job.ranks);
        free(fds);
        say("out of memory");
        emu_secure_dir_remove(job.dir);
        return EXIT_INTERNAL;
    }
    for (uint32_t r = 0; r < opt->ranks; r++)
        job.ranks[r].pipes[0].fd = job.ranks[r].pipes[1].fd = -1;
    if (opt->timeout_s > 0)
        job.timeout_at_ns = now_ns() + (uint64_t)(opt->timeout_s * 1e9);
    for (uint32_t r = 0; r < opt->ranks; r++) {
        if (start_rank(&job, r, old_mask) != 0) {
            say("cannot start rank %u: %s; stopping the job", r, strerror(errno));
            job.fail_rank = (int)r;
            job.fail_status = EXIT_INTERNAL;
            stop_ranks(&job, SIGTERM);
            break;
        }
    }
    event_loop(&job, fds);
    *interrupted = job.interrupted;
    if (job.timed_out)
        code = EXIT_TIMEOUT;
    else if (job.fail_rank >= 0)
        code = job.fail_status;
    else if (job.interrupted != 0)
        code = 128 + job.interrupted;
    free(fds);
    free(job.ranks);
    emu_secure_dir_remove(job.dir);
    return code;
}

int main(int argc, char **argv)
{
    struct options opt = {0};
    sigset_t mask, old_mask;

    int rc = parse_options(argc, argv, &opt);
    if (rc != 0)
        return rc;
    emu_os_raise_nofile(); /* two pipes per rank; ranks inherit the raised limit */
    run_machine_export(opt.root != NULL);
    /* Orphaned executors (started by a rank that died) become our children, so we can reap
     * them and the job leaves no process behind. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        say("cannot become a subreaper (%s); orphaned executors may outlive the job",
            strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, &old_mask);
    int sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sigfd < 0) {
        say("signalfd: %s", strerror(errno));
        return EXIT_INTERNAL;
    }
    int interrupted = 0;
    if (opt.schedules == 0)
        return run_job(&opt, 0, sigfd, &old_mask, &interrupted);
    for (uint32_t seed = 1; seed <= opt.schedules; seed++) {
        rc = run_job(&opt, seed, sigfd, &old_mask, &interrupted);
        if (interrupted != 0)
            return rc;
        if (rc != 0) {
            say("schedule HCEMU_SEED=%u fails (exit status %d)", seed, rc);
            return rc;
        }
    }
    say("all %u schedules (HCEMU_SEED=1..%u) pass", opt.schedules, opt.schedules);
    return 0;
}
