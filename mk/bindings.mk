# mk/bindings.mk: the Node.js addon (bindings/node) and the Python package (bindings/python),
# both thin clients of libsbx.so, and their suites. The addon is plain C against node_api.h
# (N-API 8, ABI-stable), built with $(CC) -shared: no node-gyp, nothing downloaded.
# Under SAN=1 both run with the sanitizer runtime preloaded into node / python3.

NODE_INCLUDE ?= $(firstword $(wildcard /usr/include/node/node_api.h))
BIND_DIR   := $(BUILD)/bindings
NODE_ADDON := $(BUILD)/node/sbx.node
NODE_SRC   := $(wildcard bindings/node/src/*.c)
BIND_WASM  := $(BIND_DIR)/plugin.wasm $(BIND_DIR)/command.wasm
BIND_WASI_CC ?= clang --target=wasm32-wasi --sysroot=/usr
bind_empty :=
bind_space := $(bind_empty) $(bind_empty)
bind_comma := ,
BIND_ASAN  := $(if $(filter 1,$(SAN)),$(shell $(CC) -print-file-name=libasan.so))

# The addon's DT_NEEDED is the soname (libsbx.so.0): give the build tree one to find.
$(BIND_DIR)/libsbx.so.0: $(BUILD)/libsbx.so
	@mkdir -p $(@D)
	ln -sf ../libsbx.so $@

$(NODE_ADDON): $(NODE_SRC) bindings/node/src/addon.h $(BUILD)/libsbx.so $(BIND_DIR)/libsbx.so.0
	@mkdir -p $(@D)
	$(CC) -std=c17 -D_GNU_SOURCE $(OPT) -fPIC -fvisibility=hidden -pthread $(WARN) $(SANFLAGS) \
		-Iinclude -I$(dir $(NODE_INCLUDE)) -shared -o $@ $(NODE_SRC) -L$(BUILD) -lsbx \
		-Wl,-rpath,$(abspath $(BIND_DIR)) -Wl,-z,nodelete

$(BIND_DIR)/plugin.wasm: BIND_MODEL := -mexec-model=reactor
$(BIND_DIR)/%.wasm: bindings/testdata/%.c
	@mkdir -p $(@D)
	$(BIND_WASI_CC) -O2 -Wall -Werror -Wl,--strip-debug $(BIND_MODEL) -o $@ $<

BIND_ENV = env SBX_GUEST_BINARY=$(abspath $(BUILD)/sbx) SBX_TEST_WASM_DIR=$(abspath $(BIND_DIR)) \
	SBX_LIBRARY=$(abspath $(BUILD)/libsbx.so) BIND_ASAN=$(BIND_ASAN)

TEST_DEPS += $(BIND_WASM) $(BIND_DIR)/libsbx.so.0
ifneq ($(NODE_INCLUDE),)
TEST_DEPS += $(NODE_ADDON)
endif
TEST_SUITES += bindings/node=$(subst $(bind_space),$(bind_comma),$(strip $(BIND_ENV))),SBX_NODE_ADDON=$(if $(NODE_INCLUDE),$(abspath $(NODE_ADDON))),sh,bindings/node/test/run.sh
TEST_SUITES += bindings/python=$(subst $(bind_space),$(bind_comma),$(strip $(BIND_ENV))),sh,bindings/python/tests/run.sh

.PHONY: bindings node-addon test-node test-python
node-addon: $(NODE_ADDON)
bindings: $(NODE_ADDON) $(BIND_WASM) $(BIND_DIR)/libsbx.so.0
test-node: bindings
	$(BIND_ENV) SBX_NODE_ADDON=$(abspath $(NODE_ADDON)) sh bindings/node/test/run.sh
test-python: $(BIND_WASM) $(BIND_DIR)/libsbx.so.0
	$(BIND_ENV) sh bindings/python/tests/run.sh

# `make bench-node`: WorkerSandbox.run against Node's own ways to run code apart (node:vm fresh
# contexts, a pooled worker_threads Worker, a Worker per run; isolated-vm when SBX_BENCH_IVM names
# an install) and spawning `sbx eval`, interleaved in one process (bench/node/bench.js; wall and
# CPU per run, load before and after). BENCH_NODE_RUNS runs of each in BENCH_NODE_ROUNDS rounds.
BENCH_NODE_RUNS ?= 2000
BENCH_NODE_ROUNDS ?= 8
BENCH_TARGETS += bench-node
.PHONY: bench-node
bench-node: bindings $(BUILD)/sbx
	@uptime
	SBX_NODE_ADDON=$(abspath $(NODE_ADDON)) SBX=$(abspath $(BUILD)/sbx) node bench/node/bench.js $(BENCH_NODE_RUNS) $(BENCH_NODE_ROUNDS)
