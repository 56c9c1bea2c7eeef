/* shquote.c - quote words so a POSIX shell reads them back unchanged. */
#include "util/shquote.h"

#include <string.h>

static int is_safe(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!(c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '=' ||
              c == ',' || c == '+' || c == '@' || c == '%' ||
              (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return 0;
    }
    return 1;
}

void sh_quote(struct strbuf *sb, const char *s)
{
    if (is_safe(s)) {
        sb_adds(sb, s);
        return;
    }
    sb_addc(sb, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            sb_adds(sb, "'\\''");
        else
            sb_addc(sb, *s);
    }
    sb_addc(sb, '\'');
}

void sh_quote_argv(struct strbuf *sb, const char *const *argv)
{
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            sb_addc(sb, ' ');
        sh_quote(sb, argv[i]);
    }
}
