/* Variable-length arrays in a loop: llvm.stacksave/stackrestore free each iteration's array
   (interpreter builtins), so the loop does not exhaust the interpreter's memory limit. */
#include <stdio.h>

static long fill(int n, int seed) {
    long total = 0;
    for (int round = 0; round < 3; round++) {
        int v[n];
        for (int i = 0; i < n; i++) v[i] = seed * i + round;
        for (int i = 0; i < n; i++) total += v[i];
    }
    return total;
}

int main(void) {
    long sum = 0;
    for (int i = 0; i < 400; i++) {
        char big[1000 + i];  /* 400 iterations of ~1.2 KB: freed at the end of each */
        big[i] = (char)i;
        sum += big[i] + fill(i % 7 + 1, i);
    }
    printf("%ld\n", sum);
    return 0;
}
