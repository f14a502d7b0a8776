/* tests/unit/jail/test_supervisor.c: a jail never outlives its supervisor. A host killed in the
 * middle of a run (SIGKILL, nothing of it runs) must take the jail with it: the guest's
 * heartbeat into a writable grant stops. The control: the heartbeat runs while the host lives. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "jail_test.h"

static off_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

START_TEST(test_jail_dies_with_its_host)
{
    char dir[PATH_MAX], json[PATH_MAX + 64], beat[PATH_MAX + 8];
    jt_tempdir(dir, "host");
    ck_assert_int_eq(chmod(dir, 0777), 0);
    snprintf(json, sizeof(json), "{\"timeoutMs\":20000,\"fs\":[\"rw:%s::/w\"]}", dir);
    snprintf(beat, sizeof(beat), "%s/beat", dir);
    pid_t host = fork();
    ck_assert_int_ge(host, 0);
    if (host == 0) {
        sbx_sandbox *sb = jt_sandbox(json);
        sbx_result r;
        jt_sh(sb, "while :; do echo x >> /w/beat; sleep 0.02; done", &r);
        _exit(0); /* not reached: killed during the run */
    }
    off_t first = -1;
    for (int i = 0; i < 200 && first <= 0; i++, sleep_ms(25))
        first = size_of(beat);
    sleep_ms(200);
    ck_assert_msg(size_of(beat) > first, "control: no heartbeat while the host lives");
    kill(host, SIGKILL);
    ck_assert_int_eq(waitpid(host, NULL, 0), host);
    sleep_ms(300); /* the kernel's SIGKILL of the jail, and its teardown */
    off_t after = size_of(beat);
    sleep_ms(500);
    ck_assert_msg(size_of(beat) == after, "the guest still beats after its host died");
    jt_rmrf(dir);
}
END_TEST

int main(void)
{
    jt_guest_binary();
    Suite *s = suite_create("jail-supervisor");
    TCase *tc = tcase_create("supervisor");
    tcase_set_timeout(tc, 40);
    tcase_add_test(tc, test_jail_dies_with_its_host);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}
