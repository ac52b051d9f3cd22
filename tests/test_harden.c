/* test_harden.c - shared places are private: job folders and files only their owner's job can
 * use (planted folders and files, symlinks, wrong modes, foreign owners), removal that never
 * follows a symlink, the dead-job collector, executors that end with their host, children a
 * kernel forks, FIFO and /dev/zero inputs refused at once, and HCCL buffers that cost only
 * the pages used.
 *
 * Foreign owners need a second user: as root the tests chown to `nobody` (65534) or fork and
 * setuid to it; as another user those cases are skipped with a message. Scenarios that need a
 * fresh process run this program again as "--child <scenario>" (rt_child_run). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "common/contract/job.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "rt_support.h"

#define NOBODY 65534u
#define KPATH(f) KERNEL_DIR "/" f
#define GONE_MS 5000

static char parent[128]; /* private parent of this program's job folders */

static int group_setup(void **state)
{
    (void)state;
    return rt_job_parent_make(parent, sizeof(parent));
}

static int group_teardown(void **state)
{
    (void)state;
    rt_job_parent_remove(parent);
    return 0;
}

static bool exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static void make_file(const char *path, unsigned mode, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(chmod(path, mode), 0);
}

/* A fresh folder under our parent, with `mode`. */
static void make_dir(char *out, size_t len, const char *name, unsigned mode)
{
    snprintf(out, len, "%s/%s", parent, name);
    assert_int_equal(mkdir(out, 0700), 0);
    assert_int_equal(chmod(out, mode), 0);
}

static aclError load(const char *path, aclrtBinHandle *bin)
{
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};

    opt.value.cpuKernelMode = 1;
    return aclrtBinaryLoadFromFile(path, &opts, bin);
}

/* Wait until `pid` is gone (or a zombie: it runs nothing). */
static bool pid_gone_within(int pid, int ms)
{
    uint64_t end = rt_now_ms() + (uint64_t)ms;

    while (emu_job_pid_start(pid) != 0) {
        if (rt_now_ms() >= end)
            return false;
        usleep(10000);
    }
    return true;
}

/* ---- job folders ------------------------------------------------------------------------- */

static void a_job_folder_is_fresh_private_and_records_its_owner(void **state)
{
    char a[RT_PATH], b[RT_PATH], owners[RT_PATH + 16], line[64], mine[32];
    struct stat st;
    (void)state;

    assert_int_equal(emu_job_make(parent, "", a, sizeof(a)), EMU_OK);
    assert_int_equal(emu_job_make(parent, "", b, sizeof(b)), EMU_OK);
    assert_string_not_equal(a, b); /* random suffixes: nothing to predict and pre-create */
    assert_int_equal(lstat(a, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(st.st_uid, geteuid());
    snprintf(owners, sizeof(owners), "%s/owners", a);
    FILE *f = fopen(owners, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof(line), f));
    fclose(f);
    snprintf(mine, sizeof(mine), "%d %llu\n", (int)getpid(),
             (unsigned long long)emu_job_pid_start((int)getpid()));
    assert_string_equal(line, mine);
    emu_secure_dir_remove(a);
    emu_secure_dir_remove(b);
    assert_false(exists(a));
    assert_false(exists(b));
}

static void a_planted_folder_symlink_or_open_mode_is_refused(void **state)
{
    char open_dir[RT_PATH], victim[RT_PATH], link[RT_PATH], own[RT_PATH], path[RT_PATH + 16];
    int fd = -1;
    (void)state;

    /* A folder anyone may write: its files could be anyone's. */
    make_dir(open_dir, sizeof(open_dir), "planted-open", 0777);
    assert_int_equal(emu_secure_dir_open(open_dir, &fd), EMU_EFILE);
    assert_int_equal(emu_job_claim(open_dir), EMU_EFILE);
    snprintf(path, sizeof(path), "%s/owners", open_dir);
    assert_false(exists(path));
    /* A symlink to someone's folder: never followed, never chmod'ed. */
    make_dir(victim, sizeof(victim), "victim", 0755);
    snprintf(path, sizeof(path), "%s/keep", victim);
    make_file(path, 0644, "victim's data");
    snprintf(link, sizeof(link), "%s/planted-link", parent);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(emu_secure_dir_open(link, &fd), EMU_EFILE);
    assert_int_equal(emu_job_claim(link), EMU_EFILE);
    struct stat st;
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    /* Files inside our own folder: open modes, symlinks and FIFOs are refused; an O_EXCL
     * create of a taken name says so without a log line. */
    make_dir(own, sizeof(own), "own", 0700);
    int d = -1;
    assert_int_equal(emu_secure_dir_open(own, &d), EMU_OK);
    snprintf(path, sizeof(path), "%s/dev0.mem", own);
    make_file(path, 0666, "");
    assert_int_equal(emu_secure_dir_open_at(d, own, "dev0.mem", O_RDWR, 0, &fd), EMU_EFILE);
    assert_int_equal(emu_secure_dir_open_at(d, own, "dev0.mem", O_RDWR | O_CREAT | O_EXCL, 0600,
                                            &fd),
                     EMU_EAGAIN);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(emu_secure_dir_open_at(d, own, "dev0.mem", O_RDWR, 0, &fd), EMU_OK);
    close(fd);
    snprintf(path, sizeof(path), "%s/dev0.ctl", own);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    assert_int_equal(emu_secure_dir_open_at(d, own, "dev0.ctl", O_RDWR, 0, &fd), EMU_EFILE);
    snprintf(path, sizeof(path), "%s/fifo", own);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(emu_secure_dir_open_at(d, own, "fifo", O_RDWR, 0, &fd), EMU_EFILE);
    close(d);
    emu_secure_dir_remove(own);
    emu_secure_dir_remove(open_dir);
    emu_secure_dir_remove(link);
    assert_false(exists(link));
    assert_true(exists(victim));
    emu_secure_dir_remove(victim);
}

static void a_folder_or_file_of_another_user_is_refused(void **state)
{
    char dir[RT_PATH], own[RT_PATH], path[RT_PATH + 16];
    int fd = -1;
    (void)state;

    if (geteuid() != 0) {
        print_message("skipped: needs root to give files to a second user\n");
        skip();
    }
    make_dir(dir, sizeof(dir), "foreign", 0700);
    assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
    assert_int_equal(emu_secure_dir_open(dir, &fd), EMU_EFILE);
    assert_int_equal(emu_job_claim(dir), EMU_EFILE);
    make_dir(own, sizeof(own), "own-foreign-file", 0700);
    snprintf(path, sizeof(path), "%s/pin1.mem", own);
    make_file(path, 0600, "");
    assert_int_equal(chown(path, NOBODY, NOBODY), 0);
    assert_int_equal(emu_secure_dir_open_path(path, O_RDWR, 0, &fd), EMU_EFILE);
    emu_secure_dir_remove(dir);
    emu_secure_dir_remove(own);
}

/* As `nobody`, pre-create `name` in the sticky, world-writable folder `where`. */
static void plant_as_nobody(const char *where, const char *name)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        char path[RT_PATH * 2];
        snprintf(path, sizeof(path), "%s/%s", where, name);
        _exit(setgid(NOBODY) == 0 && setuid(NOBODY) == 0 && mkdir(path, 0777) == 0 &&
                      chmod(path, 0777) == 0
                  ? 0
                  : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void job_folders_in_a_shared_place_cannot_be_pre_created(void **state)
{
    char shared[RT_PATH], job[RT_PATH];
    (void)state;

    if (geteuid() != 0) {
        print_message("skipped: needs root to act as a second user\n");
        skip();
    }
    /* Like /dev/shm itself: sticky, open to all (our parent is private, so not inside it). */
    snprintf(shared, sizeof(shared), "/dev/shm/hcemu-test-shared-XXXXXX");
    assert_non_null(mkdtemp(shared));
    assert_int_equal(chmod(shared, 01777), 0);
    /* Another user plants the folder name an old hcemu would have used next. */
    char old_name[64];
    snprintf(old_name, sizeof(old_name), "hcemu-%u-%d-0", (unsigned)geteuid(), (int)getpid());
    plant_as_nobody(shared, old_name);
    assert_int_equal(emu_job_make(shared, "", job, sizeof(job)), EMU_OK);
    assert_true(strstr(job, old_name) == NULL);
    int fd = -1;
    assert_int_equal(emu_secure_dir_open(job, &fd), EMU_OK);
    close(fd);
    emu_secure_dir_remove(job);
    rt_job_parent_remove(shared);
}

static void a_parent_open_to_all_without_the_sticky_bit_is_refused(void **state)
{
    char open_dir[RT_PATH], sticky[RT_PATH], job[RT_PATH];
    (void)state;

    make_dir(open_dir, sizeof(open_dir), "world", 0777);
    make_dir(sticky, sizeof(sticky), "sticky", 01777);
    assert_int_equal(emu_secure_dir_check_parent(open_dir), EMU_EINVAL);
    assert_int_equal(emu_job_make(open_dir, "", job, sizeof(job)), EMU_EINVAL);
    assert_int_equal(rt_job_dirs(open_dir, NULL, 0), 0);
    assert_int_equal(emu_secure_dir_check_parent(sticky), EMU_OK);
    /* The runtime refuses it too. */
    setenv("HCEMU_JOB_DIR", open_dir, 1);
    aclError init = aclInit(NULL);
    aclError dev = init == ACL_SUCCESS ? aclrtSetDevice(0) : init;
    assert_int_not_equal(dev, ACL_SUCCESS);
    if (init == ACL_SUCCESS)
        (void)aclFinalize();
    setenv("HCEMU_JOB_DIR", parent, 1);
    assert_int_equal(rt_job_dirs(open_dir, NULL, 0), 0);
    emu_secure_dir_remove(open_dir);
    emu_secure_dir_remove(sticky);
}

/* A parent folder of another user (not root): its owner could swap our job folders. */
static void a_parent_of_another_user_is_refused(void **state)
{
    char foreign[RT_PATH], job[RT_PATH];
    (void)state;

    if (geteuid() != 0) {
        print_message("skipped: needs root to give a folder to a second user\n");
        skip();
    }
    make_dir(foreign, sizeof(foreign), "foreign-parent", 0755);
    assert_int_equal(chown(foreign, NOBODY, NOBODY), 0);
    assert_int_equal(emu_secure_dir_check_parent(foreign), EMU_EINVAL);
    assert_int_equal(emu_job_make(foreign, "", job, sizeof(job)), EMU_EINVAL);
    assert_int_equal(rt_job_dirs(foreign, NULL, 0), 0);
    emu_secure_dir_remove(foreign);
}

static void removal_never_follows_a_symlink(void **state)
{
    char victim[RT_PATH], job[RT_PATH], path[RT_PATH + 32], keep[RT_PATH + 16];
    (void)state;

    make_dir(victim, sizeof(victim), "victim2", 0700);
    snprintf(keep, sizeof(keep), "%s/keep", victim);
    make_file(keep, 0600, "x");
    make_dir(job, sizeof(job), "job-with-links", 0700);
    snprintf(path, sizeof(path), "%s/to-victim", job);
    assert_int_equal(symlink(victim, path), 0);
    snprintf(path, sizeof(path), "%s/sub", job);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/sub/deeper", job);
    assert_int_equal(symlink(victim, path), 0);
    snprintf(path, sizeof(path), "%s/sub/file", job);
    make_file(path, 0600, "y");
    emu_secure_dir_remove(job);
    assert_false(exists(job));
    assert_true(exists(keep));
    /* The job folder's name itself replaced by a symlink to the victim. */
    snprintf(path, sizeof(path), "%s/hcemu-planted", parent);
    assert_int_equal(symlink(victim, path), 0);
    emu_secure_dir_remove(path);
    assert_false(exists(path));
    assert_true(exists(keep));
    emu_secure_dir_remove(victim);
}

/* ---- the collector ----------------------------------------------------------------------- */

/* A folder "<parent>/hcemu-<uid>-<kind>XXXXXX" with an owners file holding `owners`. */
static void fake_job(char *out, size_t len, const char *kind, const char *owners)
{
    char prefix[64], path[RT_PATH + 16];

    snprintf(prefix, sizeof(prefix), "hcemu-%u-%s", (unsigned)geteuid(), kind);
    assert_int_equal(emu_secure_dir_make(parent, prefix, out, len), EMU_OK);
    if (owners != NULL) {
        snprintf(path, sizeof(path), "%s/owners", out);
        make_file(path, 0600, owners);
    }
    snprintf(path, sizeof(path), "%s/dev0.mem", out);
    make_file(path, 0600, "");
}

static int dead_pid(void)
{
    pid_t pid = fork();

    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return (int)pid;
}

static void the_collector_removes_dead_jobs_and_nothing_else(void **state)
{
    char dead[RT_PATH], dead_run[RT_PATH], reused[RT_PATH], live[RT_PATH], making[RT_PATH];
    char foreign[RT_PATH], line[128], me[64];
    (void)state;

    snprintf(me, sizeof(me), "%d %llu\n", (int)getpid(),
             (unsigned long long)emu_job_pid_start((int)getpid()));
    snprintf(line, sizeof(line), "%d 12345\n", dead_pid());
    fake_job(dead, sizeof(dead), "", line);
    fake_job(dead_run, sizeof(dead_run), "run", line);
    /* Our pid with another start time: an earlier process that had our pid. */
    snprintf(line, sizeof(line), "%d 1\n", (int)getpid());
    fake_job(reused, sizeof(reused), "", line);
    /* Live: a dead first owner, then a live one that joined (a rank under hcemu-run). */
    snprintf(line, sizeof(line), "%d 12345\n%s", dead_pid(), me);
    fake_job(live, sizeof(live), "run", line);
    fake_job(making, sizeof(making), "", NULL); /* being made: no owner recorded yet */
    foreign[0] = '\0';
    if (geteuid() == 0) {
        snprintf(line, sizeof(line), "%d 12345\n", dead_pid());
        fake_job(foreign, sizeof(foreign), "", line);
        assert_int_equal(chown(foreign, NOBODY, NOBODY), 0);
    }
    assert_int_equal(emu_job_collect(parent), 3);
    assert_false(exists(dead));
    assert_false(exists(dead_run));
    assert_false(exists(reused));
    assert_true(exists(live));
    assert_true(exists(making));
    if (foreign[0] != '\0') {
        assert_true(exists(foreign));
        emu_secure_dir_remove(foreign);
    }
    emu_secure_dir_remove(live);
    emu_secure_dir_remove(making);
}

static void every_job_start_collects_a_killed_jobs_folder(void **state)
{
    char dead[RT_PATH], line[64];
    (void)state;

    snprintf(line, sizeof(line), "%d 12345\n", dead_pid());
    fake_job(dead, sizeof(dead), "run", line);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_false(exists(dead));
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 1); /* ours, live */
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
    assert_int_equal(rt_wait_executors_gone(parent, GONE_MS), 0);
}

/* hcemu-run started with `argv`, its output discarded. */
static pid_t start_hcemu_run(char *const argv[])
{
    pid_t run = fork();

    assert_true(run >= 0);
    if (run == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execv(RUN_BIN, argv);
        _exit(127);
    }
    return run;
}

static void a_killed_hcemu_runs_folder_is_collected(void **state)
{
    char job[RT_PATH];
    (void)state;

    char *const argv[] = {RUN_BIN, "-n", "1", "--", "/bin/sleep", "30", NULL};
    pid_t run = start_hcemu_run(argv);
    uint64_t end = rt_now_ms() + 10000;
    while (rt_job_dirs(parent, job, sizeof(job)) == 0 && rt_now_ms() < end)
        usleep(10000);
    assert_int_equal(rt_job_dirs(parent, job, sizeof(job)), 1);
    assert_non_null(strstr(job, "-run"));
    /* Kill it once it has claimed the folder (an unclaimed one is collected only later). */
    char owners[RT_PATH + 16];
    snprintf(owners, sizeof(owners), "%s/" EMU_JOB_OWNERS, job);
    while (!exists(owners) && rt_now_ms() < end)
        usleep(10000);
    assert_int_equal(kill(run, SIGKILL), 0);
    assert_int_equal(waitpid(run, NULL, 0), run);
    /* Its rank (sleep) ends with it (PR_SET_PDEATHSIG); then nothing owns the folder. */
    end = rt_now_ms() + GONE_MS;
    unsigned removed = 0;
    while ((removed = emu_job_collect(parent)) == 0 && rt_now_ms() < end)
        usleep(20000);
    assert_int_equal(removed, 1);
    assert_false(exists(job));
}

/* ---- bounded inputs ---------------------------------------------------------------------- */

/* Runs `bin arg` with a deadline; returns its exit status, or -1 on timeout. */
static int run_with_deadline(const char *bin, const char *arg, int ms)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(bin, bin, arg, (char *)NULL);
        _exit(127);
    }
    uint64_t end = rt_now_ms() + (uint64_t)ms;
    int st = 0;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (rt_now_ms() >= end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(10000);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void fifos_devices_and_huge_files_are_refused_at_once(void **state)
{
    char fifo[RT_PATH + 16], big[RT_PATH + 16], why[128];
    char *buf = NULL;
    size_t len = 0;
    (void)state;

    snprintf(fifo, sizeof(fifo), "%s/kernel.json", parent);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(emu_secure_dir_read_input(fifo, 4096, &buf, &len, why, sizeof(why)),
                     EMU_EFILE);
    assert_non_null(strstr(why, "not a regular file"));
    assert_int_equal(emu_secure_dir_read_input("/dev/zero", 4096, &buf, &len, why, sizeof(why)),
                     EMU_EFILE);
    assert_non_null(strstr(why, "not a regular file"));
    assert_int_equal(emu_secure_dir_read_input(parent, 4096, &buf, &len, why, sizeof(why)),
                     EMU_EFILE);
    snprintf(big, sizeof(big), "%s/big.json", parent);
    make_file(big, 0600, "");
    assert_int_equal(truncate(big, 8192), 0);
    assert_int_equal(emu_secure_dir_read_input(big, 4096, &buf, &len, why, sizeof(why)),
                     EMU_EFILE);
    assert_non_null(strstr(why, "at most 4096"));
    assert_int_equal(emu_secure_dir_read_input(big, 8192, &buf, &len, why, sizeof(why)), EMU_OK);
    assert_int_equal(len, 8192);
    free(buf);
    /* The loader: a FIFO descriptor or image path fails the call instead of blocking it. */
    aclrtBinHandle bin = NULL;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    aclError on_fifo = load(fifo, &bin), on_zero = load("/dev/zero", &bin);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(on_fifo, 107009); /* ACL_ERROR_RT_FILE_OPEN-like: cannot open file */
    assert_int_equal(on_zero, 107009);
    assert_int_equal(run_with_deadline(INSPECT_BIN, fifo, 20000), 1);
    assert_int_equal(run_with_deadline(INSPECT_BIN, "/dev/zero", 20000), 1);
    unlink(fifo);
    unlink(big);
}

static void a_dev_zero_topology_is_refused(void **state)
{
    struct rt_child c;
    (void)state;

    assert_int_equal(rt_child_run("topology", parent, "HCEMU_TOPOLOGY=/dev/zero", 0, 60000, &c),
                     0);
    assert_false(c.timed_out);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0)
        fail_msg("child: %s", c.err);
    assert_non_null(strstr(c.err, "not a regular file"));
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
}

/* ---- processes --------------------------------------------------------------------------- */

static aclrtFuncHandle fork_kernel(aclrtBinHandle bin, const char *name)
{
    aclrtFuncHandle f = NULL;

    assert_int_equal(aclrtBinaryGetFunction(bin, name, &f), ACL_SUCCESS);
    return f;
}

/* Launches `f` with args {u64 out} on a new stream and returns the pid the kernel wrote. */
static int launch_fork(aclrtFuncHandle f, void *out)
{
    aclrtArgsHandle a = NULL;
    aclrtParamHandle ph = NULL;
    aclrtStream s = NULL;
    uint64_t addr = (uint64_t)(uintptr_t)out;
    int32_t pid = 0;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &addr, sizeof(addr), &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchKernelWithConfig(f, 1, s, NULL, a, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(&pid, sizeof(pid), out, sizeof(pid), ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return pid;
}

static void a_kernel_that_forks_leaves_no_process_behind(void **state)
{
    aclrtBinHandle bin = NULL;
    void *out = NULL;
    (void)state;

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(load(KPATH("harden_fork.json"), &bin), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    /* A child returning from the kernel ends there, not in the executor's worker loop. */
    int ret = launch_fork(fork_kernel(bin, "harden_fork_return"), out);
    assert_true(ret > 0);
    assert_true(pid_gone_within(ret, GONE_MS));
    /* A child that stays ends with its executor. */
    int stay = launch_fork(fork_kernel(bin, "harden_fork_stay"), out);
    assert_true(stay > 0);
    assert_true(emu_job_pid_start(stay) != 0);
    /* The device still works after both. */
    assert_int_equal(launch_fork(fork_kernel(bin, "harden_fork_return"), out) > 0, 1);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    assert_int_equal(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_true(pid_gone_within(stay, GONE_MS));
    assert_int_equal(rt_wait_executors_gone(parent, GONE_MS), 0);
}

/* An image whose constructor never returns: the launch that loads it fails within
 * HCEMU_RPC_TIMEOUT_MS, the device is failed for every later call, and its executor (spinning
 * in the constructor) is killed rather than left behind. */
static void a_constructor_that_never_returns_fails_its_device_in_bounded_time(void **state)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    aclrtArgsHandle a = NULL;
    aclrtParamHandle ph;
    aclrtStream s = NULL;
    void *out = NULL;
    (void)state;

    setenv("HCEMU_RPC_TIMEOUT_MS", "500", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    uint64_t addr = (uint64_t)(uintptr_t)out;
    /* The image is loaded on the device by the first call that needs it there. */
    aclError e = load(KPATH("harden_ctor.json"), &bin);
    if (e == ACL_SUCCESS)
        e = aclrtBinaryGetFunction(bin, "fault_ctor", &f);
    if (e == ACL_SUCCESS) {
        assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
        assert_int_equal(aclrtKernelArgsAppend(a, &addr, sizeof(addr), &ph), ACL_SUCCESS);
        assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);
        e = aclrtLaunchKernelWithConfig(f, 1, s, NULL, a, NULL);
    }
    assert_int_not_equal(e, ACL_SUCCESS);
    void *p = NULL;
    assert_int_not_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    (void)aclrtDestroyStream(s);
    if (bin != NULL)
        (void)aclrtBinaryUnLoad(bin);
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
    unsetenv("HCEMU_RPC_TIMEOUT_MS");
    assert_int_equal(rt_wait_executors_gone(parent, GONE_MS), 0);
}

static void an_executor_ends_with_its_host_even_if_a_child_holds_the_socket(void **state)
{
    struct rt_child c;
    (void)state;

    assert_int_equal(rt_child_run("forkhold", parent, NULL, SIGKILL, 60000, &c), 0);
    assert_true(c.saw_ready);
    assert_true(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL);
    const char *g = strstr(c.err, "holder ");
    assert_non_null(g);
    int holder = atoi(g + 7);
    assert_true(holder > 0);
    assert_true(emu_job_pid_start(holder) != 0); /* it still holds the host's socket */
    int left = rt_wait_executors_gone(parent, GONE_MS);
    kill(holder, SIGKILL);
    assert_int_equal(left, 0);
    assert_true(pid_gone_within(holder, GONE_MS));
    /* Every owner of the killed host's folder is gone: its last executor removed it. */
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
}

/* ---- signals and exits ------------------------------------------------------------------- */

static const char *self_bin; /* this program, for hcemu-run to start as ranks */

/* Ctrl-C (or SIGTERM) of a host running ranks as threads: the process dies of the signal,
 * as a shell expects (130/143), with no error line and nothing left behind. */
static void a_signal_ends_rank_threads_with_its_status_and_leaves_nothing(void **state)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    struct rt_child c;
    (void)state;

    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(rt_child_run("ranks", parent, NULL, sigs[i], 60000, &c), 0);
        assert_true(c.saw_ready);
        if (!WIFSIGNALED(c.status) || WTERMSIG(c.status) != sigs[i])
            fail_msg("signal %d: status 0x%x, stderr:\n%s", sigs[i], c.status, c.err);
        if (strstr(c.err, "error:") != NULL)
            fail_msg("signal %d: an error line, stderr:\n%s", sigs[i], c.err);
        assert_int_equal(rt_wait_executors_gone(parent, GONE_MS), 0);
        assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
    }
}

/* Many threads calling exit() at once: the first runs the clean-up, the others wait for it. */
static void threads_calling_exit_at_once_leave_nothing(void **state)
{
    struct rt_child c;
    (void)state;

    for (int rep = 0; rep < 10; rep++) {
        assert_int_equal(rt_child_run("exitrace", parent, NULL, 0, 60000, &c), 0);
        if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0)
            fail_msg("rep %d: status 0x%x, stderr:\n%s", rep, c.status, c.err);
        assert_int_equal(rt_wait_executors_gone(parent, GONE_MS), 0);
        assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
    }
}

/* A SIGKILLed hcemu-run whose ranks use devices: its ranks die with it, and the last of the
 * job's processes to go (a rank or an executor) removes the folder; no collector needed. */
static void a_killed_hcemu_run_with_ranks_leaves_nothing(void **state)
{
    (void)state;

    char *const argv[] = {RUN_BIN, "-n", "2", "--", (char *)self_bin, "--child", "runrank", NULL};
    pid_t run = start_hcemu_run(argv);
    uint64_t end = rt_now_ms() + 30000;
    while (rt_executors(parent, -1, NULL, 0) < 2 && rt_now_ms() < end)
        usleep(10000);
    assert_int_equal(rt_executors(parent, -1, NULL, 0), 2);
    assert_int_equal(kill(run, SIGKILL), 0);
    assert_int_equal(waitpid(run, NULL, 0), run);
    assert_int_equal(rt_wait_executors_gone(parent, 2 * GONE_MS), 0);
    end = rt_now_ms() + GONE_MS;
    while (rt_job_dirs(parent, NULL, 0) != 0 && rt_now_ms() < end)
        usleep(20000);
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
}

/* ---- memory ------------------------------------------------------------------------------ */

static void a_large_hccl_buffer_costs_only_the_pages_used(void **state)
{
    struct rt_child c;
    (void)state;

    if (emu_os_mem_room(parent) < (6ull << 30)) {
        print_message("skipped: less than 6 GiB of room for 2 x 2 GiB HCCL buffers\n");
        skip();
    }
    assert_int_equal(rt_child_run("bigbuf", parent, "HCCL_BUFFSIZE=2048", 0, 60000, &c), 0);
    assert_false(c.timed_out);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0)
        fail_msg("child: %s", c.err);
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
}

static void buffers_the_machine_cannot_hold_are_refused(void **state)
{
    struct rt_child c;
    char env[64];
    (void)state;

    /* Two ranks whose buffers together exceed the room by 2 GiB; each fits a device. */
    uint64_t mb = (emu_os_mem_room(parent) >> 21) + 1024;
    if (mb > 60u * 1024u) {
        print_message("skipped: this machine holds more than two device memories\n");
        skip();
    }
    snprintf(env, sizeof(env), "HCCL_BUFFSIZE=%llu", (unsigned long long)mb);
    setenv("HCEMU_DEVICE_MEM_GB", "64", 1);
    assert_int_equal(rt_child_run("hugebuf", parent, env, 0, 60000, &c), 0);
    unsetenv("HCEMU_DEVICE_MEM_GB");
    assert_false(c.timed_out);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0)
        fail_msg("child: %s", c.err);
    assert_non_null(strstr(c.err, "lower HCCL_BUFFSIZE"));
}

/* ---- children ---------------------------------------------------------------------------- */

static int child_topology(void)
{
    int32_t devs[1] = {0};
    HcclComm comm = NULL;

    RT_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS);
    RT_CHECK(HcclCommInitAll(1, devs, &comm) != HCCL_SUCCESS);
    RT_CHECK(aclrtResetDevice(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS);
    return 0;
}

static int child_forkhold(void)
{
    /* The executor must not hold the test's pipes: then only its host's death can end it. */
    int out = fcntl(1, F_DUPFD_CLOEXEC, 10), err = fcntl(2, F_DUPFD_CLOEXEC, 10);
    int null = open("/dev/null", O_RDWR);
    RT_CHECK(out >= 0 && err >= 0 && null >= 0 && dup2(null, 1) == 1 && dup2(null, 2) == 2);
    RT_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS);
    RT_CHECK(dup2(out, 1) == 1 && dup2(err, 2) == 2);
    pid_t holder = fork();
    RT_CHECK(holder >= 0);
    if (holder == 0) { /* keeps the host's socket to the executor, not the test's pipes */
        close(out);
        close(err);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        for (int i = 0; i < 60; i++)
            sleep(1);
        _exit(0);
    }
    fprintf(stderr, "holder %d\n", (int)holder);
    printf("READY\n");
    fflush(NULL);
    for (int i = 0; i < 60; i++)
        sleep(1);
    return 1; /* SIGKILLed before */
}

/* Blocks the file system gives device memory `dev` of the (only) job folder, in bytes. */
static uint64_t mem_file_bytes(int dev)
{
    char job[RT_PATH * 2], path[RT_PATH * 3];
    struct stat st;

    if (rt_job_dirs(getenv("HCEMU_JOB_DIR"), job, sizeof(job)) != 1)
        return UINT64_MAX;
    snprintf(path, sizeof(path), "%s/dev%d.mem", job, dev);
    return stat(path, &st) == 0 ? (uint64_t)st.st_blocks * 512u : UINT64_MAX;
}

static uint64_t my_rss(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f == NULL || fscanf(f, "%ld %ld", &pages, &rss) != 2)
        rss = -1;
    if (f != NULL)
        fclose(f);
    return rss < 0 ? UINT64_MAX : (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

static int child_bigbuf(void)
{
    int32_t devs[2] = {0, 1};
    HcclComm comms[2] = {NULL, NULL};
    static char data[4096];

    RT_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS &&
          aclrtSetDevice(1) == ACL_SUCCESS);
    RT_CHECK(HcclCommInitAll(2, devs, comms) == HCCL_SUCCESS);
    for (int r = 0; r < 2; r++) {
        void *buf = NULL;
        uint64_t size = 0;
        RT_CHECK(aclrtSetDevice(r) == ACL_SUCCESS);
        RT_CHECK(HcclGetHcclBuffer(comms[r], &buf, &size) == HCCL_SUCCESS);
        RT_CHECK(size == (2048ull << 20));
        memset(data, 0x5a + r, sizeof(data));
        RT_CHECK(aclrtMemcpy((uint8_t *)buf + size - sizeof(data), sizeof(data), data, sizeof(data),
                          ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
        memset(data, 0, sizeof(data));
        RT_CHECK(aclrtMemcpy(data, sizeof(data), (uint8_t *)buf + size - sizeof(data), sizeof(data),
                          ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
        RT_CHECK(data[0] == 0x5a + r && data[sizeof(data) - 1] == 0x5a + r);
    }
    /* 2 x 2 GiB of buffer; what is used is a few pages (and the control block's file is
     * separate): the memory files and this process stay far below one buffer. */
    fprintf(stderr, "dev0.mem %llu bytes, dev1.mem %llu bytes, host rss %llu bytes\n",
            (unsigned long long)mem_file_bytes(0), (unsigned long long)mem_file_bytes(1),
            (unsigned long long)my_rss());
    RT_CHECK(mem_file_bytes(0) < (64ull << 20) && mem_file_bytes(1) < (64ull << 20));
    RT_CHECK(my_rss() < (256ull << 20));
    RT_CHECK(HcclCommDestroy(comms[0]) == HCCL_SUCCESS && HcclCommDestroy(comms[1]) == HCCL_SUCCESS);
    RT_CHECK(aclrtResetDevice(1) == ACL_SUCCESS && aclrtResetDevice(0) == ACL_SUCCESS);
    RT_CHECK(aclFinalize() == ACL_SUCCESS);
    return 0;
}

static int child_hugebuf(void)
{
    int32_t devs[2] = {0, 1};
    HcclComm comms[2] = {NULL, NULL};
    void *buf = NULL;
    uint64_t size = 0;

    RT_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS &&
          aclrtSetDevice(1) == ACL_SUCCESS);
    RT_CHECK(HcclCommInitAll(2, devs, comms) == HCCL_SUCCESS);
    RT_CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    RT_CHECK(HcclGetHcclBuffer(comms[0], &buf, &size) == HCCL_E_MEMORY);
    RT_CHECK(HcclCommDestroy(comms[0]) == HCCL_SUCCESS && HcclCommDestroy(comms[1]) == HCCL_SUCCESS);
    RT_CHECK(aclrtResetDevice(1) == ACL_SUCCESS && aclrtResetDevice(0) == ACL_SUCCESS);
    RT_CHECK(aclFinalize() == ACL_SUCCESS);
    return 0;
}

/* 4 ranks as threads, one device each, allreducing 4 KiB until a signal ends the process. */
#define RANKS 4
static HcclComm rank_comms[RANKS];
static _Atomic int ranks_going;

static void *rank_loop(void *arg)
{
    int r = (int)(intptr_t)arg;
    aclrtStream s = NULL;
    void *buf = NULL;

    if (aclrtSetDevice(r) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS ||
        aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        exit(3);
    for (int n = 0;; n++) {
        if (HcclAllReduce(buf, buf, 1024, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, rank_comms[r],
                          s) != HCCL_SUCCESS ||
            aclrtSynchronizeStream(s) != ACL_SUCCESS) {
            fprintf(stderr, "rank %d: allreduce failed\n", r);
            exit(4); /* a failure seen before the signal's status would show as 4 */
        }
        if (n == 0)
            atomic_fetch_add(&ranks_going, 1);
    }
    return NULL;
}

static int child_ranks(void)
{
    int32_t devs[RANKS] = {0, 1, 2, 3};
    pthread_t th;

    signal(SIGINT, SIG_DFL); /* a test runner may start us with it ignored */
    signal(SIGTERM, SIG_DFL);
    RT_CHECK(aclInit(NULL) == ACL_SUCCESS);
    RT_CHECK(HcclCommInitAll(RANKS, devs, rank_comms) == HCCL_SUCCESS);
    for (intptr_t r = 0; r < RANKS; r++)
        RT_CHECK(pthread_create(&th, NULL, rank_loop, (void *)r) == 0);
    while (atomic_load(&ranks_going) < RANKS)
        usleep(1000);
    printf("READY\n");
    fflush(stdout);
    for (int i = 0; i < 60; i++)
        sleep(1);
    return 1; /* the signal came before */
}

static pthread_barrier_t exit_barrier;

static void *exit_thread(void *arg)
{
    void *p = NULL;

    if (aclrtSetDevice((int)(intptr_t)arg % 4) != ACL_SUCCESS ||
        aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        _exit(5);
    pthread_barrier_wait(&exit_barrier);
    exit(0);
}

static int child_exitrace(void)
{
    enum { THREADS = 16 };
    pthread_t th;

    RT_CHECK(aclInit(NULL) == ACL_SUCCESS);
    pthread_barrier_init(&exit_barrier, NULL, THREADS + 1);
    for (intptr_t i = 0; i < THREADS; i++)
        RT_CHECK(pthread_create(&th, NULL, exit_thread, (void *)i) == 0);
    pthread_barrier_wait(&exit_barrier);
    exit(0);
}

/* One rank of hcemu-run: opens its device and waits to be killed with the launcher. */
static int child_runrank(void)
{
    void *p = NULL;
    const char *rank = getenv("HCEMU_RANK");

    RT_CHECK(rank != NULL && aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(atoi(rank)) == ACL_SUCCESS);
    RT_CHECK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    for (int i = 0; i < 60; i++)
        sleep(1);
    return 1;
}

static int child_main(const char *scenario)
{
    if (strcmp(scenario, "topology") == 0)
        return child_topology();
    if (strcmp(scenario, "forkhold") == 0)
        return child_forkhold();
    if (strcmp(scenario, "bigbuf") == 0)
        return child_bigbuf();
    if (strcmp(scenario, "hugebuf") == 0)
        return child_hugebuf();
    if (strcmp(scenario, "ranks") == 0)
        return child_ranks();
    if (strcmp(scenario, "exitrace") == 0)
        return child_exitrace();
    if (strcmp(scenario, "runrank") == 0)
        return child_runrank();
    fprintf(stderr, "unknown scenario %s\n", scenario);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    self_bin = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_job_folder_is_fresh_private_and_records_its_owner),
        cmocka_unit_test(a_planted_folder_symlink_or_open_mode_is_refused),
        cmocka_unit_test(a_folder_or_file_of_another_user_is_refused),
        cmocka_unit_test(job_folders_in_a_shared_place_cannot_be_pre_created),
        cmocka_unit_test(a_parent_open_to_all_without_the_sticky_bit_is_refused),
        cmocka_unit_test(a_parent_of_another_user_is_refused),
        cmocka_unit_test(removal_never_follows_a_symlink),
        cmocka_unit_test(the_collector_removes_dead_jobs_and_nothing_else),
        cmocka_unit_test(every_job_start_collects_a_killed_jobs_folder),
        cmocka_unit_test(a_killed_hcemu_runs_folder_is_collected),
        cmocka_unit_test(fifos_devices_and_huge_files_are_refused_at_once),
        cmocka_unit_test(a_dev_zero_topology_is_refused),
        cmocka_unit_test(a_kernel_that_forks_leaves_no_process_behind),
        cmocka_unit_test(an_executor_ends_with_its_host_even_if_a_child_holds_the_socket),
        cmocka_unit_test(a_constructor_that_never_returns_fails_its_device_in_bounded_time),
        cmocka_unit_test(a_signal_ends_rank_threads_with_its_status_and_leaves_nothing),
        cmocka_unit_test(threads_calling_exit_at_once_leave_nothing),
        cmocka_unit_test(a_killed_hcemu_run_with_ranks_leaves_nothing),
        cmocka_unit_test(a_large_hccl_buffer_costs_only_the_pages_used),
        cmocka_unit_test(buffers_the_machine_cannot_hold_are_refused),
    };
    return cmocka_run_group_tests_name("harden", tests, group_setup, group_teardown);
}
