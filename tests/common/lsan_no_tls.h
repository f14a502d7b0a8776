/* tests/common/lsan_no_tls.h: LeakSanitizer's options for a test program that dlopens libLLVM
 * (the compiled tier). Include it in one file of the program. Under SAN=1 LeakSanitizer's tracer
 * faulted at exit (`Tracer caught signal 11`) scanning a bogus dynamic-TLS range, the dlopen'ed
 * libLLVM's TLS as the sanitizer runtime recorded it ("DTLS 6 at 0x39e-0x30000014a0", the fault
 * at 0x3a0). Without TLS roots the leak check stays on: a block only TLS held would be reported,
 * never hidden. LSAN_OPTIONS still adds to (and can override) this. */
#ifndef SBX_TESTS_LSAN_NO_TLS_H
#define SBX_TESTS_LSAN_NO_TLS_H

__attribute__((visibility("default"))) const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "use_tls=0";
}

#endif
