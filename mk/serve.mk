# mk/serve.mk: `sbx serve` (src/serve/). This slice has its queue interface and the embedded
# queue only, with their unit tests (tests/unit/serve/, linked with the serve objects).

SERVE_SRC     := $(wildcard src/serve/*.c)
SERVE_MOD_OBJ := $(SERVE_SRC:%.c=$(BUILD)/%.o)

SERVE_UNIT_BIN := $(filter $(BUILD)/tests/unit/serve/%,$(UNIT_BIN))
$(SERVE_UNIT_BIN): $(SERVE_MOD_OBJ)
$(SERVE_UNIT_BIN): TEST_COMMON_OBJ += $(SERVE_MOD_OBJ)
# The Redis queue (queue_redis*.c, #25): hiredis.
$(SERVE_UNIT_BIN): private LDLIBS += $(shell pkg-config --libs hiredis 2>/dev/null)
