/* shquote.h - POSIX shell quoting, for printing commands (dry runs, runbooks).
 * Commands are always executed as argv arrays; quoting is only for display. */
#ifndef BR_SHQUOTE_H
#define BR_SHQUOTE_H

#include "util/strbuf.h"

/* Appends s to sb, quoted with '…' only when it holds shell metacharacters. */
void sh_quote(struct strbuf *sb, const char *s);
/* Appends argv (NULL-terminated) as one quoted command line. */
void sh_quote_argv(struct strbuf *sb, const char *const *argv);

#endif
