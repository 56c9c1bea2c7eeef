/* clockref.c - read the boot, monotonic and real-time clocks together; clock_ref.txt. */
#include "sample/clockref.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t ns_of(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void br_clock_ref_read(struct br_clock_ref *r)
{
    r->spread_ns = INT64_MAX;
    for (int i = 0; i < 7; i++) {
        int64_t b1 = ns_of(CLOCK_BOOTTIME), m = ns_of(CLOCK_MONOTONIC);
        int64_t rt = ns_of(CLOCK_REALTIME), b2 = ns_of(CLOCK_BOOTTIME);
        if (b2 - b1 < r->spread_ns) {
            r->spread_ns = b2 - b1;
            r->boottime_ns = b1 + (b2 - b1) / 2;
            r->monotonic_ns = m;
            r->realtime_ns = rt;
        }
    }
}

char *br_clock_ref_format(const struct br_clock_ref *r)
{
    struct strbuf sb;
    sb_init(&sb);
    time_t secs = (time_t)(r->realtime_ns / 1000000000LL);
    struct tm tm;
    char iso[64] = "unknown";
    if (gmtime_r(&secs, &tm))
        strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm);
    char host[256] = "unknown";
    if (gethostname(host, sizeof(host) - 1) != 0)
        strcpy(host, "unknown");
    host[sizeof(host) - 1] = '\0';
    sb_addf(&sb, "# benchrun clock reference: three clocks read together before the command "
                 "started; all benchrun timestamps are CLOCK_BOOTTIME ns\n");
    sb_addf(&sb, "boottime_ns=%lld\nmonotonic_ns=%lld\nrealtime_ns=%lld\n",
            (long long)r->boottime_ns, (long long)r->monotonic_ns, (long long)r->realtime_ns);
    sb_addf(&sb, "realtime_iso=%s.%09lldZ\n", iso, (long long)(r->realtime_ns % 1000000000LL));
    sb_addf(&sb, "boottime_minus_realtime_ns=%lld\nboottime_minus_monotonic_ns=%lld\n",
            (long long)(r->boottime_ns - r->realtime_ns),
            (long long)(r->boottime_ns - r->monotonic_ns));
    sb_addf(&sb, "spread_ns=%lld\nhost=%s\n", (long long)r->spread_ns, host);
    return sb_detach(&sb);
}

int br_clock_ref_write(const char *path, const struct br_clock_ref *r)
{
    char *text = br_clock_ref_format(r);
    int rc = fs_write_atomic(path, text, strlen(text));
    free(text);
    return rc;
}
