/* csv.h - fast line source and field splitter for rocprofv3 CSV files.
 *
 * Owns: reading a file (or a memory buffer) line by line in large blocks with
 * no per-line allocation and no line-length limit; splitting one line into
 * fields; parsing numbers exactly (correctly rounded, as strtod) without
 * allocating. Knows nothing about column meanings (rocprof.h does).
 *
 * rocprofv3 quirks handled (sources: rocprofiler-sdk csv.hpp, see
 * docs/design.md §11): every string field is in double
 * quotes and embedded '"' are NOT escaped; numbers are bare; CRLF or LF line
 * ends; the last line may lack its newline, or be cut short by a killed job.
 *
 * Field ends are decided by the column structure, not by quote parity:
 *  - csv_split_freetext(): the row has exactly ncols fields and one "free" column
 *    (Kernel_Name) may hold anything, commas and quotes included. Fields left
 *    of it are split left to right, fields right of it right to left; the free
 *    field is what lies in between, and must be quoted. This is exact for
 *    rocprofv3 rows, whose other fields never contain '",'.
 *  - csv_split(): no free column; a quoted field ends at the first '"'
 *    followed by end of line, or by ',' and then something that can start the
 *    next field ('"', a digit, a sign, '.', 'n'/'N' (nan), ',' or end of line).
 *
 * Spans point into the line buffer and stay valid until the next
 * csv_next_line() / csv_close(). Quotes are stripped from quoted spans.
 */
#ifndef BR_READ_CSV_H
#define BR_READ_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct csv_span {
    const char *p;  /* not NUL-terminated */
    uint32_t n;
    bool quoted;
};

/* ---- line source ------------------------------------------------------ */

struct csv_src;

/* Opens a file for sequential reading in blocks (read(2), not mmap, so the
 * resident size stays at one block however large the file). NULL on error
 * (printed, naming the path). */
struct csv_src *csv_open(const char *path);
/* The same without printing: NULL with *why (allocated: strerror, or "not a
 * regular file (a FIFO)"; only regular files are read). */
struct csv_src *csv_open_quiet(const char *path, char **why);
/* Same over a memory buffer (not copied; must outlive the source). name is
 * used in messages. */
struct csv_src *csv_open_mem(const char *name, const void *data, size_t len);
void csv_close(struct csv_src *s);

/* Next line without its line end (LF or CRLF): 1 and *line and *len set, 0 at end
 * of file, -1 on a read error or a line longer than 64 MiB (printed). A final line without a newline is
 * returned too; csv_last_unterminated() then says so, so the caller can treat
 * a malformed last line as truncated (warning) instead of fatal. */
int csv_next_line(struct csv_src *s, const char **line, size_t *len);
/* 1-based number of the line last returned. */
long csv_line_no(const struct csv_src *s);
/* True when the line last returned had no line end (end of file). */
bool csv_last_unterminated(const struct csv_src *s);
/* Name given to open (for messages). */
const char *csv_name(const struct csv_src *s);
/* Total bytes consumed so far. */
uint64_t csv_bytes(const struct csv_src *s);

/* ---- splitting ---------------------------------------------------------- */

/* Splits line into at most max fields (quotes stripped). Returns the field
 * count (which may exceed max: then only max spans are filled), or -1 when a
 * quoted field is not closed. */
int csv_split(const char *line, size_t len, struct csv_span *out, int max);
/* Number of fields in [s, s + len) when no '"' is there (commas + 1, as
 * csv_split counts them), -1 when one is (csv_split must walk them). */
long csv_count_fields(const char *s, size_t len);

/* Splits a row that must have exactly ncols fields, column free_col (0-based)
 * being free text (see above). Returns ncols, or -1 when the row does not fit
 * (too few separators, or the free field is not quoted): the caller reports a
 * wrong column count. */
int csv_split_freetext(const char *line, size_t len, int ncols, int free_col,
                       struct csv_span *out);

/* ---- numbers --------------------------------------------------------------- */

/* Unsigned decimal integer, whole span. 0 on success, -1 otherwise
 * (empty, non-digit, more than 20 digits, overflow); *out untouched on -1. */
int csv_u64(const struct csv_span *f, uint64_t *out);
/* Decimal number: [+-]digits[.digits][(e|E)[+-]digits], or [+-]nan, inf,
 * infinity in any case, whole span. Correctly rounded. 0 on success, -1
 * otherwise; *out untouched on -1. */
int csv_double(const struct csv_span *f, double *out);
/* The same two at the start of [p, end), for a reader that converts while it
 * splits: the first byte after the number with *out set, or NULL when none
 * starts at p (an exponent without digits, "1e", is no number). The whole
 * span forms above are these with the stop required at the span's end. */
const char *csv_scan_u64(const char *p, const char *end, uint64_t *out);
const char *csv_scan_double(const char *p, const char *end, double *out);
/* Agent id in either form: bare integer `4` or quoted text with one run of
 * digits (`"Agent 4"`, `"GPU 3"`). 0 on success, -1 otherwise. */
int csv_agent_id(const struct csv_span *f, uint64_t *out);

/* Same span equals the NUL-terminated string s. */
bool csv_eq(const struct csv_span *f, const char *s);
/* The same, ignoring ASCII case (header names: rocpd2csv writes Vgpr_Count). */
bool csv_ieq(const struct csv_span *f, const char *s);

#endif
