/* Varargs definitions: the importer's hidden %va.area convention (pylogic/ir/llvm/lower.py). */
#include <stdarg.h>
#include <stdio.h>

struct pair { long a, b; };          /* passed as two i64: two slots */
struct big { long x[4]; int tag; };  /* passed byval: one 40-byte stretch */

static int sum(int n, ...) {
    va_list ap;
    va_start(ap, n);
    int s = 0;
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static long mixed(const char *kinds, ...) {
    va_list ap, again;
    va_start(ap, kinds);
    va_copy(again, ap);
    long total = 0;
    for (const char *k = kinds; *k; k++) {
        switch (*k) {
        case 'i': total += va_arg(ap, int); break;
        case 'u': total += va_arg(ap, unsigned) % 1000; break;
        case 'l': total += va_arg(ap, long long); break;
        case 'c': total += (char)va_arg(ap, int); break;
        case 's': total += va_arg(ap, const char *)[1]; break;
        case 'p': { struct pair p = va_arg(ap, struct pair); total += p.a * 10 + p.b; break; }
        case 'b': { struct big b = va_arg(ap, struct big); total += b.x[0] + b.x[3] + b.tag; break; }
        }
    }
    total += 1000 * va_arg(again, int);  /* the copy starts over */
    va_end(again);
    va_end(ap);
    return total;
}

static void forward(const char *fmt, ...) {  /* a va_list handed to the C library */
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

static int count_until_zero(int first, ...) {
    va_list ap;
    int n = 0;
    va_start(ap, first);
    for (int v = first; v != 0; v = va_arg(ap, int))
        n++;
    va_end(ap);
    return n;
}

int main(void) {
    struct pair p = {3, 4};
    struct big b = {{1, 2, 3, 4}, 5};
    printf("%d %d %d\n", sum(0), sum(3, 1, 2, 3), sum(10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    printf("%ld\n", mixed("iulcs", -5, 4000000123u, -1234567890123LL, 'A', "xyz"));
    printf("%ld\n", mixed("pbi", p, b, 7));
    forward("%s=%d,%ld\n", "fwd", -3, 1L << 40);
    printf("%d\n", count_until_zero(5, 6, 7, 8, 0));
    long acc = 0;
    for (int i = 0; i < 1000; i++)  /* call-site memory is reused, not leaked */
        acc += sum(2, i, -i / 2);
    printf("%ld\n", acc);
    return 0;
}
