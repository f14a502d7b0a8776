# mk/serve_redis.mk: the Redis queue's own rules (#25). Its code is in src/serve/queue_redis*.c
# (built with serve's objects, mk/serve.mk); here its benchmark (bench/serve/bench_queue: the
# queue alone; bench/serve/redis.sh: the queue and HTTP nodes, embedded against Redis, run at
# the end of make bench-serve, or alone: make bench-serve-redis) and its service tests.

SERVE_QUEUE_OBJ := $(filter $(BUILD)/src/serve/queue%.o,$(SERVE_MOD_OBJ))
HIREDIS_LIBS    := $(shell pkg-config --libs hiredis 2>/dev/null)

$(BUILD)/bench/serve/bench_queue: bench/serve/bench_queue.c $(SERVE_QUEUE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(SERVE_QUEUE_OBJ) $(LDFLAGS) $(HIREDIS_LIBS)

.PHONY: bench-serve-redis
bench-serve: $(BUILD)/bench/serve/bench_queue
bench-serve-redis: all $(BUILD)/bench/serve/bench_queue $(BENCH_SERVE_BIN)
	BUILD=$(BUILD) sh bench/serve/redis.sh

# The cluster's service tests (tests/serve/: real redis-server, API and worker nodes).
TEST_SUITES += serve/cluster=$(SERVE_PYTEST),test_cluster.py,test_kubernetes.py
