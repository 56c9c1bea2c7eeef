/* ncu_csv.h - reader for Nsight Compute raw-page CSV (`ncu --csv --page raw --print-units base`).
 *
 * Format (recorded with ncu 2025.3.1 on an H200: tests/fixtures/nvidia/ncu-2025.3.1/): every
 * field in double quotes ("" inside a field is a literal quote); row 1 is the
 * header ("ID","Process ID",…,"Kernel Name",…,"Block Size","Grid Size",
 * "Device",…, then one column per metric with its rollup, e.g.
 * "dram__bytes_read.sum"); row 2 holds the units ("" under the identity
 * columns, "byte", "cycle", …); then one row per profiled launch. Numbers carry
 * thousands separators inside the quotes ("8,391,424", "174,821.33"); "n/a"
 * marks a value ncu could not collect. When ncu writes to the application's
 * stdout (no --log-file) its own lines start with "==PROF==" / "==WARNING==" /
 * "==ERROR==" and application output may come before the header: lines before
 * the header and lines starting with "==" are skipped.
 *
 * The table keeps every cell as text; helpers parse numbers and "(x, y, z)".
 * Errors name file and line (benchrun: FILE:LINE: …).
 */
#ifndef BR_NCU_CSV_H
#define BR_NCU_CSV_H

#include <stddef.h>

struct ncu_table {
    size_t ncols;
    char **names;     /* header, ncols entries */
    char **units;     /* units row, ncols entries ("" where none) */
    size_t nrows;
    char **cells;     /* nrows × ncols, row-major */
    size_t skipped;   /* lines skipped ("==PROF==", app output before the header) */
};

/* Parses buf[0..len) (need not be NUL-terminated); file names the source in
 * errors. Returns 0, or -1 with an error (no header, wrong field count,
 * unterminated quote). */
int ncu_csv_parse(const char *buf, size_t len, const char *file, struct ncu_table *out);
/* Reads and parses a file. */
int ncu_csv_read_file(const char *path, struct ncu_table *out);
void ncu_table_release(struct ncu_table *t);

/* Column index of a header name, or -1. */
long ncu_table_col(const struct ncu_table *t, const char *name);
/* Cell text (never NULL). */
const char *ncu_table_cell(const struct ncu_table *t, size_t row, size_t col);

/* Parses a number with optional thousands separators ("1,048,576", "-3.5",
 * "174,821.33"). "n/a" or "" → NaN with return 1. Returns 0 on a number, -1 on
 * anything else. */
int ncu_parse_number(const char *s, double *out);
/* Parses "(256, 1, 1)" into v[3]. Returns 0 or -1. */
int ncu_parse_dim3(const char *s, unsigned long v[3]);

#endif
