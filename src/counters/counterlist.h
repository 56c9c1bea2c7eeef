/* counterlist.h - parser of `rocprofv3 --list-avail` / `-L` text: which GPUs,
 * which architectures, which counters each exposes.
 *
 * Layouts (docs/design.md §11),
 * all parsed case-insensitively with any blanks around ':':
 *   6.2 (-L)        `gpu-agent<N>:\t<counter>` / `Description:` / `Block:` or
 *                   `Expression:` (derived) / `Dimensions:` / blank line.
 *                   The architecture is not named.
 *   6.4 staging     `gpu-agent:<id>` / `Name:\t<counter>` / `Description:` /
 *                   `Block:` or `Expression:` / `Dimensions:`.
 *   7.x             optional PC-sampling block (`GPU :0` / `Name :gfx942` /
 *                   `configs :` ...), then per GPU `GPU:<id>` / `Name:<arch>`,
 *                   then per counter `Counter_Name :<counter>` / `Description`
 *                   / `Block` or `Expression` / `Dimensions`. Early 7.0 builds:
 *                   `NAME:`, lower-case `counter_name` (same rules).
 * `Name:` names the architecture right after a `GPU:` line and a counter right
 * after a `gpu-agent:` line. Entries whose expression is a bare number or
 * whose name is a known hardware constant (CU_NUM, SE_NUM, ...) are marked
 * constant: they are not counters and use no pass slot. Lines that match none
 * of the rules are ignored (descriptions may span lines).
 *
 * Owns the parsed list (all strings copied). No limit on line length.
 */
#ifndef BR_COUNTERS_COUNTERLIST_H
#define BR_COUNTERS_COUNTERLIST_H

#include <stdbool.h>
#include <stddef.h>

struct counterlist_entry {
    char *name;
    char *block;        /* Block: value, NULL for derived counters */
    bool derived;       /* had Expression: */
    bool constant;      /* hardware constant, not a counter */
    long gpu;           /* GPU / agent id it was listed under (-1 unknown) */
};

struct counterlist_gpu {
    long id;
    char *arch;         /* NULL when the layout does not name it (6.2, 6.4 staging) */
};

struct counterlist {
    const char *layout;         /* "6.2", "6.4", "7.x", "nvidia" or "unknown" (static) */
    size_t ngpus;
    struct counterlist_gpu *gpus;
    size_t nentries;
    struct counterlist_entry *entries;
};

/* Parses text (len bytes, need not be NUL-terminated). name is used in
 * messages. Returns 0, or -1 with an error printed ("name: no counters found"
 * when nothing in the text looks like a counter list). */
int counterlist_parse(struct counterlist *cl, const char *name, const char *text, size_t len);
/* The NVIDIA layouts (`Chip <name>` first; counterlist_nv.c): returns 1 and
 * fills cl (layout "nvidia") when text is one, else 0. Called by counterlist_parse. */
int counterlist_parse_nvidia(struct counterlist *cl, const char *text, size_t len);
/* Reads and parses a file. */
int counterlist_load(struct counterlist *cl, const char *path);
void counterlist_release(struct counterlist *cl);

/* The entry named `counter` (exact, case-sensitive as rocprofv3 names are),
 * listed for an architecture `arch` (NULL: any GPU). NULL when absent. */
const struct counterlist_entry *counterlist_find(const struct counterlist *cl, const char *counter,
                               const char *arch);
/* Distinct architecture names present, in first-seen order (pointers into cl;
 * the array is the caller's to free). *n gets the count. */
const char **counterlist_archs(const struct counterlist *cl, size_t *n);
/* Architecture of a GPU id, NULL when unknown. */
const char *counterlist_gpu_arch(const struct counterlist *cl, long gpu);

#endif
