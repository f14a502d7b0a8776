# mk/jail.mk: the process tier: probes, jail tests, benchmark.
CFLAGS_jail := -DSBX_BINDIR='"$(PREFIX)/bin"'
