# mk/wasm.mk: the wasm engine's build rules (decoder/validator owner; others append below).
CFLAGS_wasm := -Wconversion

# Interpreter kernels (bench/wasm/kernels) under sbx, natively and under wabt's wasm-interp.
.PHONY: bench-interp
bench-interp: $(BUILD)/libsbx.a
	BUILD=$(BUILD) sh bench/wasm/run-interp.sh
