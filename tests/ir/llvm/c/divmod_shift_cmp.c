#include <stdio.h>
/* division/modulo signs, shifts, comparisons */
int main(void) {
  int xs[] = {7, -7, 13, -13, 1, -1, 2147483647, -2147483647};
  int ys[] = {2, -2, 5, -5, 3};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 5; j++)
      printf("%d %d %d %d\n", xs[i] / ys[j], xs[i] % ys[j],
             (int)((unsigned)xs[i] / (unsigned)ys[j]), (int)((unsigned)xs[i] % (unsigned)ys[j]));
  unsigned long big = 18446744073709551615UL, d = 10;
  printf("%lu %lu\n", big / d, big % d);
  printf("%lu %lu\n", big / 9223372036854775809UL, big % 9223372036854775809UL);
  printf("%lu\n", 9223372036854775808UL / 3UL);
  long sl = -9223372036854775807L; printf("%ld %ld\n", sl / 10, sl % 10);
  int v = -16; unsigned uv = 0x80000000u;
  printf("%d %d %u %u\n", v >> 2, v << 3, uv >> 4, uv << 1);
  unsigned char c = 0x81; printf("%d %d\n", c >> 1, (signed char)c >> 1);
  long lv = -1; printf("%ld %lu\n", lv >> 60, ((unsigned long)lv) >> 60);
  int a = -3, b = 4; unsigned ua = (unsigned)a, ub = 4;
  printf("%d%d%d%d%d%d\n", a < b, a <= b, a > b, a >= b, a == b, a != b);
  printf("%d%d%d%d\n", ua < ub, ua <= ub, ua > ub, ua >= ub);
  signed char s1 = -1; unsigned char u1 = 255;
  printf("%d %d\n", s1 < 1, u1 > 254);
  long long p = -1; unsigned long long q = 1;
  printf("%d %d\n", p < (long long)q, (unsigned long long)p > q);
  return 0;
}
