; Classic liveness on a counted loop (no predication), checked by hand: i is redefined in body
; after being read (live in), c is written in head before use (never live in), n is live around
; the loop.
;   live_in:  entry {n}  head {i n}  body {i n}  exit {i}
func @k(n) {
entry:
    i = mov 0
    br head
head:
    c = cmp.lt i, n
    cbr c, body, exit
body:
    i = add i, 1
    br head
exit:
    ret i
}
