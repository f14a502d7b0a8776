/* jail/jail.h: the process tier's internal contract. The parent prepares a struct sbx__jail_spec
 * (every path, argv, filter and fd) before clone3; the child only reads it and makes system
 * calls, because a fork-like child of a threaded host may not allocate or take locks. */
#ifndef SBX_JAIL_JAIL_H
#define SBX_JAIL_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/backend.h"
#include "util/buf.h"

/* Detached mounts (open_tree(2)) the parent hands the child: the engine module and its stencil
 * file. The child keeps them at fds SBX__JAIL_FD_TREE + slot until its mounts are made. */
#define SBX__JAIL_TREES   2
#define SBX__JAIL_FD_TREE 8

/* Inside the jail the guest is this uid/gid; outside it is an unprivileged host id. */
#define SBX__JAIL_GUEST_ID 1000
#define SBX__JAIL_NOBODY   65534

/* Where the setup failed, reported to the parent as a stage number. */
enum sbx__jail_stage {
    SBX__STAGE_CGROUPNS = 1,
    SBX__STAGE_USERNS,
    SBX__STAGE_MOUNT,
    SBX__STAGE_PIVOT,
    SBX__STAGE_NET,
    SBX__STAGE_FDS,
    SBX__STAGE_RLIMIT,
    SBX__STAGE_CAPS,
    SBX__STAGE_LANDLOCK,
    SBX__STAGE_SECCOMP,
    SBX__STAGE_FORK,
    SBX__STAGE_CGROUP,
};

/* Late filters on the sync pipe: this header, then count[0] + count[1] sock_filter insns. */
struct sbx__jail_late_bpf {
    uint16_t count[2];
};

/* What pid 1 of the jail writes on the status pipe. */
enum sbx__jail_report_kind { SBX__REPORT_SETUP = 1, SBX__REPORT_EXEC, SBX__REPORT_EXITED };
struct sbx__jail_report {
    int32_t kind;    /* enum sbx__jail_report_kind */
    int32_t stage;   /* SETUP: enum sbx__jail_stage */
    int32_t err;     /* SETUP, EXEC: errno */
    int32_t detail;  /* SETUP/MOUNT: index of the mount step */
    int32_t wstatus; /* EXITED: the guest's wait status */
};

enum sbx__jail_mount_kind {
    SBX__MNT_TMPFS,    /* src = mount data ("size=..,mode=..") */
    SBX__MNT_BIND,     /* src = host path, read-only */
    SBX__MNT_BIND_RW,  /* src = host path, writable */
    SBX__MNT_BIND_DEV, /* src = host device node (keeps the device usable) */
    SBX__MNT_PROC,     /* fresh procfs */
    SBX__MNT_SYMLINK,  /* src = link target */
    SBX__MNT_DIR,      /* an empty directory */
    SBX__MNT_READONLY, /* remount dst read-only (after it was filled) */
    SBX__MNT_MASK,     /* hide dst if it exists: /dev/null over a file, an empty tmpfs over a dir */
    SBX__MNT_FILE,     /* src = the text of a new read-only file in the root tmpfs */
    SBX__MNT_TREE,     /* a detached read-only mount the parent cloned from src: spec->tree_fds */
};

struct sbx__jail_mount {
    enum sbx__jail_mount_kind kind;
    char *src;
    char *dst;        /* absolute path under the new root */
    bool is_dir;      /* binds: the source is a directory */
    bool is_optional; /* binds: skip when the source vanished */
    bool is_grant;    /* from policy.fs: a failure is the policy's, not the kernel's */
    int grant;        /* is_grant: its slot in spec->grant_fds; -1 otherwise */
    int tree;         /* SBX__MNT_TREE: its slot in spec->tree_fds */
};

/* One Landlock rule: a guest path and the access granted beneath it. */
struct sbx__jail_rule {
    char *path;
    uint64_t access;
    size_t grant_slot; /* 0: on path; n: on the fd in spec->grant_fds[n - 1] (a grant's) */
};

struct sbx__jail_rlimits {
    uint64_t data_bytes; /* 0 = not set (cgroup holds memory) */
    uint64_t nproc;      /* 0 = not set (cgroup holds pids) */
    uint64_t fsize_bytes;
    uint64_t nofile;
};

/* A seccomp-bpf program exported by libseccomp (struct sock_filter array). */
struct sbx__jail_bpf {
    const void *insns;
    unsigned short count;
};

struct sbx__jail_spec {
    /* user namespace, mounts, net */
    uid_t guest_uid;
    gid_t guest_gid;
    bool can_setgroups;  /* root: drop supplementary groups; unprivileged cannot */
    bool is_self_mapped; /* unprivileged: the child writes its own id maps */
    uid_t host_uid;      /* what the guest ids map to */
    gid_t host_gid;
    bool has_cgroup;         /* v2: the parent attaches the child, then sends 'g' */
    int cgroup_tasks_fds[3]; /* v1: the child moves itself, "0" into each tasks file (-1: none) */
    char *root_dir;          /* host directory the new root tmpfs is mounted on */
    struct sbx__jail_mount *mounts;
    size_t mount_count;
    bool net_loopback;
    /* confinement */
    struct sbx__jail_rlimits rlimits;
    int landlock_abi; /* 0 = not applied */
    struct sbx__jail_rule *rules;
    size_t rule_count;
    /* One slot per policy.fs grant, -1 in the plan. The child opens each grant once without
     * following symlinks (util/path.c), binds that fd and hands it to Landlock; this array is
     * the one thing of the spec the child writes, in its own copy-on-write memory. */
    int *grant_fds;
    size_t grant_count;
    int tree_fds[SBX__JAIL_TREES]; /* the parent's, tree_count of them; the plan closes them */
    size_t tree_count;
    struct sbx__jail_bpf filters[2]; /* argument filter, then the allowlist */
    bool has_late_filters; /* the process's first run: filters[] arrive on sync_fd, built by the
                            * parent while this child sets up (libseccomp takes ~1 ms) */
    struct sbx__jail_bpf gate_filter; /* net.outbound (gate_filter.c); count 0: none */
    int gate_fd; /* the child's end of the socketpair its seccomp listener goes to, or -1 */
    /* the guest */
    char **exec_paths; /* candidates for argv[0] (PATH search done up front) */
    size_t exec_path_count;
    int exec_fd; /* >= 0: execveat(exec_fd) instead (sbx's own binary, sealed) */
    char **argv;
    char **envp;
    char *cwd; /* input->cwd: the guest's working directory, or NULL for "/" */
    /* fds as the child inherits them; -1 = none / inherit the host's */
    int sync_fd;   /* read end: 'm' once the parent wrote the maps, 'g' once it attached the
                    * cgroup; -1 when neither is needed */
    int status_fd; /* write end of the report pipe */
    int stdio[3];
    int result_fd; /* becomes fd 3 of the guest (sbx-js guest only) */
    /* The host program's argv area [start, start + len), which pid 1 (a fork of it) overwrites
     * with a neutral title: /proc/1/cmdline is readable by every guest. len 0: not found. */
    char *title_area;
    size_t title_len;
};

/* Stage names for messages ("mount", "seccomp"), static storage. */
const char *sbx__jail_stage_name(int stage);

/* jail.c: the child's ordered pipeline; never returns. */
_Noreturn void sbx__jail_child_main(const struct sbx__jail_spec *spec);

/* userns.c */
int sbx__jail_userns_write_maps(pid_t pid, uid_t host_uid, gid_t host_gid, bool deny_setgroups);
int sbx__jail_userns_apply(const struct sbx__jail_spec *spec);
/* Child side, unprivileged: maps the child's own ids (user_namespaces(7), rule 4b). */
int sbx__jail_userns_map_self(const struct sbx__jail_spec *spec);

/* mount.c: plan building (parent) and applying (child). */
int sbx__jail_mount_apply(const struct sbx__jail_spec *spec, int *failed_step);
/* Closes the grant fds mount_apply opened (after Landlock has its rules). */
void sbx__jail_mount_close_grants(const struct sbx__jail_spec *spec);
int sbx__jail_mount_pivot(const char *root_dir);
int sbx__jail_mount_finish(void);

/* net.c */
int sbx__jail_net_apply(bool loopback);

/* caps.c */
int sbx__jail_caps_drop(void);

/* landlock.c */
int sbx__jail_landlock_abi(void);
uint64_t sbx__jail_landlock_read_access(void);
uint64_t sbx__jail_landlock_write_access(int abi);
uint64_t sbx__jail_landlock_dev_access(int abi);
uint64_t sbx__jail_landlock_file_access(void);
int sbx__jail_landlock_apply(const struct sbx__jail_spec *spec);

/* seccomp.c: both filters, as the build computed them (or built once per process when it did
 * not); sbx__jail_seccomp_apply() in the child. */
sbx_err sbx__jail_seccomp_filters(struct sbx__jail_bpf out[2]);
/* Builds both filters with libseccomp now (the build step, and a test comparing the two). */
sbx_err sbx__jail_seccomp_build(struct sbx__jail_bpf out[2]);
/* Whether the filters come compiled in (no libseccomp work at run time). */
bool sbx__jail_seccomp_is_prebuilt(void);
int sbx__jail_seccomp_apply(const struct sbx__jail_bpf filters[2]);
/* Exports a libseccomp context as plain BPF (out->insns allocated, kept for the process). */
int sbx__jail_seccomp_export(void *ctx, struct sbx__jail_bpf *out);

/* rlimit.c */
int sbx__jail_rlimit_apply(const struct sbx__jail_rlimits *r);

/* cgroup.c: one cgroup per sandbox handle. */
struct sbx__jail_cgroup {
    int version;        /* 0 = none (rlimits), 1, 2 */
    char *dirs[3];      /* v1: memory, pids, cpu; v2: dirs[0] only */
    int attach_fds[3];  /* v1: tasks files (the child moves itself); v2: cgroup.procs */
    uint64_t oom_kills; /* counters as of the last run */
    uint64_t pids_max_hits;
};
void sbx__jail_cgroup_init(struct sbx__jail_cgroup *cg);
/* Creates the handle's cgroup with the policy's limits; version stays 0 when not delegated. */
void sbx__jail_cgroup_create(struct sbx__jail_cgroup *cg, const struct sbx_policy *policy);
/* v2: moves pid into the cgroup (the parent's side). */
int sbx__jail_cgroup_attach(const struct sbx__jail_cgroup *cg, pid_t pid);
/* v1: the tasks files a child writes "0" to, moving itself; all -1 otherwise. */
void sbx__jail_cgroup_self_fds(const struct sbx__jail_cgroup *cg, int fds[3]);
/* Reads the counters; sets *is_oom / *is_pids_hit if they rose since the last call. */
void sbx__jail_cgroup_poll(struct sbx__jail_cgroup *cg, bool *is_oom, bool *is_pids_hit);
void sbx__jail_cgroup_destroy(struct sbx__jail_cgroup *cg);

/* spawn.c: clone3 into fresh namespaces; returns the child's pid and pidfd, or -errno. */
pid_t sbx__jail_spawn(const struct sbx__jail_spec *spec, int *pidfd);

/* supervisor.c: drives one started jail to its end. */
struct sbx__jail_tty;
struct sbx__jail_gate;
struct sbx__jail_watch {
    pid_t pid;
    int pidfd;
    int status_fd;               /* read end */
    int stdin_fd;                /* write end or -1 */
    int out_fds[2];              /* read ends or -1 */
    int result_fd;               /* read end or -1 */
    int event_fd;                /* interrupt */
    struct sbx__jail_tty *tty;   /* the pty relay of a pass-through run, or NULL */
    struct sbx__jail_gate *gate; /* the net.outbound broker, or NULL */
    const char *stdin_data;
    size_t stdin_len;
    uint64_t deadline_ns;
    size_t max_output;
    sbx_output_fn on_output; /* input->on_output: stdout/stderr chunks as they are read */
    void *on_output_user;
    /* outcome */
    struct sbx__jail_report report;
    bool has_report;
    bool is_timeout;
    bool is_aborted;
    int init_wstatus;
};
/* write(2) with SIGPIPE blocked for the calling thread (and a pending one consumed). */
ssize_t sbx__jail_write_nosig(int fd, const void *data, size_t len);
/* Runs the poll loop; out gets stdout/stderr; result (if non-NULL) the result channel. */
sbx_err sbx__jail_supervise(struct sbx__jail_watch *w, const _Atomic int *interrupt,
                            sbx_result *out, struct sbx__buf *result);

#endif
