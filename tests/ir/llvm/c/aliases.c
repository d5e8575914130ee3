/* Symbol aliases (@b = alias T, ptr @a) name the aliasee's storage or function. */
#include <stdio.h>

int a[4] = {1, 2, 3, 4};
extern int b[4] __attribute__((alias("a")));
int twice(int x) { return 2 * x; }
extern int doubled(int) __attribute__((alias("twice")));

int main(void) {
    b[2] = 30;
    printf("%d %d %d\n", a[2], b[3], doubled(a[0]));
    return 0;
}
