/* test_kernel_runtime.c - kernels end to end: loading (descriptor, bare .so, bytes), argument
 * packing, launches on several devices and blocks, and every failure a kernel can cause
 * (non-zero return, each crash kind, timeout) with the host and the other devices alive.
 *
 * Each test runs in its own aclInit/aclFinalize cycle (setup/teardown), so a device a test
 * brings down never leaks into the next one. The job folder lives under a private
 * HCEMU_JOB_DIR that must be empty after every aclFinalize, and no executor may be left as a
 * child. Reports are read from stderr, captured into a temporary file around the calls; a
 * capture started before aclrtSetDevice also catches the executor's lines, since the
 * executor inherits fd 2 when it starts.
 *
 * Block indices: an AICPU entry gets only `args`, and every block of a launch gets the same
 * args, so krt_blocks numbers its blocks with an atomic fetch-add on a device-memory counter
 * (see tests/kernels/krt_blocks.c). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <acl/error_codes/rt_error_codes.h>

#define KPATH(name) KERNEL_DIR "/" name
#define SEC_NS 1000000000ull

static char job_parent[PATH_MAX];

/* ---- stderr capture --------------------------------------------------------------------- */

static struct {
    int saved; /* the real fd 2 while capturing, else -1 */
    FILE *f;
    char *text;
} cap = {.saved = -1};

/* Sends fd 2 to a temporary file until capture_end(). */
static void capture_begin(void)
{
    fflush(stderr);
    cap.f = tmpfile();
    assert_non_null(cap.f);
    cap.saved = dup(STDERR_FILENO);
    assert_true(cap.saved >= 0);
    assert_int_equal(dup2(fileno(cap.f), STDERR_FILENO), STDERR_FILENO);
}

/* Restores fd 2, echoes what was captured (for the test log) and returns it; valid until the
 * next capture. The executors share fd 2's file offset with us, and a dying one may still
 * write its last line: the capture is read with pread from 0 to the file's size, never by
 * moving that shared offset (a rewind let such a late line land over the start of the text
 * and the read then came up short). */
static const char *capture_end(void)
{
    struct stat st;

    if (cap.saved < 0)
        return cap.text != NULL ? cap.text : "";
    fflush(stderr);
    dup2(cap.saved, STDERR_FILENO);
    close(cap.saved);
    cap.saved = -1;
    int fd = fileno(cap.f);
    assert_int_equal(fstat(fd, &st), 0);
    size_t n = (size_t)st.st_size;
    free(cap.text);
    cap.text = calloc(1, n + 1);
    assert_non_null(cap.text);
    size_t got = 0;
    for (ssize_t r = 1; got < n && r > 0; got += r > 0 ? (size_t)r : 0)
        r = pread(fd, cap.text + got, n - got, (off_t)got);
    assert_int_equal(got, n);
    fclose(cap.f);
    cap.f = NULL;
    fputs(cap.text, stderr);
    return cap.text;
}

static void assert_has(const char *text, const char *needle)
{
    if (strstr(text, needle) == NULL)
        fail_msg("expected \"%s\" in the captured output:\n%s", needle, text);
}

/* ---- small wrappers --------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * SEC_NS + (uint64_t)ts.tv_nsec;
}

static aclrtBinHandle load(const char *path, int32_t mode)
{
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
    aclrtBinHandle bin = NULL;

    opt.value.cpuKernelMode = mode;
    assert_int_equal(aclrtBinaryLoadFromFile(path, &opts, &bin), ACL_SUCCESS);
    assert_non_null(bin);
    return bin;
}

static aclrtFuncHandle func(aclrtBinHandle bin, const char *name)
{
    aclrtFuncHandle f = NULL;

    assert_int_equal(aclrtBinaryGetFunction(bin, name, &f), ACL_SUCCESS);
    assert_non_null(f);
    return f;
}

static void *dev_alloc(size_t size)
{
    void *p = NULL;

    assert_int_equal(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(p, size, 0, size), ACL_SUCCESS);
    return p;
}

static void dev_read(void *host, const void *dev, size_t size)
{
    assert_int_equal(aclrtMemcpy(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
}

static uint32_t dev_u32(const void *dev)
{
    uint32_t v = 0;

    dev_read(&v, dev, sizeof(v));
    return v;
}

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    return s;
}

/* The packed argument list of one launch, built from (pointer, size) pairs; NULL ends. */
static aclrtArgsHandle args_of(aclrtFuncHandle f, ...)
{
    aclrtArgsHandle a = NULL;
    aclrtParamHandle ph = NULL;
    va_list ap;

    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    va_start(ap, f);
    for (void *p = va_arg(ap, void *); p != NULL; p = va_arg(ap, void *)) {
        size_t n = va_arg(ap, size_t);
        assert_int_equal(aclrtKernelArgsAppend(a, p, n, &ph), ACL_SUCCESS);
    }
    va_end(ap);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);
    return a;
}

static aclError launch(aclrtFuncHandle f, uint32_t blocks, aclrtStream s, aclrtArgsHandle a)
{
    return aclrtLaunchKernelWithConfig(f, blocks, s, NULL, a, NULL);
}

/* Runs KrtAdd (x + y) on the current device and returns the sum. */
static uint32_t run_add(aclrtBinHandle bin, uint32_t x, uint32_t y)
{
    aclrtFuncHandle f = func(bin, "KrtAdd");
    aclrtStream s = new_stream();
    void *out = dev_alloc(4);
    uint64_t o = (uint64_t)(uintptr_t)out;

    aclrtArgsHandle a = args_of(f, &o, sizeof(o), &x, sizeof(x), &y, sizeof(y), NULL);
    assert_int_equal(launch(f, 1, s, a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint32_t sum = dev_u32(out);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return sum;
}

/* Line of the marker comment in a kernel source, for "function (file:line)" checks. */
static int marker_line(const char *path, const char *marker)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;

    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        n++;
        if (strstr(line, marker) != NULL) {
            fclose(f);
            return n;
        }
    }
    fclose(f);
    fail_msg("marker %s not found in %s", marker, path);
    return -1;
}

/* ---- setup / teardown ------------------------------------------------------------------- */

static int cycle_setup(void **state)
{
    (void)state;
    return aclInit(NULL) == ACL_SUCCESS ? 0 : -1;
}

/* Finalise, then check that nothing is left: no job folder, no executor child. */
static int cycle_teardown(void **state)
{
    (void)state;
    if (cap.saved >= 0)
        (void)capture_end(); /* a failed assertion left the capture open */
    if (aclFinalize() != ACL_SUCCESS)
        return -1;
    DIR *d = opendir(job_parent);
    int left = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            fprintf(stderr, "left behind: %s/%s\n", job_parent, e->d_name);
            left++;
        }
    if (d != NULL)
        closedir(d);
    errno = 0;
    if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD) {
        fprintf(stderr, "an executor child is still running or unreaped\n");
        left++;
    }
    return left == 0 ? 0 : -1;
}

/* ---- loading ---------------------------------------------------------------------------- */

static void descriptor_with_cpu_kernel_mode_loads_and_runs(void **state)
{
    (void)state;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtBinHandle bin = load(KPATH("krt_basic.json"), 1);
    assert_int_equal(run_add(bin, 5, 7), 12);
    /* Mode 0 (the .so is "already on the device") reads the same descriptor here. */
    aclrtBinHandle mode0 = load(KPATH("krt_basic.json"), 0);
    assert_int_equal(run_add(mode0, 40, 2), 42);
    assert_int_equal(aclrtBinaryUnLoad(mode0), ACL_SUCCESS);
    assert_int_equal(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
}

static void shared_object_path_loads_directly_and_exports_its_functions(void **state)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtBinaryLoadFromFile(KPATH("libkrt_basic.so"), NULL, &bin), ACL_SUCCESS);
    /* A bare image has no descriptor: every exported function is a kernel by its symbol. */
    assert_int_equal(aclrtBinaryGetFunction(bin, "krt_mul", &f), ACL_SUCCESS);
    aclrtStream s = new_stream();
    void *out = dev_alloc(4);
    uint64_t o = (uint64_t)(uintptr_t)out;
    uint32_t x = 6, y = 7;
    aclrtArgsHandle a = args_of(f, &o, sizeof(o), &x, sizeof(x), &y, sizeof(y), NULL);
    assert_int_equal(launch(f, 1, s, a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(dev_u32(out), 42);
    assert_int_equal(aclrtBinaryGetFunction(bin, "KrtAdd", &f), ACL_ERROR_RT_KERNEL_LOOKUP);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
}

static void image_bytes_load_from_data_and_register_as_cpu_funcs(void **state)
{
    (void)state;
    FILE *fp = fopen(KPATH("libkrt_basic.so"), "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    long len = ftell(fp);
    assert_true(len > 0);
    rewind(fp);
    char *bytes = malloc((size_t)len);
    assert_non_null(bytes);
    assert_int_equal(fread(bytes, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);

    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE,
                                 .value.cpuKernelMode = 2};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtBinaryLoadFromData(bytes, (size_t)len, &opts, &bin), ACL_SUCCESS);
    memset(bytes, 0, (size_t)len); /* the runtime keeps its own copy */
    free(bytes);
    assert_int_equal(aclrtRegisterCpuFunc(bin, "krt_add", "KrtAdd", &f), ACL_SUCCESS);
    assert_int_equal(run_add(bin, 1000, 337), 1337);
    assert_int_equal(aclrtRegisterCpuFunc(bin, "no_such_symbol", "Nope", &f),
                     ACL_ERROR_RT_KERNEL_LOOKUP);
    assert_int_equal(aclrtRegisterCpuFunc(bin, NULL, "Nope", &f), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    char junk[64] = "definitely not an ELF image";
    assert_int_not_equal(aclrtBinaryLoadFromData(junk, sizeof(junk), &opts, &bin), ACL_SUCCESS);
    assert_int_equal(aclrtBinaryLoadFromData(NULL, 10, &opts, &bin), ACL_ERROR_RT_PARAM_INVALID);
}

static void unknown_names_bad_options_and_unloaded_handles_are_refused(void **state)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    bin = load(KPATH("krt_basic.json"), 1);
    /* Descriptor images are looked up by key, not by symbol. */
    assert_int_equal(aclrtBinaryGetFunction(bin, "krt_add", &f), ACL_ERROR_RT_KERNEL_LOOKUP);
    assert_int_equal(aclrtBinaryGetFunction(bin, "NoSuchKernel", &f), ACL_ERROR_RT_KERNEL_LOOKUP);
    assert_int_equal(aclrtBinaryGetFunction(bin, NULL, &f), ACL_ERROR_RT_PARAM_INVALID);
    aclrtFuncHandle add = func(bin, "KrtAdd");
    assert_int_equal(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    /* Stale handles: the binary and its functions are gone. */
    assert_int_equal(aclrtBinaryGetFunction(bin, "KrtAdd", &f), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtBinaryUnLoad(bin), ACL_ERROR_RT_INVALID_HANDLE);
    aclrtArgsHandle a = NULL;
    assert_int_equal(aclrtKernelArgsInit(add, &a), ACL_ERROR_RT_INVALID_HANDLE);

    opt.value.cpuKernelMode = 2; /* mode 2 means bytes: not for a file */
    assert_int_equal(aclrtBinaryLoadFromFile(KPATH("krt_basic.json"), &opts, &bin),
                     ACL_ERROR_RT_PARAM_INVALID);
    opt.value.cpuKernelMode = 7;
    assert_int_equal(aclrtBinaryLoadFromFile(KPATH("krt_basic.json"), &opts, &bin),
                     ACL_ERROR_RT_PARAM_INVALID);
    opt.value.cpuKernelMode = 1;
    assert_int_not_equal(aclrtBinaryLoadFromFile(KPATH("no_such_kernel.json"), &opts, &bin),
                         ACL_SUCCESS);
    assert_int_equal(aclrtBinaryLoadFromFile(NULL, &opts, &bin), ACL_ERROR_RT_PARAM_INVALID);
}

static void host_only_import_is_refused_at_load_naming_the_symbol(void **state)
{
    aclrtBinHandle bin = NULL;
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE,
                                 .value.cpuKernelMode = 1};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
    (void)state;

    capture_begin();
    aclError e = aclrtBinaryLoadFromFile(KPATH("krt_host_import.json"), &opts, &bin);
    const char *text = capture_end();
    assert_int_equal(e, ACL_ERROR_RT_PARAM_INVALID);
    assert_null(bin);
    assert_has(text, "libkrt_host_import.so: kernel imports host API aclrtMalloc");
    assert_has(text, "an AICPU kernel cannot call a host API");
}

/* ---- arguments -------------------------------------------------------------------------- */

/* Appends the echo header (out, total) and returns the running byte count. */
static size_t echo_header(aclrtArgsHandle a, uint8_t *expect, const uint64_t *out,
                          const uint32_t *total)
{
    aclrtParamHandle ph;

    assert_int_equal(aclrtKernelArgsAppend(a, (void *)out, 8, &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, (void *)total, 4, &ph), ACL_SUCCESS);
    memcpy(expect, out, 8);
    memcpy(expect + 8, total, 4);
    return 12;
}

static void args_of_odd_sizes_are_packed_without_padding_and_copied_at_append(void **state)
{
    static const size_t sizes[] = {1, 3, 7, 2, 13, 5, 1};
    uint8_t expect[64], param[16];
    aclrtParamHandle ph;
    aclrtArgsHandle a;
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_basic.json"), 1), "krt_args_echo");
    void *out = dev_alloc(sizeof(expect));
    uint64_t o = (uint64_t)(uintptr_t)out;
    uint32_t total = 12 + 1;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        total += (uint32_t)sizes[i];
    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    size_t at = echo_header(a, expect, &o, &total);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (size_t k = 0; k < sizes[i]; k++)
            param[k] = (uint8_t)(0x11 * (i + 1) + k);
        assert_int_equal(aclrtKernelArgsAppend(a, param, sizes[i], &ph), ACL_SUCCESS);
        memcpy(expect + at, param, sizes[i]);
        at += sizes[i];
        memset(param, 0xEE, sizeof(param)); /* a snapshot was taken: this must not show */
    }
    uint8_t mark = 0xA5;
    assert_int_equal(aclrtKernelArgsAppend(a, &mark, 1, &ph), ACL_SUCCESS);
    expect[at++] = mark;
    assert_int_equal(at, total);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);

    aclrtStream s = new_stream();
    assert_int_equal(launch(f, 1, s, a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint8_t got[64];
    dev_read(got, out, total);
    assert_memory_equal(got, expect, total);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void args_hold_exactly_64_kib_and_refuse_one_byte_more(void **state)
{
    const uint32_t total = 64u * 1024u;
    aclrtParamHandle ph;
    aclrtArgsHandle a;
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_basic.json"), 1), "krt_args_echo");
    void *out = dev_alloc(total);
    uint64_t o = (uint64_t)(uintptr_t)out;
    uint8_t *expect = malloc(total), *got = malloc(total), *big = malloc(total);
    assert_non_null(expect);
    assert_non_null(got);
    assert_non_null(big);
    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    size_t at = echo_header(a, expect, &o, &total);
    size_t body = total - at - 1;
    for (size_t k = 0; k < body; k++)
        big[k] = (uint8_t)(k * 31u + 7u);
    assert_int_equal(aclrtKernelArgsAppend(a, big, body, &ph), ACL_SUCCESS);
    memcpy(expect + at, big, body);
    uint8_t mark = 0xA5;
    assert_int_equal(aclrtKernelArgsAppend(a, &mark, 1, &ph), ACL_SUCCESS);
    expect[total - 1] = mark;
    assert_int_equal(aclrtKernelArgsAppend(a, &mark, 1, &ph), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);

    aclrtStream s = new_stream();
    assert_int_equal(launch(f, 1, s, a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    dev_read(got, out, total);
    assert_memory_equal(got, expect, total);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    free(big);
    free(got);
    free(expect);
}

static void args_refuse_a_129th_param_and_appends_after_finalize(void **state)
{
    aclrtParamHandle ph = NULL;
    aclrtArgsHandle a;
    uint8_t b = 1;
    (void)state;

    aclrtFuncHandle f = func(load(KPATH("krt_basic.json"), 1), "krt_return");
    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    for (int i = 0; i < 128; i++)
        assert_int_equal(aclrtKernelArgsAppend(a, &b, 1, &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &b, 1, &ph), ACL_ERROR_RT_PARAM_INVALID);

    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS); /* resets the thread's list */
    assert_int_equal(aclrtKernelArgsAppend(a, &b, 1, &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &b, 1, &ph), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsAppendPlaceHolder(a, &ph), ACL_ERROR_RT_PARAM_INVALID);

    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, NULL, 1, &ph), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsAppend(a, &b, 0, &ph), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsAppend(a, &b, 1, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsAppend((aclrtArgsHandle)&b, &b, 1, &ph),
                     ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtKernelArgsInit(NULL, &a), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsInit((aclrtFuncHandle)&b, &a), ACL_ERROR_RT_INVALID_HANDLE);
    /* A list that is not finalised cannot be launched. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    uint32_t v = 3;
    assert_int_equal(aclrtKernelArgsAppend(a, &v, sizeof(v), &ph), ACL_SUCCESS);
    assert_int_equal(launch(f, 1, NULL, a), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);
    assert_int_equal(launch(f, 0, NULL, a), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtLaunchKernelWithConfig(f, 1, NULL, NULL, a, &b),
                     ACL_ERROR_RT_PARAM_INVALID);
    aclrtLaunchKernelAttr both[2] = {{.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT},
                                     {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US}};
    both[0].value.timeout = 1;
    both[1].value.timeoutUs.timeoutLow = 1000;
    aclrtLaunchKernelCfg cfg = {.attrs = both, .numAttrs = 2};
    assert_int_equal(aclrtLaunchKernelWithConfig(f, 1, NULL, &cfg, a, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    /* Args built for one kernel cannot launch another. */
    aclrtFuncHandle other = func(load(KPATH("krt_basic.json"), 1), "krt_count");
    assert_int_equal(launch(other, 1, NULL, a), ACL_ERROR_RT_PARAM_INVALID);
}

static void placeholder_buffer_reaches_the_kernel_as_a_device_pointer(void **state)
{
    aclrtParamHandle ph, hole;
    aclrtArgsHandle a;
    void *buf = NULL;
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_basic.json"), 1), "krt_placeholder");
    void *out = dev_alloc(100);
    uint64_t o = (uint64_t)(uintptr_t)out;
    uint32_t len = 100;
    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &o, sizeof(o), &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &len, sizeof(len), &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppendPlaceHolder(a, &hole), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsGetPlaceHolderBuffer(a, hole, len, &buf), ACL_SUCCESS);
    assert_non_null(buf);
    for (uint32_t i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = (uint8_t)(200 - i);
    /* A placeholder is not a value parameter, and a value parameter has no buffer. */
    assert_int_equal(aclrtKernelArgsGetPlaceHolderBuffer(a, ph, 8, &buf),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsParaUpdate(a, hole, &o, 8), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);

    aclrtStream s = new_stream();
    assert_int_equal(launch(f, 1, s, a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint8_t got[100];
    dev_read(got, out, sizeof(got));
    for (uint32_t i = 0; i < len; i++)
        assert_int_equal(got[i], (uint8_t)(200 - i));
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void para_update_changes_a_value_between_launches(void **state)
{
    aclrtParamHandle ph, py;
    aclrtArgsHandle a;
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_basic.json"), 1), "krt_mul");
    void *out = dev_alloc(4);
    uint64_t o = (uint64_t)(uintptr_t)out;
    uint32_t x = 3, y = 5;
    assert_int_equal(aclrtKernelArgsInit(f, &a), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &o, sizeof(o), &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &x, sizeof(x), &ph), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsAppend(a, &y, sizeof(y), &py), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);
    aclrtStream s = new_stream();
    assert_int_equal(launch(f, 1, s, a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(dev_u32(out), 15);

    y = 11;
    assert_int_equal(aclrtKernelArgsParaUpdate(a, py, &y, sizeof(y)), ACL_SUCCESS);
    assert_int_equal(aclrtKernelArgsFinalize(a), ACL_SUCCESS);
    assert_int_equal(launch(f, 1, s, a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(dev_u32(out), 33);
    uint16_t wrong = 1;
    assert_int_equal(aclrtKernelArgsParaUpdate(a, py, &wrong, sizeof(wrong)),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtKernelArgsParaUpdate(a, &wrong, &y, sizeof(y)),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void raw_launch_takes_arguments_already_in_device_memory(void **state)
{
    (void)state;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_basic.json"), 1), "KrtAdd");
    void *out = dev_alloc(4);
    uint8_t packed[16];
    uint64_t o = (uint64_t)(uintptr_t)out;
    uint32_t x = 19, y = 23;
    memcpy(packed, &o, 8);
    memcpy(packed + 8, &x, 4);
    memcpy(packed + 12, &y, 4);
    void *dargs = dev_alloc(sizeof(packed));
    assert_int_equal(aclrtMemcpy(dargs, 16, packed, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    aclrtStream s = new_stream();
    assert_int_equal(aclrtLaunchKernel(f, 1, dargs, sizeof(packed), s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(dev_u32(out), 42);
    /* Host memory is not device memory. */
    assert_int_not_equal(aclrtLaunchKernel(f, 1, packed, sizeof(packed), s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

/* ---- several entries, devices, blocks ----------------------------------------------------- */

static void several_entries_of_one_image_run_in_order_on_one_stream(void **state)
{
    (void)state;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtBinHandle bin = load(KPATH("krt_basic.json"), 1);
    aclrtFuncHandle add = func(bin, "KrtAdd"), mul = func(bin, "krt_mul");
    aclrtFuncHandle count = func(bin, "krt_count");
    void *out = dev_alloc(12);
    uint64_t o[3];
    for (int i = 0; i < 3; i++)
        o[i] = (uint64_t)(uintptr_t)out + 4u * (uint64_t)i;
    uint32_t x = 9, y = 4;
    aclrtStream s = new_stream();
    assert_int_equal(launch(add, 1, s, args_of(add, &o[0], 8, &x, 4, &y, 4, NULL)), ACL_SUCCESS);
    assert_int_equal(launch(mul, 1, s, args_of(mul, &o[1], 8, &x, 4, &y, 4, NULL)), ACL_SUCCESS);
    assert_int_equal(launch(count, 1, s, args_of(count, &o[2], 8, NULL)), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint32_t got[3];
    dev_read(got, out, sizeof(got));
    assert_int_equal(got[0], 13);
    assert_int_equal(got[1], 36);
    assert_int_equal(got[2], 1);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

/* A host that queues launches far ahead: 5000 small ones and every 50th a 48 KiB echo,
 * twice, with a synchronisation between: 10 MB of arguments wrap the stream's 256 KiB
 * argument ring forty times, and whenever the host runs a whole ring ahead of the device the
 * next launches wait for room. Every launch must read its own arguments. */
static void queued_launches_past_the_argument_ring_each_read_their_own(void **state)
{
    enum { N = 5000, BIG = 48u * 1024u };
    (void)state;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtBinHandle bin = load(KPATH("krt_basic.json"), 1);
    aclrtFuncHandle add = func(bin, "KrtAdd"), echo = func(bin, "krt_args_echo");
    uint32_t *got = malloc(4u * N);
    uint8_t *big = malloc(BIG), *back = malloc(BIG);
    assert_non_null(got);
    assert_non_null(big);
    assert_non_null(back);
    void *out = dev_alloc(4u * N), *echo_out = dev_alloc(BIG);
    aclrtStream s = new_stream();
    for (uint32_t round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < N; i++) {
            uint64_t o = (uint64_t)(uintptr_t)out + 4u * i;
            uint32_t x = i, y = 7 + round;
            assert_int_equal(launch(add, 1, s, args_of(add, &o, 8, &x, 4, &y, 4, NULL)),
                             ACL_SUCCESS);
            if (i % 50 != 0)
                continue;
            uint64_t eo = (uint64_t)(uintptr_t)echo_out;
            uint32_t total = BIG;
            memset(big, 0, BIG);
            memcpy(big, &eo, 8);
            memcpy(big + 8, &total, 4);
            big[12] = (uint8_t)(i / 50 + round);
            big[BIG - 1] = 0xA5; /* the kernel's end mark */
            assert_int_equal(launch(echo, 1, s, args_of(echo, big, (size_t)BIG, NULL)),
                             ACL_SUCCESS);
        }
        assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
        dev_read(got, out, 4u * N);
        for (uint32_t i = 0; i < N; i++)
            if (got[i] != i + 7 + round)
                fail_msg("round %u launch %u: %u, want %u", round, i, got[i], i + 7 + round);
        dev_read(back, echo_out, BIG);
        assert_memory_equal(back, big, BIG); /* the last echo's arguments, byte for byte */
    }
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    free(back);
    free(big);
    free(got);
}

/* Releases the stream's first kernel (krt_wait_flag) once the host has queued every launch,
 * or has queued none for 200 ms: it waits for room the stream will make only then. */
struct releaser {
    _Atomic uint32_t queued;
    uint32_t total;
    void *flag;
    aclError set; /* the flag's write (checked by the test's thread) */
};

static void *release_when_stuck(void *arg)
{
    struct releaser *r = arg;
    uint32_t last = UINT32_MAX, same_ms = 0, one = 1;

    while (same_ms < 200) {
        uint32_t q = atomic_load(&r->queued);
        if (q == r->total)
            break;
        same_ms = q == last ? same_ms + 10 : 0;
        last = q;
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    r->set = aclrtMemcpy(r->flag, 4, &one, 4, ACL_MEMCPY_HOST_TO_DEVICE);
    return NULL;
}

/* More queued launches than the argument ring and the allocation table hold together (64
 * blocks of 4 KiB in the ring, 16384 table entries), behind a kernel that holds the stream:
 * the host waits for room, as a full task queue makes it wait on the card, and every launch
 * reads its own arguments. Before, the launch after the table's last entry failed. */
static void launches_past_ring_and_table_wait_for_room(void **state)
{
    enum { N = 20000, ARGS = 4096, ECHO = 16 };
    (void)state;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtBinHandle bin = load(KPATH("krt_basic.json"), 1);
    aclrtFuncHandle echo = func(bin, "krt_args_echo"), hold = func(bin, "krt_wait_flag");
    uint8_t *a = calloc(1, ARGS), *got = malloc((size_t)N * ECHO);
    assert_non_null(a);
    assert_non_null(got);
    uint8_t *out = dev_alloc((size_t)N * ECHO);
    struct releaser rel = {.total = N, .flag = dev_alloc(4)};
    aclrtStream s = new_stream();
    uint64_t flag = (uint64_t)(uintptr_t)rel.flag;
    uint32_t timeout_ms = 30000;
    assert_int_equal(launch(hold, 1, s, args_of(hold, &flag, 8, &timeout_ms, 4, NULL)),
                     ACL_SUCCESS);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, release_when_stuck, &rel), 0);
    for (uint32_t i = 0; i < N; i++) {
        uint64_t eo = (uint64_t)(uintptr_t)(out + (size_t)ECHO * i);
        uint32_t total = ECHO;
        memcpy(a, &eo, 8);
        memcpy(a + 8, &total, 4);
        memcpy(a + 12, &i, 3); /* i < 2^24 */
        a[ECHO - 1] = 0xA5;   /* the kernel's end mark */
        aclError e = launch(echo, 1, s, args_of(echo, a, (size_t)ARGS, NULL));
        if (e != ACL_SUCCESS) {
            atomic_store(&rel.queued, N); /* let the releaser go before failing */
            pthread_join(th, NULL);
            fail_msg("launch %u: %d", i, e);
        }
        atomic_store(&rel.queued, i + 1);
    }
    pthread_join(th, NULL);
    assert_int_equal(rel.set, ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    dev_read(got, out, (size_t)N * ECHO);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t v = 0;
        memcpy(&v, got + (size_t)ECHO * i + 12, 3);
        if (v != i || got[(size_t)ECHO * i + ECHO - 1] != 0xA5)
            fail_msg("launch %u echoed %u", i, v);
    }
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    free(got);
    free(a);
}

/* Launches krt_count `n` times on device `dev` and checks it counts first..first+n-1. */
static void count_on(aclrtFuncHandle count, int32_t dev, uint32_t first, uint32_t n)
{
    assert_int_equal(aclrtSetDevice(dev), ACL_SUCCESS);
    void *out = dev_alloc(4 * n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t o = (uint64_t)(uintptr_t)out + 4u * i;
        assert_int_equal(launch(count, 1, NULL, args_of(count, &o, 8, NULL)), ACL_SUCCESS);
    }
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    uint32_t got[8];
    dev_read(got, out, 4 * n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(got[i], first + i);
}

static void each_device_has_its_own_copy_of_kernel_globals(void **state)
{
    (void)state;
    aclrtFuncHandle count = func(load(KPATH("krt_basic.json"), 1), "krt_count");
    count_on(count, 0, 1, 3);
    count_on(count, 1, 1, 2);
    count_on(count, 0, 4, 2); /* device 0 goes on from 3: its own copy, untouched by dev 1 */
}

static void blocks_of_one_launch_run_concurrently_and_number_themselves(void **state)
{
    struct {
        uint32_t ticket, arrived, passed, slot[64];
    } st;
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_blocks.json"), 1), "krt_blocks");
    void *dst = dev_alloc(sizeof(st));
    uint64_t o = (uint64_t)(uintptr_t)dst;
    uint32_t blocks = 4, wait_ms = 10000;
    aclrtStream s = new_stream();
    assert_int_equal(launch(f, blocks, s, args_of(f, &o, 8, &blocks, 4, &wait_ms, 4, NULL)),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    dev_read(&st, dst, sizeof(st));
    assert_int_equal(st.ticket, 4);
    assert_int_equal(st.arrived, 4); /* all four were inside the kernel at once */
    assert_int_equal(st.passed, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(st.slot[i], i + 1);
    assert_int_equal(st.slot[4], 0);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void cxx_kernel_uses_vector_and_exceptions_and_returns_the_right_sum(void **state)
{
    struct {
        uint64_t sum;
        uint32_t caught, size;
    } r;
    (void)state;

    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_cxx.json"), 1), "krt_cxx_sum");
    void *out = dev_alloc(sizeof(r));
    uint64_t o = (uint64_t)(uintptr_t)out;
    uint32_t n = 1000;
    assert_int_equal(launch(f, 1, NULL, args_of(f, &o, 8, &n, 4, NULL)), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    dev_read(&r, out, sizeof(r));
    assert_int_equal(r.sum, 1000ull * 1001ull * 2001ull / 6ull);
    assert_int_equal(r.caught, 1);
    assert_int_equal(r.size, 1000);
}

/* ---- failures ----------------------------------------------------------------------------- */

static void nonzero_return_fails_the_sync_and_the_stream_works_again(void **state)
{
    (void)state;
    capture_begin(); /* before the device starts: its executor writes the report */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtBinHandle bin = load(KPATH("krt_basic.json"), 1);
    aclrtFuncHandle ret = func(bin, "krt_return");
    aclrtStream s = new_stream();
    uint32_t v = 7;
    assert_int_equal(launch(ret, 1, s, args_of(ret, &v, 4, NULL)), ACL_SUCCESS);
    aclError e = aclrtSynchronizeStream(s);
    const char *text = capture_end();
    assert_int_equal(e, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_has(text, "[hcemu dev0");
    assert_has(text, "kernel krt_return returned 7 (non-zero)");
    /* The error was delivered once; the stream takes work again. */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(run_add(bin, 2, 3), 5);
}

enum crash_kind {
    CRASH_NULL,
    CRASH_PEER,
    CRASH_HOST,
    CRASH_BUS,
    CRASH_FPE,
    CRASH_ILL,
    CRASH_ABORT
};

struct crash_case {
    const char *entry;
    const char *marker; /* line marker in krt_crash.c */
    const char *signal; /* as the report names it */
    const char *cause;  /* what the report says about the cause (address class, ...) */
};

static const struct crash_case crash_cases[] = {
    [CRASH_NULL] = {"krt_crash_null", "KRT_CRASH_NULL_LINE", "SIGSEGV", "is a null pointer"},
    [CRASH_PEER] = {"krt_crash_store", "KRT_CRASH_STORE_LINE", "SIGSEGV",
                    "is memory of device 1: a kernel cannot dereference another device's"},
    [CRASH_HOST] = {"krt_crash_store", "KRT_CRASH_STORE_LINE", "SIGSEGV",
                    "is host-only memory of the host program"},
    [CRASH_BUS] = {"krt_crash_bus", "KRT_CRASH_BUS_LINE", "SIGBUS",
                   "is mapped but has no backing (a mapped file past its end)"},
    [CRASH_FPE] = {"krt_crash_fpe", "KRT_CRASH_FPE_LINE", "SIGFPE", "; integer division by zero."},
    [CRASH_ILL] = {"krt_crash_ill", "KRT_CRASH_ILL_LINE", "SIGILL", "; illegal instruction"},
    [CRASH_ABORT] = {"krt_crash_abort", "KRT_CRASH_ABORT_LINE", "SIGABRT (abort)",
                     "; the kernel called abort()"},
};

/* A page of host memory at an address no executor maps (above the sanitizer shadow, below
 * the device windows), so the kernel's store is sure to fault there. */
static void *host_only_page(void)
{
    void *hint = (void *)(uintptr_t)0x150000000000ull;
    void *p = mmap(hint, 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

    assert_true(p == hint);
    memset(p, 0x5A, 4096);
    return p;
}

/* Crash device 0 one way; check the sync error, the report, that device 0 refuses work
 * from now on, and that device 1 and the host still work. */
static void crash_device_0(enum crash_kind kind)
{
    const struct crash_case *c = &crash_cases[kind];
    void *host_page = NULL;
    uint64_t addr = 0;

    capture_begin();
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    aclrtBinHandle basic = load(KPATH("krt_basic.json"), 1);
    void *dev1_buf = dev_alloc(64);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle f = func(load(KPATH("krt_crash.json"), 1), c->entry);
    if (kind == CRASH_PEER)
        addr = (uint64_t)(uintptr_t)dev1_buf;
    if (kind == CRASH_HOST) {
        host_page = host_only_page();
        addr = (uint64_t)(uintptr_t)host_page;
    }
    aclrtStream s = new_stream();
    assert_int_equal(launch(f, 1, s, args_of(f, &addr, 8, NULL)), ACL_SUCCESS);
    uint64_t t0 = now_ns();
    aclError e = aclrtSynchronizeStream(s);
    const char *text = capture_end();
    assert_int_equal(e, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_true(now_ns() - t0 < 10 * SEC_NS);

    char frame[160];
    snprintf(frame, sizeof(frame), "at %s (krt_crash.c:%d)", c->entry,
             marker_line(KRT_CRASH_SRC, c->marker));
    char head[160];
    snprintf(head, sizeof(head), "device 0 failed: kernel %s crashed with %s", c->entry, c->signal);
    assert_has(text, head);
    assert_has(text, frame);
    assert_has(text, c->cause);

    /* Device 0 is failed: every call on it returns an error, quickly. */
    void *p = NULL;
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(launch(f, 1, s, args_of(f, &addr, 8, NULL)), ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_ERROR_RT_AICPU_EXCEPTION);

    /* Device 1 and the host keep working; device 1's memory was not touched. */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    uint8_t zero[64] = {0}, got[64];
    dev_read(got, dev1_buf, sizeof(got));
    assert_memory_equal(got, zero, sizeof(got));
    assert_int_equal(run_add(basic, 20, 22), 42);
    if (host_page != NULL) {
        assert_int_equal(((uint8_t *)host_page)[0], 0x5A);
        munmap(host_page, 4096);
    }
}

static void null_pointer_crash_is_reported_and_fails_only_its_device(void **state)
{
    (void)state;
    crash_device_0(CRASH_NULL);
}

static void store_to_another_devices_memory_is_reported_as_such(void **state)
{
    (void)state;
    crash_device_0(CRASH_PEER);
}

static void store_to_a_host_pointer_is_reported_as_host_memory(void **state)
{
    (void)state;
    crash_device_0(CRASH_HOST);
}

static void bus_error_is_reported_and_fails_only_its_device(void **state)
{
    (void)state;
    crash_device_0(CRASH_BUS);
}

static void division_by_zero_is_reported_and_fails_only_its_device(void **state)
{
    (void)state;
    crash_device_0(CRASH_FPE);
}

static void illegal_instruction_is_reported_and_fails_only_its_device(void **state)
{
    (void)state;
    crash_device_0(CRASH_ILL);
}

static void abort_is_reported_and_fails_only_its_device(void **state)
{
    (void)state;
    crash_device_0(CRASH_ABORT);
}

static void kernel_past_its_timeout_fails_its_device_within_seconds(void **state)
{
    (void)state;
    capture_begin();
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtFuncHandle spin = func(load(KPATH("krt_blocks.json"), 1), "krt_spin");
    void *flag = dev_alloc(4);
    uint64_t o = (uint64_t)(uintptr_t)flag;
    uint32_t limit_ms = 60000;
    aclrtLaunchKernelAttr at = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, .value.timeout = 1};
    aclrtLaunchKernelCfg cfg = {.attrs = &at, .numAttrs = 1};
    aclrtStream s = new_stream();
    uint64_t t0 = now_ns();
    assert_int_equal(aclrtLaunchKernelWithConfig(spin, 1, s, &cfg,
                                                 args_of(spin, &o, 8, &limit_ms, 4, NULL), NULL),
                     ACL_SUCCESS);
    aclError e = aclrtSynchronizeStream(s);
    uint64_t took = now_ns() - t0;
    const char *text = capture_end();
    assert_int_equal(e, ACL_ERROR_RT_AICPU_TIMEOUT);
    assert_true(took >= SEC_NS);
    assert_true(took < 5 * SEC_NS);
    assert_has(text, "device 0 failed: kernel krt_spin exceeded its launch timeout");
    void *p = NULL;
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(run_add(load(KPATH("krt_basic.json"), 1), 1, 1), 2);
}

/* Capture stderr, open devices 1 and 0, run krt_crash's `entry` on a new stream of device 0
 * and synchronise it: for kernels that end or break their executor. */
struct ended {
    aclrtFuncHandle f;
    aclrtStream s;
    aclError sync_rc;
};

static struct ended end_device_0(const char *entry)
{
    struct ended k;
    uint64_t addr = 0;

    capture_begin();
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    k.f = func(load(KPATH("krt_crash.json"), 1), entry);
    k.s = new_stream();
    assert_int_equal(launch(k.f, 1, k.s, args_of(k.f, &addr, 8, NULL)), ACL_SUCCESS);
    k.sync_rc = aclrtSynchronizeStream(k.s);
    return k;
}

static void kernel_calling_exit_is_reported_with_its_name_and_exit_code(void **state)
{
    (void)state;
    struct ended k = end_device_0("krt_exit");
    aclError e = k.sync_rc;
    void *p = NULL;
    aclError m = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    const char *text = capture_end();
    assert_int_not_equal(e, ACL_SUCCESS);
    assert_int_equal(m, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_has(text, "device 0 failed: its executor (pid ");
    assert_has(text, "while kernel krt_exit was running");
#ifndef __SANITIZE_ADDRESS__
    /* (LeakSanitizer turns an exit with live threads into its own exit code.) */
    assert_has(text, "exited with code 3 while kernel krt_exit was running");
#endif
    /* Named once, and device 1 is not reported at all. */
    assert_null(strstr(strstr(text, "device 0 failed") + 1, "device 0 failed"));
    assert_null(strstr(text, "device 1 failed"));
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(run_add(load(KPATH("krt_basic.json"), 1), 2, 3), 5);
}

static void kernel_closing_the_executors_fds_makes_the_device_unusable(void **state)
{
    (void)state;
    struct ended k = end_device_0("krt_close_fds");
    uint64_t addr = 0;
    void *p = NULL;
    /* The executor notices on the kernel's return, before its task completes: the
     * synchronisation itself fails, and so does every later call on the device. */
    aclError m = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    aclError m2 = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    aclError l = launch(k.f, 1, k.s, args_of(k.f, &addr, 8, NULL));
    const char *text = capture_end();
    assert_int_equal(k.sync_rc, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(m, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(m2, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(l, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_has(text, "device 0 failed: kernel krt_close_fds closed the executor's own file "
                     "descriptors");
    /* Named once, device 1 not at all. */
    assert_null(strstr(strstr(text, "device 0 failed") + 1, "device 0 failed"));
    assert_null(strstr(text, "device 1 failed"));
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(run_add(load(KPATH("krt_basic.json"), 1), 2, 3), 5);
}

static void finalize_and_init_give_healthy_devices_after_a_crash(void **state)
{
    (void)state;
    crash_device_0(CRASH_NULL);
    /* The function handles survive the cycle; they must reach the new executors' images. */
    aclrtBinHandle basic = load(KPATH("krt_basic.json"), 1);
    assert_int_equal(aclrtSetDevice(0), ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    aclrtFuncHandle count = func(basic, "krt_count");
    count_on(count, 1, 1, 2);
    assert_int_equal(cycle_teardown(state), 0);
    assert_int_equal(cycle_setup(state), 0);
    /* A different image loads first in the new executors, so stale ids would point at it. */
    aclrtBinHandle blocks = load(KPATH("krt_blocks.json"), 1);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    (void)func(blocks, "krt_spin");
    struct {
        uint32_t ticket, arrived, passed, slot[64];
    } st;
    aclrtFuncHandle bf = func(blocks, "krt_blocks");
    void *dst = dev_alloc(sizeof(st));
    uint64_t o = (uint64_t)(uintptr_t)dst;
    uint32_t one = 1, wait_ms = 1000;
    assert_int_equal(launch(bf, 1, NULL, args_of(bf, &o, 8, &one, 4, &wait_ms, 4, NULL)),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    count_on(count, 1, 1, 3); /* a fresh executor: the global starts at 0 again */
    count_on(count, 0, 1, 1);
    assert_int_equal(run_add(basic, 30, 12), 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, cycle_setup, cycle_teardown)
        T(descriptor_with_cpu_kernel_mode_loads_and_runs),
        T(shared_object_path_loads_directly_and_exports_its_functions),
        T(image_bytes_load_from_data_and_register_as_cpu_funcs),
        T(unknown_names_bad_options_and_unloaded_handles_are_refused),
        T(host_only_import_is_refused_at_load_naming_the_symbol),
        T(args_of_odd_sizes_are_packed_without_padding_and_copied_at_append),
        T(args_hold_exactly_64_kib_and_refuse_one_byte_more),
        T(args_refuse_a_129th_param_and_appends_after_finalize),
        T(placeholder_buffer_reaches_the_kernel_as_a_device_pointer),
        T(para_update_changes_a_value_between_launches),
        T(raw_launch_takes_arguments_already_in_device_memory),
        T(several_entries_of_one_image_run_in_order_on_one_stream),
        T(queued_launches_past_the_argument_ring_each_read_their_own),
        T(launches_past_ring_and_table_wait_for_room),
        T(each_device_has_its_own_copy_of_kernel_globals),
        T(blocks_of_one_launch_run_concurrently_and_number_themselves),
        T(cxx_kernel_uses_vector_and_exceptions_and_returns_the_right_sum),
        T(nonzero_return_fails_the_sync_and_the_stream_works_again),
        T(null_pointer_crash_is_reported_and_fails_only_its_device),
        T(store_to_another_devices_memory_is_reported_as_such),
        T(store_to_a_host_pointer_is_reported_as_host_memory),
        T(bus_error_is_reported_and_fails_only_its_device),
        T(division_by_zero_is_reported_and_fails_only_its_device),
        T(illegal_instruction_is_reported_and_fails_only_its_device),
        T(abort_is_reported_and_fails_only_its_device),
        T(kernel_past_its_timeout_fails_its_device_within_seconds),
        T(kernel_calling_exit_is_reported_with_its_name_and_exit_code),
        T(kernel_closing_the_executors_fds_makes_the_device_unusable),
        T(finalize_and_init_give_healthy_devices_after_a_crash),
#undef T
    };
    snprintf(job_parent, sizeof(job_parent), "/dev/shm/hcemu-krt-%d-XXXXXX", (int)getpid());
    if (mkdtemp(job_parent) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    setenv("HCEMU_JOB_DIR", job_parent, 1);
    setenv("HCEMU_DEVICES", "2", 1);
    int failed = cmocka_run_group_tests_name("kernel_runtime", tests, NULL, NULL);
    rmdir(job_parent);
    free(cap.text);
    return failed;
}
