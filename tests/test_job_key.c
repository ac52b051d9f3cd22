/* test_job_key.c - the pieces of multi-host authentication: a job's key read only from a
 * private file of 64 hex digits (common/contract/job_key.c), proofs that change with every nonce,
 * label and key (host/hccl/rdv/rdv_auth.c: a captured proof answers no other challenge), the
 * executors' admission token (never the key itself), and the executor's table of admitted
 * jobs (device/net/net_admit.c: an unknown token is refused, the oldest of 17 jobs forgotten). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/contract/job_key.h"
#include "device/net/net_admit.h"
#include "host/hccl/rdv/rdv_auth.h"

static const char HEX[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

static void write_key(const char *path, const char *text, unsigned mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(chmod(path, mode), 0);
}

static void a_key_file_must_be_private_and_hold_a_key(void **state)
{
    char dir[] = "/tmp/hcemu-key-test-XXXXXX", path[64], why[200];
    uint8_t key[EMU_JOB_KEY_BYTES];
    (void)state;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/key", dir);
    write_key(path, HEX, 0600);
    assert_int_equal(emu_job_key_read_file(path, key, why, sizeof(why)), EMU_OK);
    assert_int_equal(key[1], 0x11);
    assert_int_equal(key[31], 0xff);
    write_key(path, HEX, 0640);
    assert_int_equal(emu_job_key_read_file(path, key, why, sizeof(why)), EMU_EFILE);
    assert_non_null(strstr(why, "others may read it"));
    write_key(path, "00112233\n", 0600);
    assert_int_equal(emu_job_key_read_file(path, key, why, sizeof(why)), EMU_EINVAL);
    char bad[sizeof(HEX)];
    memcpy(bad, HEX, sizeof(HEX));
    bad[10] = 'g';
    write_key(path, bad, 0600);
    assert_int_equal(emu_job_key_read_file(path, key, why, sizeof(why)), EMU_EINVAL);
    unlink(path);
    /* A made key is new, private, and never written over an existing file. */
    assert_int_equal(emu_job_key_make_file(path, why, sizeof(why)), EMU_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(emu_job_key_read_file(path, key, why, sizeof(why)), EMU_OK);
    assert_int_equal(emu_job_key_make_file(path, why, sizeof(why)), EMU_EFILE);
    unlink(path);
    rmdir(dir);
}

static void a_proof_answers_one_challenge_of_one_key(void **state)
{
    uint8_t k1[EMU_JOB_KEY_BYTES], k2[EMU_JOB_KEY_BYTES], n1[EMU_RDV_NONCE_BYTES],
        n2[EMU_RDV_NONCE_BYTES], n3[EMU_RDV_NONCE_BYTES];
    uint8_t p[6][EMU_RDV_PROOF_BYTES];
    char why[200];
    (void)state;

    assert_int_equal(emu_job_key_parse(HEX, strlen(HEX), k1, why, sizeof(why)), EMU_OK);
    memcpy(k2, k1, sizeof(k2));
    k2[0] ^= 1;
    assert_true(emu_rdv_nonce(n1) && emu_rdv_nonce(n2) && emu_rdv_nonce(n3));
    assert_memory_not_equal(n1, n2, sizeof(n1)); /* fresh from the kernel */
    emu_rdv_proof(k1, "rank", n1, n2, "who", 3, p[0]);
    emu_rdv_proof(k1, "rank", n1, n2, "who", 3, p[1]);
    emu_rdv_proof(k1, "rank", n3, n2, "who", 3, p[2]);      /* another challenge */
    emu_rdv_proof(k1, "listener", n1, n2, "who", 3, p[3]);  /* the other side's */
    emu_rdv_proof(k2, "rank", n1, n2, "who", 3, p[4]);      /* another key */
    emu_rdv_proof(k1, "rank", n1, n2, "wha", 3, p[5]);      /* another identity */
    assert_true(emu_rdv_proof_equal(p[0], p[1]));
    for (int i = 2; i < 6; i++)
        assert_false(emu_rdv_proof_equal(p[0], p[i]));
    /* The executors' token: derived, not the key, and another for another key. */
    uint8_t t1[EMU_NET_TOKEN_BYTES], t2[EMU_NET_TOKEN_BYTES];
    emu_rdv_net_token(k1, t1);
    emu_rdv_net_token(k2, t2);
    assert_memory_not_equal(t1, k1, sizeof(t1));
    assert_memory_not_equal(t1, t2, sizeof(t1));
}

static void an_executor_admits_only_the_jobs_it_serves(void **state)
{
    struct emu_net_admit a;
    uint8_t t[EMU_NET_ADMIT_MAX + 1][EMU_NET_TOKEN_BYTES];
    (void)state;

    memset(&a, 0, sizeof(a));
    for (uint32_t i = 0; i <= EMU_NET_ADMIT_MAX; i++)
        memset(t[i], (int)(i + 1), sizeof(t[i]));
    assert_false(emu_net_admit_has(&a, t[0])); /* nothing before the first job */
    emu_net_admit_add(&a, t[0]);
    emu_net_admit_add(&a, t[0]); /* a second communicator of the same job */
    assert_true(emu_net_admit_has(&a, t[0]));
    assert_false(emu_net_admit_has(&a, t[1]));
    for (uint32_t i = 1; i <= EMU_NET_ADMIT_MAX; i++)
        emu_net_admit_add(&a, t[i]);
    assert_false(emu_net_admit_has(&a, t[0])); /* the oldest of 17 is forgotten */
    for (uint32_t i = 1; i <= EMU_NET_ADMIT_MAX; i++)
        assert_true(emu_net_admit_has(&a, t[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_key_file_must_be_private_and_hold_a_key),
        cmocka_unit_test(a_proof_answers_one_challenge_of_one_key),
        cmocka_unit_test(an_executor_admits_only_the_jobs_it_serves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
