/* First-class aggregates: small structs returned in registers ({i64, i32}, {i64, i64}, {ptr, i64})
   come back through the hidden %sret.out pointer; extractvalue/insertvalue act on leaf registers;
   __builtin_*_overflow gives {iN, i1}. */
#include <stdio.h>

struct li { long x; int y; };
struct ll { long a, b; };
struct pl { const char *s; long n; };
struct ci { char c; short h; int i; long l; };  /* 16 bytes: {i64, i64} with packed leaves */
struct big { long v[5]; };                     /* returned through sret by clang itself */

static struct li make_li(long x, int y) { struct li r = {x, y}; return r; }
static struct ll swap(struct ll p) { struct ll r = {p.b, p.a}; return r; }
static struct pl word(int k) {
    static const char *words[] = {"zero", "one", "two"};
    struct pl r = {words[k % 3], k};
    return r;
}
static struct ci pack(int k) {
    struct ci r = {(char)(k + 'a'), (short)(-k), k * 1000, -1L * k};
    return r;
}
static struct big fill(long s) {
    struct big b;
    for (int i = 0; i < 5; i++) b.v[i] = s + i;
    return b;
}
static struct li pick(int c) { return c ? make_li(1, 2) : make_li(-3, -4); }

int main(void) {
    struct li a = make_li(1L << 40, -7);
    printf("%ld %d\n", a.x, a.y);
    struct ll s = swap((struct ll){5, 9});
    printf("%ld %ld\n", s.a, s.b);
    long total = 0;
    for (int k = 0; k < 6; k++) {
        struct pl w = word(k);
        struct ci c = pack(k);
        total += w.s[0] + w.n + c.c + c.h + c.i + c.l;
    }
    printf("%ld\n", total);
    struct big b = fill(10);
    printf("%ld\n", b.v[0] + b.v[4]);
    printf("%d %d\n", pick(0).y, pick(1).y);
    int r;
    long lr;
    unsigned ur;
    unsigned long ulr;
    printf("sadd %d %d\n", __builtin_sadd_overflow(2147483647, 1, &r), r);
    printf("ssub %d %d\n", __builtin_ssub_overflow(-2147483647 - 1, 1, &r), r);
    printf("smul %d %d\n", __builtin_smul_overflow(65536, 32768, &r), r);
    printf("smul-ok %d %d\n", __builtin_smul_overflow(-46340, 46340, &r), r);
    printf("uadd %d %u\n", __builtin_uadd_overflow(4000000000u, 300000000u, &ur), ur);
    printf("usub %d %u\n", __builtin_usub_overflow(1u, 2u, &ur), ur);
    printf("umul %d %u\n", __builtin_umul_overflow(65536u, 65536u, &ur), ur);
    printf("saddl %d %ld\n", __builtin_saddl_overflow(0x7fffffffffffffffL, 1, &lr), lr);
    printf("ssubl %d %ld\n", __builtin_ssubl_overflow(5, 7, &lr), lr);
    printf("smull %d %ld\n", __builtin_smull_overflow(-1L, -0x7fffffffffffffffL - 1, &lr), lr);
    printf("smull-ok %d %ld\n", __builtin_smull_overflow(-3000000000L, 3000000000L, &lr), lr);
    printf("smull-big %d %ld\n", __builtin_smull_overflow(4000000000L, 3000000000L, &lr), lr);
    printf("umull %d %lu\n", __builtin_umull_overflow(0x100000000UL, 0x100000000UL, &ulr), ulr);
    printf("umull-ok %d %lu\n", __builtin_umull_overflow(0xffffffffUL, 0xffffffffUL, &ulr), ulr);
    printf("uaddl %d %lu\n", __builtin_uaddl_overflow(~0UL, 2, &ulr), ulr);
    short sh;
    printf("sadd16 %d %d\n", __builtin_add_overflow((short)30000, (short)10000, &sh), sh);
    return 0;
}
