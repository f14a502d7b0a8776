# mk/plugin.mk: the wasm plugin host. Its end-to-end tests run real C programs compiled here
# with clang --target=wasm32-wasi (never committed): tests/unit/plugin/guests/*.c become
# $(BUILD)/tests/unit/plugin/guests/*.wasm, found by test_guests next to its own binary.
CFLAGS_plugin := -Wconversion

PLUGIN_GUEST_SRC := $(wildcard tests/unit/plugin/guests/*.c)
PLUGIN_GUESTS := $(PLUGIN_GUEST_SRC:tests/unit/plugin/guests/%.c=$(BUILD)/tests/unit/plugin/guests/%.wasm)
WASI_CC ?= clang --target=wasm32-wasi --sysroot=/usr
PLUGIN_GUEST_FLAGS := -O2 -Wall -Werror -Wl,--strip-debug

# A reactor has no main: crt1-reactor.o exports _initialize instead of _start.
$(BUILD)/tests/unit/plugin/guests/reactor.wasm: PLUGIN_GUEST_MODEL := -mexec-model=reactor

$(BUILD)/tests/unit/plugin/guests/%.wasm: tests/unit/plugin/guests/%.c
	@mkdir -p $(@D)
	$(WASI_CC) $(PLUGIN_GUEST_FLAGS) $(PLUGIN_GUEST_MODEL) -o $@ $<

TEST_DEPS += $(PLUGIN_GUESTS)

.PHONY: plugin-guests
plugin-guests: $(PLUGIN_GUESTS)
TEST_SERIAL += unit.plugin.test_backend # its load cases bound a wall time, as test_sandbox's
