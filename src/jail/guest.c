/* jail/guest.c: script staging and sbx's own guest binary. The binary is copied once into a
 * sealed memfd and executed from that fd, never from a path: a guest that could open it through
 * /proc/<pid>/exe still cannot write to what the host runs (runc CVE-2019-5736). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sbx/policy.h>

#include "core/policy.h"

#include "jail/guest.h"
#include "js_module_path.h" /* generated: SBX_BINDIR, PREFIX's (mk/js.mk) */
#include "util/alloc.h"
#include "util/json_text.h"

static int open_candidate(void)
{
    const char *env = getenv("SBX_GUEST_BINARY");
    if (env && env[0])
        return open(env, O_RDONLY | O_CLOEXEC);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = '\0';
        const char *base = strrchr(self, '/');
        if (base && strcmp(base + 1, "sbx") == 0)
            return open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    }
    return open(SBX_BINDIR "/sbx", O_RDONLY | O_CLOEXEC);
}

static int seal_copy(int src)
{
    struct stat st;
    if (fstat(src, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return -1;
    int mfd = memfd_create("sbx-guest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (mfd < 0)
        return -1;
    off_t off = 0;
    while (off < st.st_size) {
        ssize_t n = sendfile(mfd, src, &off, (size_t)(st.st_size - off));
        if (n <= 0) {
            close(mfd);
            return -1;
        }
    }
    int seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
    if (fcntl(mfd, F_ADD_SEALS, seals) != 0) {
        close(mfd);
        return -1;
    }
    return mfd;
}

int sbx__jail_guest_binary(void)
{
    int src = open_candidate();
    if (src < 0)
        return -1;
    int mfd = seal_copy(src);
    close(src);
    return mfd;
}

bool sbx__jail_guest_is_js(const char *interpreter)
{
    return !interpreter || !interpreter[0] || strcmp(interpreter, "sbx-js") == 0;
}

static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            close(fd);
            return -err;
        }
        off += (size_t)n;
    }
    return close(fd) == 0 ? 0 : -errno;
}

/* The file name's extension matters to some interpreters (node picks CommonJS for .js). */
static const char *script_name(const char *interp)
{
    const char *base = strrchr(interp, '/');
    base = base ? base + 1 : interp;
    if (strncmp(base, "node", 4) == 0 || strcmp(base, "bun") == 0 || strcmp(base, "deno") == 0)
        return "main.js";
    if (strncmp(base, "python", 6) == 0)
        return "main.py";
    if (strcmp(base, "sh") == 0 || strcmp(base, "bash") == 0 || strcmp(base, "dash") == 0)
        return "main.sh";
    return "main";
}

static bool interp_ok(const char *s)
{
    if (s[0] == '/')
        return strstr(s, "/../") == NULL;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-' || *s == '+'))
            return false;
    }
    return true;
}

sbx_err sbx__jail_guest_stage(const char *dir, const struct sbx__run *run, const char *argv[8],
                              char *err, size_t errlen)
{
    const sbx_run_input *in = run->input;
    bool is_js = sbx__jail_guest_is_js(in->interpreter);
    if (!is_js && !interp_ok(in->interpreter)) {
        snprintf(err, errlen, "invalid interpreter name '%s'", in->interpreter);
        return SBX_E_INVALID_ARGUMENT;
    }
    if (mkdir(dir, 0755) != 0) {
        snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
        return SBX_E_IO;
    }
    const char *name = is_js ? "main.js" : script_name(in->interpreter);
    int rc = write_file(dir, name, in->code, in->code_len);
    if (rc == 0 && is_js) {
        const char *pj = sbx__policy_json(run->policy); /* made once per policy */
        rc = pj ? write_file(dir, "policy.json", pj, strlen(pj)) : -ENOMEM;
    }
    if (rc) {
        snprintf(err, errlen, "staging the script: %s", strerror(-rc));
        return rc == -ENOMEM ? SBX_E_NOMEM : SBX_E_IO;
    }
    static const char *const js[] = {"sbx",          "__js-guest", "--policy", "/sbx/policy.json",
                                     "/sbx/main.js", NULL};
    static char paths[4][16] = {"/sbx/main.js", "/sbx/main.py", "/sbx/main.sh", "/sbx/main"};
    memset(argv, 0, 8 * sizeof(argv[0]));
    if (is_js) {
        memcpy(argv, js, sizeof(js));
        return SBX_OK;
    }
    argv[0] = in->interpreter;
    for (int i = 0; i < 4; i++) {
        if (strcmp(paths[i] + 5, name) == 0)
            argv[1] = paths[i];
    }
    return SBX_OK;
}

void sbx__jail_guest_unstage(const char *dir)
{
    static const char *const names[] = {"main.js", "main.py", "main.sh", "main", "policy.json"};
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Records: "<key>:<decimal length>:<bytes>", keys ok, error, message, value, stdout_truncated,
 * stderr_truncated. Written by src/cli/guest_js.c. */
static bool next_record(const char **p, const char *end, char key[32], const char **val,
                        size_t *vlen)
{
    const char *colon = memchr(*p, ':', (size_t)(end - *p));
    if (!colon || colon - *p >= 32)
        return false;
    memcpy(key, *p, (size_t)(colon - *p));
    key[colon - *p] = '\0';
    size_t n = 0;
    const char *q = colon + 1;
    for (; q < end && *q >= '0' && *q <= '9' && n < ((size_t)1 << 40); q++)
        n = n * 10 + (size_t)(*q - '0');
    if (q >= end || *q != ':' || (size_t)(end - q - 1) < n)
        return false;
    *val = q + 1;
    *vlen = n;
    *p = q + 1 + n;
    return true;
}

static void apply_record(const char *key, const char *val, size_t vlen, sbx_result *out,
                         sbx_err *code, char **message)
{
    bool is_one = vlen == 1 && val[0] == '1';
    if (strcmp(key, "ok") == 0) {
        out->ok = is_one;
    } else if (strcmp(key, "error") == 0) {
        char name[64];
        size_t n = vlen < sizeof(name) - 1 ? vlen : sizeof(name) - 1;
        memcpy(name, val, n);
        name[n] = '\0';
        if (sbx_err_from_name(name, code) != 0)
            *code = SBX_E_EXECUTION_FAILED;
    } else if (strcmp(key, "message") == 0) {
        sbx__free(*message);
        *message = sbx__strndup(val, vlen);
    } else if (strcmp(key, "stack") == 0) {
        sbx__free(out->error_stack);
        out->error_stack = sbx__strndup(val, vlen);
    } else if (strcmp(key, "value") == 0) {
        sbx__free(out->value_json);
        out->value_json = sbx__strndup(val, vlen);
    } else if (strcmp(key, "stdout_truncated") == 0) {
        out->stdout_truncated |= is_one;
    } else if (strcmp(key, "stderr_truncated") == 0) {
        out->stderr_truncated |= is_one;
    }
}

static sbx_limit limit_of(sbx_err code)
{
    switch (code) {
    case SBX_E_TIMEOUT:
        return SBX_LIMIT_TIMEOUT;
    case SBX_E_MEMORY_LIMIT:
        return SBX_LIMIT_MEMORY;
    case SBX_E_OUTPUT_LIMIT:
        return SBX_LIMIT_OUTPUT;
    case SBX_E_PIDS_LIMIT:
        return SBX_LIMIT_PIDS;
    default:
        return SBX_LIMIT_NONE;
    }
}

bool sbx__jail_guest_apply_result(const char *data, size_t len, sbx_result *out)
{
    if (!data || len == 0)
        return false;
    const char *p = data, *end = data + len;
    sbx_err code = SBX_E_EXECUTION_FAILED;
    char *message = NULL;
    out->ok = false;
    bool has_ok = false;
    while (p < end) {
        char key[32];
        const char *val;
        size_t vlen;
        if (!next_record(&p, end, key, &val, &vlen))
            break;
        has_ok |= strcmp(key, "ok") == 0;
        apply_record(key, val, vlen, out, &code, &message);
    }
    if (has_ok && out->ok && out->value_json &&
        !sbx__json_text_is_valid(out->value_json, strlen(out->value_json))) {
        sbx__free(out->value_json); /* a forged record: never shown as some other value */
        out->value_json = NULL;
        out->ok = false;
        code = SBX_E_EXECUTION_FAILED;
        sbx__free(message);
        message = sbx__strdup("the guest's value record is not JSON");
    }
    if (has_ok && !out->ok) {
        sbx__result_fail(out, code, "%s", message ? message : sbx_err_message(code));
        out->limit = limit_of(code);
    }
    sbx__free(message);
    return has_ok;
}
