# mk/serve.mk: `sbx serve` (src/serve/). The service lives in a module, lib/sbx/libsbx-serve.so
# (libmicrohttpd, libcurl, libcrypto, jansson), loaded by `sbx serve` only (src/cli/cmd_serve.c
# is all of it inside sbx: those libraries would cost every sbx process ~5 ms to load). The
# module calls libsbx's public API in the sbx executable, which exports its sbx_* symbols.
# Unit tests of serve's parts link its objects with libsbx.a; service tests in tests/serve/.

SERVE_PKGS    := libmicrohttpd libcurl libcrypto hiredis
SERVE_LIBS    := $(shell pkg-config --libs $(SERVE_PKGS) jansson 2>/dev/null)
CFLAGS_serve  := $(shell pkg-config --cflags $(SERVE_PKGS) 2>/dev/null)
SERVE_MODULE  := $(BUILD)/lib/sbx/libsbx-serve.so
SERVE_LOADER  := $(BUILD)/src/cli/cmd_serve.o
SERVE_MOD_SRC := $(filter-out src/serve/runner_module.c,$(wildcard src/serve/*.c))
SERVE_MOD_OBJ := $(SERVE_MOD_SRC:%.c=$(BUILD)/%.o)
# The runners' module: their objects and jansson only (the jails they clone copy their mappings).
SERVE_RUNNER_MODULE := $(BUILD)/lib/sbx/libsbx-serve-runner.so
SERVE_RUNNER_OBJ    := $(addprefix $(BUILD)/src/serve/,runner.o exec.o batch.o frame.o base64.o \
                                                       runner_module.o)

$(SERVE_LOADER): CPPFLAGS += -DSBX_SERVE_MODULE_BUILD='"$(abspath $(SERVE_MODULE))"' \
                             -DSBX_SERVE_MODULE_INSTALL='"$(PREFIX)/lib/sbx/libsbx-serve.so"' \
                             -DSBX_SERVE_RUNNER_BUILD='"$(abspath $(SERVE_RUNNER_MODULE))"' \
                             -DSBX_SERVE_RUNNER_INSTALL='"$(PREFIX)/lib/sbx/libsbx-serve-runner.so"'
$(BUILD)/sbx: LDFLAGS += -Wl,--export-dynamic-symbol=sbx_*
$(BUILD)/sbx: | $(SERVE_MODULE) $(SERVE_RUNNER_MODULE)
all: $(SERVE_MODULE) $(SERVE_RUNNER_MODULE)

$(SERVE_MODULE): $(SERVE_MOD_OBJ) src/serve/module.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,--version-script=src/serve/module.map $(LDFLAGS) -o $@ $(SERVE_MOD_OBJ) \
		$(SERVE_LIBS) -lm

$(SERVE_RUNNER_MODULE): $(SERVE_RUNNER_OBJ) src/serve/module.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,--version-script=src/serve/module.map $(LDFLAGS) -o $@ $(SERVE_RUNNER_OBJ) \
		$(shell pkg-config --libs jansson) -lm

# Unit tests of serve's parts link its objects ahead of libsbx.a (TEST_COMMON_OBJ's place).
SERVE_UNIT_BIN := $(filter $(BUILD)/tests/unit/serve/%,$(UNIT_BIN))
$(SERVE_UNIT_BIN): $(SERVE_MOD_OBJ)
$(SERVE_UNIT_BIN): TEST_COMMON_OBJ += $(SERVE_MOD_OBJ)
$(SERVE_UNIT_BIN): LDLIBS += $(SERVE_LIBS)

# The fuzz target of the validate phase (mk/fuzz.mk builds fuzz/fuzz_*.c with these sources).
FUZZ_SERVE_SRC := src/serve/request.c src/serve/schema.c src/serve/base64.c src/serve/ssrf.c \
                  src/serve/config.c
$(FUZZ_BUILD)/fuzz/fuzz_serve_request: $(FUZZ_SERVE_SRC)
$(FUZZ_BUILD)/fuzz/fuzz_serve_request: LDLIBS += $(SERVE_LIBS)

# Service tests: each file starts its own servers (tests/serve/conftest.py); SBX is this build's.
SERVE_PYTEST := env,SBX=$(abspath $(BUILD)/sbx),sh,tests/serve/run.sh
TEST_SUITES += serve/cli=sh,tests/serve/cli.sh,$(BUILD)/sbx \
               serve/curl=sh,tests/serve/curl.sh,$(BUILD)/sbx \
               serve/api=$(SERVE_PYTEST),test_api.py,test_unprivileged.py \
               serve/limits=$(SERVE_PYTEST),test_limits.py \
               serve/runners=$(SERVE_PYTEST),test_runners.py,test_drain.py \
               serve/callbacks=$(SERVE_PYTEST),test_callbacks.py \
               serve/piston=$(SERVE_PYTEST),test_piston.py,test_piston_client.py
TEST_DEPS += $(SERVE_MODULE)

# make bench-serve: the service against the library in the same run (bench/serve/run.sh).
BENCH_SERVE_BIN := $(BUILD)/bench/serve/bench_lib $(BUILD)/bench/serve/load
$(BUILD)/bench/serve/bench_lib: bench/serve/bench_lib.c bench/serve/http_client.h $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
$(BUILD)/bench/serve/load: bench/serve/load.c bench/serve/http_client.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)
.PHONY: bench-serve
bench-serve: all $(BENCH_SERVE_BIN)
	BUILD=$(BUILD) sh bench/serve/run.sh
