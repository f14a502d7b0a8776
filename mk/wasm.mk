# mk/wasm.mk: the wasm engine's build rules (decoder/validator owner; others append below).
CFLAGS_wasm := -Wconversion
