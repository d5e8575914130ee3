; Predicate-aware liveness (datalog/liveness.dl), checked by hand:
;   entry: x is written before it is read (not live in); the guarded add reads p, x and its
;          destination y (the old y survives when p is false) and kills nothing; the define
;          reads b and the old r (ot keeps it) but not q (ut overwrites it); the ct define reads
;          the old s and kills it.
;   loop:  the guarded mov reads r, x and z; t is written (uf) before the side exit reads it;
;          the side exit to out and the loop edge both count.
;   dead:  unreachable, still analysed (q and, through out, z live in).
;   live_in:  entry {a b p r s y z}  loop {a r x z}  out {z}  dead {q z}
func @g(a, b) {
entry:
    x = mov a
    (p) y = add x, 1
    q:ut, r:ot = pcmp.lt b, 0
    (q) s:ct = pcmp.eq y, 0
    cbr s, loop, out
loop:
    (r) z = mov x
    t:uf = pcmp.gt z, a
    (t) br out
    br loop
out:
    print z
    ret
dead:
    w = mov q
    br out
}
