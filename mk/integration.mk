# mk/integration.mk: the product as a whole: an embedder's build against the installed library.
TEST_SUITES += integration/embed=tests/integration/embed.sh
