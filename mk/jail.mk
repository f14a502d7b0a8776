# mk/jail.mk: the process tier: escape probes and their driver, jail suites, benchmark.
# SBX_BINDIR (where the sbx-js guest binary is) comes from the generated install-paths header
# of mk/js.mk, rewritten when PREFIX changes, so `make install PREFIX=...` rebuilds guest.o.

JAIL_PROBE_SRC := $(wildcard tests/jail/probes/*.c)
JAIL_PROBES    := $(JAIL_PROBE_SRC:tests/jail/probes/%.c=$(BUILD)/tests/jail/probes/%)
JAIL_DRIVER    := $(BUILD)/tests/jail/driver

$(BUILD)/tests/jail/probes/%: tests/jail/probes/%.c tests/jail/probes/probe.h
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -std=c17 -O1 -Wall -Wextra -Werror -o $@ $<

$(JAIL_DRIVER): tests/jail/driver.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)

# Everything runs as root and again, through setpriv, as an unprivileged user (user namespaces
# only, rlimits instead of cgroups); jail/unit-rlimit forces the rlimit fallback as root. The
# unit tests find this build's sbx for the sbx-js guest themselves (SBX_GUEST_BINARY).
JAIL_UNPRIV := setpriv,--reuid=65534,--regid=65534,--clear-groups
JAIL_SBX    := $(abspath $(BUILD)/sbx)
TEST_DEPS   += $(JAIL_PROBES) $(JAIL_DRIVER)
TEST_SUITES += jail/probes=$(JAIL_DRIVER),$(abspath $(BUILD)/tests/jail/probes),--controls \
               jail/probes-unprivileged=$(JAIL_UNPRIV),$(JAIL_DRIVER),$(abspath $(BUILD)/tests/jail/probes) \
               jail/cli=sh,tests/jail/cli_run.sh,$(JAIL_SBX) \
               jail/cli-unprivileged=$(JAIL_UNPRIV),sh,tests/jail/cli_run.sh,$(JAIL_SBX) \
               jail/unit-rlimit=env,SBX_JAIL_NO_CGROUP=1,$(BUILD)/tests/unit/jail/test_jail \
               jail/unit-unprivileged=$(JAIL_UNPRIV),$(BUILD)/tests/unit/jail/test_jail \
               jail/host-unprivileged=$(JAIL_UNPRIV),$(BUILD)/tests/unit/jail/test_host \
               jail/gate-unprivileged=$(JAIL_UNPRIV),$(BUILD)/tests/unit/jail/test_gate
TEST_SERIAL += jail/unit-rlimit jail/unit-unprivileged jail/host-unprivileged jail/gate-unprivileged

.PHONY: jail-probes bench-process
jail-probes: $(JAIL_PROBES) $(JAIL_DRIVER)
	$(JAIL_DRIVER) $(abspath $(BUILD)/tests/jail/probes) --controls

# `make bench-process [BENCH_ITERATIONS=N]`: sbx against fork/exec, bwrap, firejail (not a test).
BENCH_PROCESS := $(BUILD)/bench/process/bench
$(BENCH_PROCESS): bench/process/bench.c bench/process/connect.c bench/process/connect.h $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ bench/process/bench.c bench/process/connect.c $(BUILD)/libsbx.a \
		$(LDFLAGS) $(LDLIBS)

bench-process: $(BENCH_PROCESS)
	$(BENCH_PROCESS) $(BENCH_ITERATIONS)

# The jail's seccomp filters, computed once by the build with libseccomp (the same seccomp.c,
# compiled with SBX_SECCOMP_GENERATOR) and compiled into seccomp.o: no process pays ~1 ms of
# libseccomp work for them at run time (`sbx run` is a fresh process every time).
SECCOMP_GEN   := $(BUILD)/gen/sbx-seccomp-gen
SECCOMP_BPF_H := $(BUILD)/gen/seccomp_prebuilt.h
$(BUILD)/gen/seccomp_gen.o: src/jail/seccomp.c src/jail/jail.h $(DEPS_STAMP) | $(BUILD)/gen/.dir
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKGS_CFLAGS) -DSBX_SECCOMP_GENERATOR -c $< -o $@
$(SECCOMP_GEN): src/jail/gen/seccomp_bpf.c $(BUILD)/gen/seccomp_gen.o $(BUILD)/src/util/alloc.o
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)
$(SECCOMP_BPF_H): $(SECCOMP_GEN)
	ASAN_OPTIONS=detect_leaks=0 $(SECCOMP_GEN) > $@.tmp && mv $@.tmp $@
$(BUILD)/src/jail/seccomp.o: $(SECCOMP_BPF_H)
