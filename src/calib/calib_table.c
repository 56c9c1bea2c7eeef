/* calib_table.c - the calibration table, as aligned text and as Markdown.
 *
 * Owns: formatting only (results come from calib_check.c / calib_power.c).
 * Columns: check | expected (tolerance) | measured | status [| note].
 * SPDX-License-Identifier: MIT
 */
#include "calib/calib.h"

#include <string.h>

static const char *status_text(enum br_calib_status s)
{
    return s == BR_CALIB_PASS ? "ok" : s == BR_CALIB_MISS ? "MISS" : "skip";
}

enum col { COL_CHECK, COL_EXPECTED, COL_MEASURED };

static const char *cell(const struct br_calib_result *x, enum col c)
{
    return c == COL_CHECK ? x->check : c == COL_EXPECTED ? x->expected : x->measured;
}

static int width(const struct br_calib_results *r, enum col c, const char *title)
{
    size_t w = strlen(title);
    for (size_t i = 0; i < r->n; i++)
        if (strlen(cell(&r->v[i], c)) > w)
            w = strlen(cell(&r->v[i], c));
    return (int)w;
}

size_t br_calib_print(FILE *fp, const struct br_calib_results *r)
{
    int wc = width(r, COL_CHECK, "check");
    int we = width(r, COL_EXPECTED, "expected");
    int wm = width(r, COL_MEASURED, "measured");
    fprintf(fp, "%-*s  %-*s  %-*s  %s\n", wc, "check", we, "expected", wm, "measured", "status");
    for (size_t i = 0; i < r->n; i++) {
        const struct br_calib_result *x = &r->v[i];
        fprintf(fp, "%-*s  %-*s  %-*s  %s", wc, x->check, we, x->expected, wm, x->measured,
                status_text(x->status));
        if (x->note)
            fprintf(fp, "  (%s: %s)", x->note, x->source);
        fputc('\n', fp);
    }
    size_t m = 0, k = 0;
    for (size_t i = 0; i < r->n; i++) {
        m += r->v[i].status == BR_CALIB_MISS;
        k += r->v[i].status == BR_CALIB_SKIP;
    }
    fprintf(fp, "%zu checks: %zu ok, %zu missed, %zu skipped\n", r->n, r->n - m - k, m, k);
    return m;
}

static void md_cell(FILE *fp, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', fp);
        fputc(*s, fp);
    }
}

void br_calib_print_md(FILE *fp, const struct br_calib_results *r)
{
    fputs("| check | expected | measured | status | read from |\n|---|---|---|---|---|\n", fp);
    for (size_t i = 0; i < r->n; i++) {
        const struct br_calib_result *x = &r->v[i];
        const char *cells[] = { x->check, x->expected, x->measured, status_text(x->status), x->source };
        for (size_t c = 0; c < 5; c++) {
            fputs("| ", fp);
            md_cell(fp, cells[c]);
            fputc(' ', fp);
        }
        fputs("|\n", fp);
    }
}
