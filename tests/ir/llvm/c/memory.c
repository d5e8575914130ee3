#include <stdio.h>
#include <string.h>
#include <stdlib.h>
/* structs, arrays, GEPs, pointer arithmetic, memcpy/memset, globals with initialisers */
struct P { char tag; int x; long y; short z; };
struct Q { struct P p[2]; int n; char name[6]; };
struct P table[3] = {{'a', 1, 2, 3}, {'b', -4, -5, -6}, {'c', 7, 8, 9}};
const char *words[] = {"zero", "one", "two", 0};
int counts[4] = {10, 20, 30};
int *pcount = &counts[2];
struct Q q = {{{'x', 1, 2, 3}, {'y', 4, 5, 6}}, 2, "hi"};
char text[] = "hello, world";
static long sum_array(const long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
static void fill(struct P *p, int k) { p->tag = 'A' + k; p->x = k * k; p->y = -k; p->z = (short)(k * 1000); }
static int big_struct_arg(struct Q v) { v.n += 100; return v.n + v.p[1].x; }
int main(void) {
  long arr[10]; for (int i = 0; i < 10; i++) arr[i] = (long)i * i - 20;
  printf("%ld\n", sum_array(arr, 10));
  long *mid = arr + 5; printf("%ld %ld %ld\n", mid[-1], *(mid + 2), (long)(mid - arr));
  struct P local[4]; memset(local, 0, sizeof local);
  for (int k = 0; k < 4; k++) fill(&local[k], k);
  for (int k = 0; k < 4; k++) printf("%c %d %ld %d\n", local[k].tag, local[k].x, local[k].y, local[k].z);
  for (int k = 0; k < 3; k++) printf("%c%d%ld%d ", table[k].tag, table[k].x, table[k].y, table[k].z);
  printf("\n");
  for (const char **w = words; *w; w++) printf("%s(%d) ", *w, (int)strlen(*w));
  printf("\n%d %d %d\n", *pcount, counts[3], q.p[1].x);
  printf("%s %d %c\n", q.name, q.n, q.p[0].tag);
  printf("%d\n", big_struct_arg(q));
  printf("%d\n", q.n);
  struct Q copy; memcpy(&copy, &q, sizeof q); copy.p[0].x = 99;
  printf("%d %d\n", copy.p[0].x, q.p[0].x);
  struct P assigned = table[1]; printf("%d %ld\n", assigned.x, assigned.y);
  memmove(text + 2, text, 5); puts(text);
  int *heap = malloc(5 * sizeof(int)); for (int i = 0; i < 5; i++) heap[i] = i * 3;
  printf("%d %d\n", heap[4], memcmp(heap, heap, 20)); free(heap);
  char grid[3][4]; for (int r = 0; r < 3; r++) for (int c = 0; c < 4; c++) grid[r][c] = (char)(r * 4 + c);
  printf("%d %d\n", grid[2][3], grid[1][0]);
  printf("%zu %zu\n", sizeof(struct P), sizeof(struct Q));
  return 0;
}
