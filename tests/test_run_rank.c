/* test_run_rank.c - the rank program that test_run.c starts under hcemu-run.
 *
 * `test_run_rank MODE [ARG...]`, with HCEMU_RANK / HCEMU_RANK_SIZE from hcemu-run:
 *   lines K          print K numbered lines to stdout and to stderr, each in pieces
 *   env              check the job environment, print "env ok <job path> <job id>"
 *   fail R CODE      rank R exits with CODE, the others wait
 *   crash R          rank R dies of SIGSEGV, the others wait
 *   hang             print "ready", then wait
 *   orphan DIR       leave a detached grandchild (pid in DIR/orphan.<rank>) and exit 0
 *   seed S           fail when HCEMU_SEED is S
 *   device MODE R    open this rank's emulated device (its executor starts), then
 *                    MODE = fail: rank R exits 3; crash: rank R dies of SIGSEGV;
 *                    hang: every rank prints "ready"; the others (and hang) wait
 * "Wait" means sleeping up to 60 s: hcemu-run is expected to stop the rank long before. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <acl/acl.h>

static unsigned rank_id;

static void wait_to_be_stopped(void)
{
    for (int i = 0; i < 600; i++)
        usleep(100000);
    fprintf(stderr, "rank %u was never stopped\n", rank_id);
    exit(9);
}

static void crash(void)
{
    struct rlimit no_core = {0, 0};

    setrlimit(RLIMIT_CORE, &no_core);
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    exit(8);
}

static void say_ready(void)
{
    printf("ready\n");
    fflush(stdout);
}

/* Writes "rank R line I\n" in three pieces, so hcemu-run has to join them. */
static void print_lines(int n)
{
    char line[64];

    for (int i = 0; i < n; i++) {
        for (int fd = 1; fd <= 2; fd++) {
            int len = snprintf(line, sizeof(line), "rank %u %s %d\n", rank_id,
                               fd == 1 ? "out" : "err", i);
            if (write(fd, line, 5) != 5 || write(fd, line + 5, 4) != 4 ||
                write(fd, line + 9, (size_t)len - 9) != len - 9)
                exit(7);
        }
        if (i % 16 == 0)
            usleep(1000);
    }
}

static int check_env(void)
{
    const char *path = getenv("HCEMU_JOB_PATH"), *id = getenv("HCEMU_JOB_ID");
    const char *size = getenv("HCEMU_RANK_SIZE"), *devs = getenv("HCEMU_DEVICES");
    struct stat st;

    if (path == NULL || id == NULL || *id == '\0' || size == NULL || devs == NULL ||
        stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 0777) != 0700 ||
        atoi(devs) < atoi(size) || atoi(devs) < 8) {
        printf("env bad\n");
        return 1;
    }
    printf("env ok %s %s\n", path, id);
    return 0;
}

static int leave_orphan(const char *dir)
{
    char path[512];
    pid_t pid = fork();

    if (pid == 0) {
        setsid();
        if (fork() == 0) {
            snprintf(path, sizeof(path), "%s/orphan.%u", dir, rank_id);
            FILE *f = fopen(path, "w");
            if (f != NULL) {
                fprintf(f, "%d\n", (int)getpid());
                fclose(f);
            }
            /* Closing our copies of the pipes would let hcemu-run miss that we live on. */
            for (int i = 0; i < 600; i++)
                usleep(100000);
            _exit(0);
        }
        _exit(0);
    }
    /* Give the grandchild time to write its pid before the test looks. */
    usleep(200000);
    return 0;
}

static int device_mode(const char *mode, unsigned target)
{
    void *p = NULL;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice((int32_t)rank_id) != ACL_SUCCESS ||
        aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "rank %u: cannot open device %u\n", rank_id, rank_id);
        return 5;
    }
    if (strcmp(mode, "hang") == 0)
        say_ready();
    else if (rank_id == target && strcmp(mode, "fail") == 0)
        exit(3);
    else if (rank_id == target && strcmp(mode, "crash") == 0)
        crash();
    wait_to_be_stopped();
    return 0;
}

int main(int argc, char **argv)
{
    const char *r = getenv("HCEMU_RANK");

    if (argc < 2 || r == NULL)
        return 2;
    rank_id = (unsigned)atoi(r);
    const char *mode = argv[1];
    unsigned target = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    if (strcmp(mode, "lines") == 0 && argc > 2) {
        print_lines(atoi(argv[2]));
        return 0;
    }
    if (strcmp(mode, "env") == 0)
        return check_env();
    if (strcmp(mode, "fail") == 0 && argc > 3) {
        if (rank_id == target)
            return atoi(argv[3]);
        wait_to_be_stopped();
    }
    if (strcmp(mode, "crash") == 0 && argc > 2) {
        if (rank_id == target)
            crash();
        wait_to_be_stopped();
    }
    if (strcmp(mode, "hang") == 0) {
        say_ready();
        wait_to_be_stopped();
    }
    if (strcmp(mode, "orphan") == 0 && argc > 2)
        return leave_orphan(argv[2]);
    if (strcmp(mode, "seed") == 0 && argc > 2) {
        const char *seed = getenv("HCEMU_SEED");
        return seed != NULL && strcmp(seed, argv[2]) == 0 ? 4 : 0;
    }
    if (strcmp(mode, "device") == 0 && argc > 3)
        return device_mode(argv[2], (unsigned)atoi(argv[3]));
    return 2;
}
