/* csvtab.h - RFC 4180 CSV: records split into unquoted fields, and whole
 * tables (a header row, then rows with as many fields).
 *
 * Owns the quoting rules of ordinary CSV (RFC 4180; benchrun's own outputs
 * written by wr_csv_field, ncu's --csv pages): a field that starts with '"'
 * runs to the matching '"', may hold commas, line ends and "" (one literal
 * quote), and must be followed by ',' or the end of the record; any other
 * field runs to the next ',' or line end. Records end at LF or CRLF outside
 * quotes; a last record without a line end is accepted. (rocprofv3's CSV
 * does not escape quotes and has its own splitter, read/csv.h.)
 *
 * Errors name the file and the line: benchrun: FILE:LINE: ...
 */
#ifndef BR_READ_CSVTAB_H
#define BR_READ_CSVTAB_H

#include <stddef.h>

/* One record's fields, unquoted, as NUL-terminated strings. */
struct csvtab_rec {
    char **v;
    size_t n, cap;
};

/* Frees the fields and keeps the room; csvtab_rec_release frees all. */
void csvtab_rec_reset(struct csvtab_rec *r);
void csvtab_rec_release(struct csvtab_rec *r);

/* Moves r's fields into a new array (the caller owns it and the strings;
 * at least one slot even when r is empty); r is left empty. */
char **csvtab_rec_take(struct csvtab_rec *r);
/* Frees n strings of v, then v (NULL: nothing). */
void csvtab_strv_free(char **v, size_t n);

/* Splits the record that starts at s[*pos] (s has len bytes) into r and
 * moves *pos past its line end; *lines (when not NULL) grows by the line
 * ends consumed, quoted ones included. Returns 0, or -1 for a quote that is
 * not closed or text after a closing quote (r is then cleared). */
int csvtab_next_record(const char *s, size_t len, size_t *pos, struct csvtab_rec *r,
                       long *lines);

/* A table: header names and rows of cells (every row has ncols cells). */
struct csvtab {
    size_t ncols;
    char **names;      /* ncols */
    size_t nrows;
    char **cells;      /* nrows x ncols, row-major */
    long *line;        /* nrows: 1-based line where each row starts */
};

/* Parses buf[0..len) (need not be NUL-terminated); file names the source in
 * errors. Empty lines are skipped. 0, or -1 after printing the error: no
 * header, a row with another field count than the header, a bad quote. */
int csvtab_parse(const char *buf, size_t len, const char *file, struct csvtab *t);
/* Reads and parses a file. */
int csvtab_read_file(const char *path, struct csvtab *t);
void csvtab_release(struct csvtab *t);

/* Column index of a header name, or -1. */
long csvtab_col(const struct csvtab *t, const char *name);
/* Cell text (never NULL; "" outside the table). */
const char *csvtab_cell(const struct csvtab *t, size_t row, size_t col);

#endif
