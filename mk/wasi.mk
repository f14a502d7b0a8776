# wasi: the preview1 layer's flags, guest programs, runners and suites.
CFLAGS_wasi := -Wconversion
