/* Bit-manipulation intrinsics expanded inline (pylogic/ir/llvm/intrinsics.py). */
#include <stdio.h>

static unsigned vals[] = {0, 1, 2, 3, 0x80, 0xff, 0x100, 0x8000, 0xdeadbeef, 0x7fffffff,
                          0x80000000u, 0xffffffffu, 0x12345678, 6, 96};
static unsigned long long lvals[] = {0, 1, 0x8000000000000000ULL, 0xffffffffffffffffULL,
                                     0x0123456789abcdefULL, 0x100000000ULL, 0xf0, 12345678901234ULL};

static int is_const(int x) { return __builtin_constant_p(x); }

int main(void) {
    long check = 0;
    for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        unsigned v = vals[i];
        int tz = v ? __builtin_ctz(v) : -1, lz = v ? __builtin_clz(v) : -1;
        printf("%08x pop %d tz %d lz %d ffs %d par %d bswap %08x b16 %04x\n", v, __builtin_popcount(v),
               tz, lz, __builtin_ffs((int)v), __builtin_parity(v), __builtin_bswap32(v),
               __builtin_bswap16((unsigned short)v));
        unsigned char c = (unsigned char)v;
        check += __builtin_popcount(c) * 3 + (c ? __builtin_ctz(c) : 0);
    }
    for (unsigned i = 0; i < sizeof lvals / sizeof lvals[0]; i++) {
        unsigned long long v = lvals[i];
        printf("%016llx pop %d tz %d lz %d ffs %d bswap %016llx\n", v, __builtin_popcountll(v),
               v ? __builtin_ctzll(v) : -1, v ? __builtin_clzll(v) : -1, __builtin_ffsll((long long)v),
               __builtin_bswap64(v));
    }
    printf("%ld const %d %d expect %d\n", check, is_const(3), __builtin_constant_p(check),
           __builtin_expect(check > 0, 1));
    return 0;
}
