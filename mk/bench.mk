# mk/bench.mk: `make bench-wasm` (WASI programs under sbx, node, wasm-interp and natively:
# bench/wasm/run-wasi.sh; then LLVM's compile time and peak memory per module,
# bench/wasm/compile.sh; then the real programs, bench/wasm/real/run.sh, alone as
# `make bench-wasm-real`; BENCH_WASM_REPS=N for more rounds) and `make bench`, every benchmark.

BENCH_WASM_REPS ?= 1
BENCH_TARGETS := bench-wasm bench-interp bench-worker bench-process bench-telemetry bench-serve

.PHONY: bench-wasm bench-wasm-real bench
bench-wasm: $(BUILD)/sbx $(BUILD)/libsbx.a
	BUILD=$(BUILD) BENCH_WASM_REPS=$(BENCH_WASM_REPS) sh bench/wasm/run-wasi.sh
	BUILD=$(BUILD) sh bench/wasm/compile.sh
	BUILD=$(BUILD) BENCH_WASM_REPS=$(BENCH_WASM_REPS) sh bench/wasm/real/run.sh

# bzip2, SQLite and Lua from Debian's source packages (fetched into $(BUILD)/bench-src once).
bench-wasm-real: $(BUILD)/sbx
	BUILD=$(BUILD) BENCH_WASM_REPS=$(BENCH_WASM_REPS) sh bench/wasm/real/run.sh

# Sequential: benchmarks running side by side would measure each other.
bench:
	@for t in $(BENCH_TARGETS); do \
	    if ! $(MAKE) -n $$t >/dev/null 2>&1; then echo "== $$t: no such target, skipped"; continue; fi; \
	    echo "== $$t"; $(MAKE) --no-print-directory $$t || exit 1; \
	done
