; Memory, globals and C library builtins: reverse a global string into stack memory, sum a
; global byte table, read it back little-endian, and report with printf/puts.
;   pathlogic run examples/strings_printf.pir

extern func printf(fmt, ...)
extern func puts(s)
extern func strlen(s)

global greeting = "hello, predicated world"
global report = "%s: %d chars, table sum %d, first word %#x, %-6s|\n"
global table[16] = {1, 2, 3, 4, 5, 6, 7, 8}

func main() {
entry:
    n = call strlen(greeting)
    buf = alloca 64                 ; zeroed, so the reversed copy is NUL-terminated
    i = mov 0
    br copy
copy:
    more = cmp.lt i, n
    cbr more, step, summed
step:
    j = sub n, i
    j = sub j, 1
    src = add greeting, j
    ch = load.1u src
    dst = add buf, i
    store.1 dst, ch
    i = add i, 1
    br copy
summed:
    call puts(buf)
    k = mov 0
    sum = mov 0
    br sum_head
sum_head:
    more2 = cmp.ltu k, 16
    cbr more2, sum_body, done
sum_body:
    p = add table, k
    byte = load.1u p
    sum = add sum, byte
    k = add k, 1
    br sum_head
done:
    word = load.4u table            ; bytes 01 02 03 04, little-endian
    call printf(report, greeting, n, sum, word, buf)
    ret 0
}
