#include <stdlib.h>
#include <stdio.h>
int check(int x) { if (x != 42) abort(); return x; }
int main(void) { printf("%d\n", check(42)); if (check(42) == 42) exit(3); return 0; }
