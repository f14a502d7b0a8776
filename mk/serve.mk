# mk/serve.mk: `sbx serve` (src/serve/): an HTTP execution service linked into the sbx binary
# (libmicrohttpd + jansson), its unit tests (tests/unit/serve/, linked with the serve objects),
# its service tests (tests/serve/) and `make bench-serve`.

SERVE_PKGS   := libmicrohttpd
SERVE_SRC    := $(wildcard src/serve/*.c)
SERVE_OBJ    := $(SERVE_SRC:%.c=$(BUILD)/%.o)
SERVE_LIBS   := $(shell pkg-config --libs $(SERVE_PKGS) 2>/dev/null)
CFLAGS_serve := $(shell pkg-config --cflags $(SERVE_PKGS) 2>/dev/null)
CLI_OBJ      += $(SERVE_OBJ)
$(BUILD)/sbx: LDLIBS += $(SERVE_LIBS)

# Unit tests of serve's parts link its objects ahead of libsbx.a (TEST_COMMON_OBJ's place).
SERVE_UNIT_BIN := $(filter $(BUILD)/tests/unit/serve/%,$(UNIT_BIN))
$(SERVE_UNIT_BIN): $(SERVE_OBJ)
$(SERVE_UNIT_BIN): TEST_COMMON_OBJ += $(SERVE_OBJ)
$(SERVE_UNIT_BIN): LDLIBS += $(SERVE_LIBS)
