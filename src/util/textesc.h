/* textesc.h - text from outside (conf values, kernel names, paths, app
 * output) made safe for the files benchrun writes.
 *
 * Line-based files (run_info.txt, "key: value" lines): a value must stay on
 * its line, so a newline in WORKLOAD_DESC cannot forge "status: ok".
 * esc_line writes LF, CR, TAB as "\\n", "\\r", "\\t" and every other control
 * character (0x00-0x1f, 0x7f) as "\\xNN"; a backslash stays itself, so the
 * text reads as its JSON twin (run.json) does.
 *
 * JSON files: JSON text is UTF-8 (RFC 8259 §8.1) and jansson refuses other
 * bytes (json_string returns NULL, and the member silently disappears).
 * esc_utf8 keeps valid UTF-8 as it is and writes each byte that is not part
 * of a valid sequence (overlong forms, surrogates and code points above
 * U+10FFFF included) as the four characters "\\xNN" (NN: upper-case hex), so
 * distinct names stay distinct and every JSON reader accepts the file.
 */
#ifndef BR_TEXTESC_H
#define BR_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/strbuf.h"

/* Appends s escaped for a line-based file (esc_line_n: n bytes, NUL
 * included, e.g. a field of a CSV line in an error message). */
void esc_line(struct strbuf *sb, const char *s);
void esc_line_n(struct strbuf *sb, const char *s, size_t n);

/* True when s[0..n) is valid UTF-8. */
bool esc_utf8_valid(const char *s, size_t n);
/* Appends s[0..n) with invalid UTF-8 bytes as "\\xNN". */
void esc_utf8(struct strbuf *sb, const char *s, size_t n);

/* A JSON string of s, escaped as above when it is not valid UTF-8; JSON null
 * for NULL. Never NULL. */
json_t *esc_json_string(const char *s);
/* json_object_set_new with the key escaped the same way (jansson refuses a
 * key that is not UTF-8, and the member would be lost). */
int esc_json_set(json_t *obj, const char *key, json_t *value);

#endif
