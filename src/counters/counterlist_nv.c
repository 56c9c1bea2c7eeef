/* counterlist_nv.c - the NVIDIA layouts of a counter list (see counterlist.h).
 *
 * Two texts name the base metrics of one chip:
 *   - `ncu --query-metrics --chip gh100`: a `Chip gh100` line, a table header
 *     between dashed lines, then one metric per line (name, type, unit,
 *     description; long descriptions wrap onto lines that start with blanks);
 *   - `benchrun counters list` on NVIDIA: a `Chip gh100` line, then
 *     `name<TAB>type` lines (benchrun-cupti-host list, the CUPTI host API).
 * A metric line's first token is the base name (`dram__bytes_read`; some carry a
 * `Unit.Config.` prefix, kept as is). Metrics used in profiles carry a rollup
 * (`dram__bytes_read.sum`): counterlist_find matches them by base name for this layout.
 * One GPU entry (id 0) holds the chip name, lower-cased: the arch profile name.
 * Facts: tests/fixtures/nvidia/gh100-base-metrics.txt (cut from ncu 2025.3.1
 * --query-metrics on an H200).
 */
#include "counters/counterlist.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <string.h>

/* The first non-blank line is `Chip <name>`: returns the name's start and length. */
static const char *chip_line(const char *text, size_t len, size_t *n)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    if (len - i < 6 || strncmp(text + i, "Chip ", 5) != 0)
        return NULL;
    i += 5;
    while (i < len && text[i] == ' ')
        i++;
    size_t j = i;
    while (j < len && !isspace((unsigned char)text[j]))
        j++;
    *n = j - i;
    return j > i ? text + i : NULL;
}

static void add_entry(struct counterlist *cl, size_t *cap, const char *s, size_t n)
{
    xgrow((void **)&cl->entries, cap, cl->nentries + 1, sizeof(*cl->entries));
    struct counterlist_entry *e = &cl->entries[cl->nentries++];
    memset(e, 0, sizeof(*e));
    e->name = xstrndup(s, n);
    e->gpu = 0;
}

int counterlist_parse_nvidia(struct counterlist *cl, const char *text, size_t len)
{
    size_t n = 0, cap = 0;
    const char *chip = chip_line(text, len, &n);
    if (!chip)
        return 0;
    cl->layout = "nvidia";
    cl->gpus = xcalloc(1, sizeof(*cl->gpus));
    cl->ngpus = 1;
    cl->gpus[0].arch = xstrndup(chip, n);
    for (char *c = cl->gpus[0].arch; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len, j = i;
        while (j < end && !isspace((unsigned char)text[j]))
            j++;
        /* a metric: starts the line, has "__", only name characters */
        bool ok = j > i;
        for (size_t k = i; ok && k < j; k++)
            ok = isalnum((unsigned char)text[k]) || text[k] == '_' || text[k] == '.';
        if (ok && memmem(text + i, j - i, "__", 2))
            add_entry(cl, &cap, text + i, j - i);
        i = end + 1;
    }
    return 1;
}
