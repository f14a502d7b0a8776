/* tests/common/sbx_test.h: shared helpers for Check-based unit tests. */
#ifndef SBX_TEST_H
#define SBX_TEST_H

#include <check.h>
#include <stdlib.h>

/* Runs one suite, prints Check's summary line, and returns the process exit status. */
static inline int sbx_test_main(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
