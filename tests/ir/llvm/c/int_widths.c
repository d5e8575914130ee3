#include <stdio.h>
#include <stdint.h>
/* integer widths, wraparound, signed/unsigned casts (values in globals so clang cannot fold) */
signed char sc = 127; unsigned char uc = 250; short s = 32767; unsigned short us = 65535;
int i = 2147483647; unsigned u = 4294967295u; long l = 9223372036854775807L; unsigned long ul = 0;
long long ll = -5; int neg = -1, n300 = 300, n70000 = 70000, m7 = -7;
uint8_t a8 = 200, b8 = 100; int8_t m8 = -128; uint16_t x16 = 0xFFFF; uint32_t x32 = 0xF0000000u;
int five = 5, big = 100000; unsigned mul = 123456789u;
struct bits { unsigned a : 3; signed b : 5; unsigned c : 24; long d : 40; } bf = {5, -3, 0xABCDEF, -12345678901L};
int main(void) {
  sc++; printf("%d\n", sc);
  uc += 10; printf("%d\n", uc);
  s += 2; printf("%d\n", s);
  us += 3; printf("%d\n", us);
  i = (int)((unsigned)i + 1u); printf("%d\n", i);
  u += 2; printf("%u\n", u);
  l = (long)((unsigned long)l + 1); printf("%ld\n", l);
  ul -= 1; printf("%lu\n", ul);
  printf("%lld %llu\n", ll, (unsigned long long)ll);
  printf("%u %x %lu\n", (unsigned)neg, (unsigned)neg, (unsigned long)(unsigned)neg);
  printf("%d %d %d\n", (signed char)n300, (unsigned char)neg, (short)n70000);
  printf("%ld %lu\n", (long)(int)m7, (unsigned long)(unsigned char)m7);
  printf("%d\n", (uint8_t)(a8 * b8));
  printf("%d\n", (int8_t)(m8 * neg));
  printf("%d\n", (uint16_t)(x16 << 4));
  printf("%u\n", x32 * 16u + 7u);
  _Bool b = five; printf("%d\n", b);
  printf("%d\n", big * big);
  printf("%u\n", mul * mul);
  printf("%u %d %u %ld\n", bf.a, bf.b, bf.c, (long)bf.d);
  bf.a += 6; bf.b -= 20; bf.c <<= 4; bf.d *= 3;
  printf("%u %d %u %ld\n", bf.a, bf.b, bf.c, (long)bf.d);
  return 0;
}
