/* Indirect calls: a compare-and-call dispatch over address-taken functions (lower.py). */
#include <stdio.h>
static int twice(int x) { return 2 * x; }
static int neg(int x) { return -x; }
static int add(int a, int b) { return a + b; }
static void hello(void) { puts("hello"); }
struct ops { int (*un)(int); int (*bin)(int, int); void (*v)(void); };
static struct ops table[] = {{twice, add, hello}, {neg, add, 0}};
int apply(int (*f)(int), int x) { return f(x); }
int main(void) {
    int s = 0;
    for (int i = 0; i < 2; i++) {
        s += table[i].un(10) + table[i].bin(i, 3);
        if (table[i].v) table[i].v();
    }
    int (*p)(const char *) = puts;
    p("via puts");
    printf("%d %d\n", s, apply(neg, 5) + apply(twice, 4));
    return 0;
}
