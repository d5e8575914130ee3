#include <stdio.h>
/* one function uses floating point: it is skipped, the others import */
double half(double x) { return x / 2; }
int twice(int x) { return 2 * x; }
int main(void) { printf("%d\n", twice(21)); return 0; }
