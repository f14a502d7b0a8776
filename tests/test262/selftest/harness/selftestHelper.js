// A harness include of the runner self-test.
var selftestHelperLoaded = true;
