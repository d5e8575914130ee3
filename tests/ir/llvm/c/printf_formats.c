/* printf integer conversions: flags, width, precision, length (builtins.py _format_int) vs glibc. */
#include <stdio.h>
int main(void) {
    int vals[] = {0, 1, -1, 42, -42, 255, 2147483647, -2147483647 - 1};
    const char *fmts[] = {"[%d]", "[%5d]", "[%-5d]", "[%05d]", "[%+d]", "[% d]", "[%.3d]", "[%.0d]", "[%8.3d]",
                          "[%-8.3d]", "[%08.3d]", "[%#o]", "[%#x]", "[%#X]", "[%#8x]", "[%#08x]", "[%-#8o]",
                          "[%.0x]", "[%#.0o]", "[%u]", "[%hhd]", "[%hu]", "[%#hho]", "[%+05d]", "[% 05d]", "[%x]"};
    for (unsigned f = 0; f < sizeof fmts / sizeof *fmts; f++) {
        for (unsigned i = 0; i < sizeof vals / sizeof *vals; i++) printf(fmts[f], vals[i]);
        printf("\n");
    }
    long lv[] = {0, -1L, 1L << 62, -(1L << 62)};
    for (int i = 0; i < 4; i++) printf("[%ld][%lx][%#lo][%20.15ld][%lu]\n", lv[i], lv[i], lv[i], lv[i], lv[i]);
    printf("[%p][%10p][%-10p|][%c][%5c][%-3c|][%.2s][%5s][%-5s|]\n", (void*)0, (void*)0, (void*)0, 'a', 'b', 'c', "xyz", "ab", "cd");
    printf("[%*d][%-*d][%.*d][%%]\n", 6, 42, 6, 42, 4, 7);
    return 0;
}
