/* test_launch.c - common/contract/launch.c: the rank identity a launcher hands a process (hcemu-run
 * first, then Open MPI, then Slurm), bad values refused with one line; common/contract/host_id.c: the
 * host a process is on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/contract/host_id.h"
#include "common/contract/launch.h"

static const char *const all_vars[] = {
    "HCEMU_RANK", "HCEMU_RANK_SIZE", "HCEMU_LOCAL_RANK", "HCEMU_JOB_ID",
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_NAMESPACE",
    "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID",
};

static int clear(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(all_vars) / sizeof(all_vars[0]); i++)
        unsetenv(all_vars[i]);
    return 0;
}

static void no_launcher(void **state)
{
    struct emu_launch_id l;

    (void)state;
    assert_false(emu_launch_identity(&l));
}

static void open_mpi(void **state)
{
    struct emu_launch_id l;

    (void)state;
    setenv("OMPI_COMM_WORLD_RANK", "5", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    setenv("PMIX_NAMESPACE", "1551761409", 1);
    assert_true(emu_launch_identity(&l));
    assert_int_equal(l.rank, 5);
    assert_int_equal(l.size, 8);
    assert_int_equal(l.local, 1);
    assert_string_equal(l.via, "mpirun");
    assert_string_equal(l.job, "1551761409");
}

static void slurm_without_local_id(void **state)
{
    struct emu_launch_id l;

    (void)state;
    setenv("SLURM_PROCID", "3", 1);
    setenv("SLURM_NTASKS", "4", 1);
    assert_true(emu_launch_identity(&l));
    assert_int_equal(l.rank, 3);
    assert_int_equal(l.local, 3); /* no index on the node: the rank is the device */
    assert_string_equal(l.via, "srun");
    assert_string_equal(l.job, "");
}

/* hcemu-run started under mpirun hands its own ranks: it wins. */
static void hcemu_run_first(void **state)
{
    struct emu_launch_id l;

    (void)state;
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    setenv("HCEMU_RANK", "6", 1);
    setenv("HCEMU_RANK_SIZE", "8", 1);
    setenv("HCEMU_LOCAL_RANK", "2", 1);
    assert_true(emu_launch_identity(&l));
    assert_int_equal(l.rank, 6);
    assert_int_equal(l.local, 2);
    assert_string_equal(l.via, "hcemu-run");
}

static void bad_values(void **state)
{
    struct emu_launch_id l;

    (void)state;
    setenv("OMPI_COMM_WORLD_RANK", "8", 1); /* not below the size */
    setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
    assert_false(emu_launch_identity(&l));
    setenv("OMPI_COMM_WORLD_RANK", "-1", 1);
    assert_false(emu_launch_identity(&l));
    setenv("OMPI_COMM_WORLD_RANK", "1x", 1);
    assert_false(emu_launch_identity(&l));
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "z", 1);
    assert_false(emu_launch_identity(&l));
}

/* The key separates boots, network namespaces, /dev/shm mounts and HCEMU_HOST names. */
static void host_keys_differ_per_host(void **state)
{
    const char *boot = "0b7c4a8e-1111-2222-3333-444455556666";
    uint64_t base = emu_host_key_of(boot, 4026531840u, 25, 1, "");

    (void)state;
    assert_int_not_equal(base, 0);
    assert_int_equal(base, emu_host_key_of(boot, 4026531840u, 25, 1, ""));
    assert_int_not_equal(base, emu_host_key_of("other-boot", 4026531840u, 25, 1, ""));
    assert_int_not_equal(base, emu_host_key_of(boot, 4026532001u, 25, 1, ""));
    assert_int_not_equal(base, emu_host_key_of(boot, 4026531840u, 26, 1, ""));
    assert_int_not_equal(base, emu_host_key_of(boot, 4026531840u, 25, 1, "a"));
    assert_int_not_equal(emu_host_key_of(boot, 4026531840u, 25, 1, "a"),
                         emu_host_key_of(boot, 4026531840u, 25, 1, "b"));
}

/* HCEMU_HOST names the process's host (read once, at the first use). */
static void host_setting_names_this_host(void **state)
{
    (void)state;
    setenv("HCEMU_HOST", "hostA", 1);
    const struct emu_host_id *me = emu_host_self();
    assert_string_equal(me->name, "hostA");
    assert_true(emu_host_is_mine(me->key));
    assert_true(emu_host_is_mine(0));
    assert_false(emu_host_is_mine(me->key ^ 1));
    unsetenv("HCEMU_HOST");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(no_launcher, clear),
        cmocka_unit_test_setup(open_mpi, clear),
        cmocka_unit_test_setup(slurm_without_local_id, clear),
        cmocka_unit_test_setup(hcemu_run_first, clear),
        cmocka_unit_test_setup(bad_values, clear),
        cmocka_unit_test(host_keys_differ_per_host),
        cmocka_unit_test(host_setting_names_this_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
