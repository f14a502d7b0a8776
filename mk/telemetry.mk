# mk/telemetry.mk: the telemetry exporters' tests and micro-benchmark.
# The OTLP test starts tests/telemetry/otlp_receiver.js with node; the Prometheus test runs promtool.

BENCH_TELEMETRY := $(BUILD)/bench/telemetry/bench_telemetry

.PHONY: bench-telemetry
bench-telemetry: $(BENCH_TELEMETRY)
	$(BENCH_TELEMETRY)

$(BUILD)/bench/telemetry/%: bench/telemetry/%.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
TEST_FIRST += unit.telemetry.test_otlp_retry # long, as test_otlp (its retries wait)
