; Predicated constant propagation, running example (Knoop & Ruething; predicated_cp.md §4.2,
; Table 1 "if-converted" column): the whole of pcp_branchy.pir as one hyperblock. Each
; `cmp.unc P,Q (cond)` is an unc-type define `P:ut, Q:uf = pcmp...`; the join blocks run under p0.
; Same observable behaviour as pcp_branchy.pir on every input (z = 17; run with --input A,B).

func main() {
A: !hyperblock
    a = input                       ; (p0) a = random()
    b = input                       ; (p0) b = random()
    z = mov 3                       ; (p0) z = 3
    B:ut, C:uf = pcmp.gt a, 0       ; (p0) cmp.unc B,C (a>0)
    (B) x = mov 2
    (B) y = mov 3
    (C) D:ut, E:uf = pcmp.gt b, 0   ; (C) cmp.unc D,E (b>0)
    (D) x = mov 3
    (D) y = mov 2
    (E) z = mov 2
    (E) x = mov 4
    (E) y = mov 1
    oz = and z, 1                   ; odd(z)
    G:ut, H:uf = pcmp.ne oz, 0      ; (p0) cmp.unc G,H (odd(z))
    (G) u = mov 5
    (G) v = mov 7
    (G) w = rem z, 2                ; (G) w = z mod 2
    (H) u = mov 7
    (H) v = mov 5
    (H) w = mov x
    s = add x, u                    ; (p0) s = x+u
    t = add y, v                    ; (p0) t = y+v
    z = add s, t                    ; (p0) z = s+t
    print x
    print y
    print u
    print v
    print w
    print s
    print t
    print z
    ret z
}
