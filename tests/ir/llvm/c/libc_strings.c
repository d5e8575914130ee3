/* C library builtins of the interpreter (pylogic/interp/builtins.py) against glibc. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char buf[128];

static void show(const char *what, const char *p, const char *base) {
    printf("%s: %ld\n", what, p ? (long)(p - base) : -1L);
}

static int say(const char *fmt, ...) {  /* vsnprintf through a va_list */
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    printf("[%s] %d\n", tmp, n);
    return n;
}

int main(void) {
    const char *s = "hello, world; hello!";
    show("memchr", memchr(s, 'w', 20), s);
    show("memchr-miss", memchr(s, 'z', 20), s);
    show("strchr", strchr(s, 'o'), s);
    show("strchr-nul", strchr(s, 0), s);
    show("strrchr", strrchr(s, 'o'), s);
    show("strstr", strstr(s, "hello!"), s);
    show("strstr-miss", strstr(s, "bye"), s);
    show("strpbrk", strpbrk(s, ";!"), s);
    printf("strspn %zu strcspn %zu strnlen %zu\n", strspn(s, "hel"), strcspn(s, ",;"), strnlen(s, 4));
    strcpy(buf, "abc");
    strcat(buf, "def");
    strncat(buf, "ghijkl", 3);
    printf("%s %zu\n", buf, strlen(buf));
    strncpy(buf, "xy", 5);
    printf("%s %d %d\n", buf, buf[3], buf[4]);
    printf("bcmp %d memcmp<0 %d strncmp %d\n", bcmp("abc", "abd", 2) == 0, memcmp("abc", "abd", 3) < 0,
           strncmp("abcx", "abcy", 3));
    bzero(buf, 8);
    printf("bzero %d\n", buf[0] + buf[7]);
    printf("abs %d %ld %lld\n", abs(-7), labs(-8L), llabs(-9LL));
    char *end;
    long v = strtol("  -0x1fz", &end, 0);
    printf("strtol %ld rest %s\n", v, end);
    printf("strtoul %lu %ld atoi %d atol %ld\n", strtoul("777", 0, 8), strtol("99999999999999999999", 0, 10),
           atoi(" 42abc"), atol("-123456789012"));
    printf("strtol-none %ld %d\n", strtol("xyz", &end, 10), end == (char *)0 ? -1 : (int)(*end));
    int classes = 0;
    for (int c = -1; c < 256; c++)
        classes += !!isdigit(c) + 2 * !!isalpha(c) + 3 * !!isspace(c) + 5 * !!isupper(c) + 7 * !!ispunct(c)
                   + 11 * !!isxdigit(c) + 13 * !!isprint(c) + 17 * !!iscntrl(c) + 19 * !!isalnum(c);
    printf("classes %d upper %c%c lower %c%c %d\n", classes, toupper('a'), toupper('%'), tolower('Q'),
           tolower('q'), toupper(-1));
    int n = sprintf(buf, "%5d|%-4s|%x|%c|%%", 42, "ab", 255, 'z');
    printf("sprintf %s %d\n", buf, n);
    n = snprintf(buf, 6, "%ld-%ld", 12345L, 678L);
    printf("snprintf %s %d\n", buf, n);
    say("%d+%d=%s", 2, 3, "five");
    fputs("fputs\n", stdout);
    fputc('!', stdout);
    putc('\n', stdout);
    fprintf(stdout, "fprintf %d\n", 7);
    fprintf(stderr, "not compared\n");
    fwrite("fwrite\n", 1, 7, stdout);
    fflush(stdout);
    printf("ffs %d %d\n", ffs(0), ffs(0x50));
    return 0;
}
