#include <stdio.h>
/* switch, phi swaps in loops, recursion */
static int classify(int x) {
  switch (x) {
    case -5: return 1;
    case 0: return 2;
    case 3: case 4: return 3;
    case 1000: return 4;
    default: return 0;
  }
}
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static int ack(int m, int n) { return m == 0 ? n + 1 : n == 0 ? ack(m - 1, 1) : ack(m - 1, ack(m, n - 1)); }
int main(void) {
  int a = 1, b = 2, c = 3;
  for (int i = 0; i < 7; i++) { int t = a; a = b; b = c; c = t; }
  printf("%d %d %d\n", a, b, c);
  unsigned x = 1, y = 0;
  while (x < 1000) { unsigned t = x; x = x + y; y = t; }
  printf("%u %u\n", x, y);
  for (int v = -6; v < 6; v++) printf("%d", classify(v));
  printf("%d\n", classify(1000));
  printf("%d %d\n", fib(15), ack(2, 3));
  int sum = 0;
  for (int i = 0; i < 10; i++) { if (i % 3 == 0) continue; if (i == 8) break; sum += i; }
  printf("%d\n", sum);
  return sum == 19 ? 0 : 1;
}
