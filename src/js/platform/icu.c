/* js/platform/icu.c: the URL Standard's "domain to ASCII" (UTS #46 ToASCII with CheckBidi,
 * CheckJoiners and nontransitional processing; CheckHyphens, UseSTD3ASCIIRules and
 * VerifyDnsLength off) through ICU's uidna_openUTS46, the implementation browsers use. C, so
 * it sees the system's ICU headers and not the ones under mozjs's include path (icu.h). */
#include "js/platform/icu.h"

#include <pthread.h>
#include <unicode/uidna.h>

/* The errors the URL Standard ignores when beStrict is false: CheckHyphens and VerifyDnsLength
 * are off (empty labels, long labels and names, hyphens at the ends or in positions 3-4). */
#define IGNORED_ERRORS                                                                             \
    (UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG | UIDNA_ERROR_DOMAIN_NAME_TOO_LONG |     \
     UIDNA_ERROR_LEADING_HYPHEN | UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4)

static pthread_once_t idna_once = PTHREAD_ONCE_INIT;
static UIDNA *idna; /* immutable and thread-safe once opened (ICU's UTS46 contract) */

static void open_idna(void)
{
    UErrorCode status = U_ZERO_ERROR;
    UIDNA *u =
        uidna_openUTS46(UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_ASCII |
                            UIDNA_NONTRANSITIONAL_TO_UNICODE,
                        &status);
    idna = U_SUCCESS(status) ? u : NULL;
}

long sm_icu_domain_to_ascii(const uint16_t *in, size_t n, uint16_t *out, size_t cap, size_t *needed)
{
    pthread_once(&idna_once, open_idna);
    if (!idna || n > INT32_MAX || cap > INT32_MAX)
        return -1;
    UErrorCode status = U_ZERO_ERROR;
    UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    int32_t len = uidna_nameToASCII(idna, (const UChar *)in, (int32_t)n, (UChar *)out, (int32_t)cap,
                                    &info, &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
        *needed = len > 0 ? (size_t)len : cap * 2;
        return -2;
    }
    if (U_FAILURE(status) || (info.errors & ~IGNORED_ERRORS) != 0 || len <= 0)
        return 0;
    return len;
}
