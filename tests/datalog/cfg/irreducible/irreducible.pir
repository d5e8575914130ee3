func @g(%x) {
a:
    cbr %x, b, c
b:
    %x = sub %x, 1
    cbr %x, c, d
c:
    %x = sub %x, 2
    cbr %x, b, d
d:
    ret %x
dead:
    br d
}
