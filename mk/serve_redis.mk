# mk/serve_redis.mk: the Redis queue's own rules (#25). Its code is in src/serve/queue_redis*.c
# (built with serve's objects, mk/serve.mk); here its benchmark: bench/serve/bench_queue (the
# queue alone, embedded against Redis), run by bench/serve/redis.sh within make bench-serve.

SERVE_QUEUE_OBJ := $(filter $(BUILD)/src/serve/queue%.o,$(SERVE_MOD_OBJ))
HIREDIS_LIBS    := $(shell pkg-config --libs hiredis 2>/dev/null)

$(BUILD)/bench/serve/bench_queue: bench/serve/bench_queue.c $(SERVE_QUEUE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(SERVE_QUEUE_OBJ) $(LDFLAGS) $(HIREDIS_LIBS)

.PHONY: bench-serve-redis
bench-serve-redis: $(BUILD)/bench/serve/bench_queue
	BUILD=$(BUILD) sh bench/serve/redis.sh
