/* collect.c - the collector table and helpers shared by collectors. */
#include "collect/collect.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* In preference order per vendor. Rows for optional collectors go inside the
 * #if of their build option (see "Adding a collector" in collect.h). */
const struct br_collector_ops *const br_collectors[] = {
    &br_collector_rocprofv3,
    &br_collector_cupti,   /* nvidia default: libbenchrun-cupti.so (src/trace/cupti/) */
    &br_collector_ncu,     /* nvidia, --collector ncu: small cross-check runs */
    NULL,
};

const struct br_collector_ops *br_collector_find(const char *name)
{
    for (size_t i = 0; br_collectors[i]; i++)
        if (strcmp(br_collectors[i]->name, name) == 0)
            return br_collectors[i];
    return NULL;
}

const struct br_collector_ops *br_collector_for_vendor(enum gpu_vendor vendor)
{
    for (size_t i = 0; br_collectors[i]; i++)
        if (br_collectors[i]->vendor == vendor)
            return br_collectors[i];
    return NULL;
}

/* "6.2.4-120" -> "6.2"; NULL unless it starts with digits.digits. */
static char *major_minor(const char *s)
{
    size_t i = 0;
    while (isdigit((unsigned char)s[i]))
        i++;
    if (i == 0 || s[i] != '.' || !isdigit((unsigned char)s[i + 1]))
        return NULL;
    i++;
    while (isdigit((unsigned char)s[i]))
        i++;
    return xstrndup(s, i);
}

char *br_rocm_version(const char *rocm_path)
{
    char *file = xasprintf("%s/.info/version", rocm_path && *rocm_path ? rocm_path : "/opt/rocm");
    char *text = fs_exists(file) ? fs_read_file(file, NULL) : NULL;
    free(file);
    char *v = text ? major_minor(text) : NULL;
    free(text);
    return v;
}
