/* js/tz.c: the clock settings libmozjs sees. SpiderMonkey 102 takes a date's DST offset and its
 * zone's names from its ICU, which reads TZ from `environ`, and the zone's standard offset from
 * libc's localtime_r (mktime, tzset), which read the host's TZ. libmozjs's GOT entries for
 * environ, localtime_r, mktime and tzset point here (account.c), so the engine's zone is the
 * runs' (UTC unless a policy's env sets TZ, js/zone.cpp) while the host's stays untouched, and
 * nothing else of the host's environment reaches the engine. */
#include "js/account.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define TZ_MAX 64

static char tz_entry[3 + TZ_MAX + 1] = "TZ=UTC";
static char *environ_entries[] = {tz_entry, NULL};
char **sbx__js_engine_environ = environ_entries;
static long standard_offset_s; /* east of UTC */
/* libc's globals that tzset fills (seconds west of UTC, and the zone's names), as the engine's */
long sbx__js_tz_timezone;
static char utc_name[] = "UTC";
char *sbx__js_tz_tzname[2] = {utc_name, utc_name};

bool sbx__js_tz_set(const char *tz)
{
    char next[sizeof(tz_entry)];
    snprintf(next, sizeof(next), "TZ=%s", tz && tz[0] ? tz : "UTC");
    if (strcmp(next, tz_entry) == 0)
        return false;
    memcpy(tz_entry, next, sizeof(next));
    sbx__js_tz_set_standard_offset(0);
    return true;
}

void sbx__js_tz_set_standard_offset(long seconds_east)
{
    standard_offset_s = seconds_east;
    sbx__js_tz_timezone = -seconds_east;
}

const char *sbx__js_tz_get(void)
{
    return tz_entry + 3;
}

/* Local time without DST (the engine adds ICU's DST offset itself). */
struct tm *sbx__js_tz_localtime_r(const time_t *t, struct tm *out)
{
    time_t shifted = *t + standard_offset_s;
    if (!gmtime_r(&shifted, out))
        return NULL;
    out->tm_isdst = 0;
    out->tm_gmtoff = standard_offset_s;
    out->tm_zone = "";
    return out;
}

time_t sbx__js_tz_mktime(struct tm *tm)
{
    time_t t = timegm(tm) - standard_offset_s;
    sbx__js_tz_localtime_r(&t, tm);
    return t;
}

void sbx__js_tz_tzset(void)
{
}
