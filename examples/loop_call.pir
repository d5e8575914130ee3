; A counted loop with a procedure call, and a recursive function.
;   pathlogic run examples/loop_call.pir --args 10   (prints 385 = 1^2+...+10^2, then fib(10) = 55)
; With no --args, n defaults to 10. The edge profile (--profile OUT.json) shows the loop:
; entry->head 1, head->body n, body->head n, head->exit 1.

func square(x) {
entry:
    r = mul x, x
    ret r
}

func fib(n) {
entry:
    small = cmp.lt n, 2
    cbr small, base, rec
base:
    ret n
rec:
    n1 = sub n, 1
    f1 = call fib(n1)
    n2 = sub n, 2
    f2 = call fib(n2)
    r = add f1, f2
    ret r
}

func main(n) {
entry:
    none = cmp.eq n, 0
    n = select none, 10, n          ; default n = 10
    i = mov 1
    acc = mov 0
    br head
head:
    more = cmp.le i, n
    cbr more, body, exit
body:
    sq = call square(i)
    acc = add acc, sq
    i = add i, 1
    br head
exit:
    print acc
    f = call fib(n)
    print f
    ret 0
}
