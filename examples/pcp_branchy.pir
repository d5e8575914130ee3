; Predicated constant propagation, running example (Knoop & Ruething; predicated_cp.md §4.2,
; Table 1 "source" column) as an ordinary branchy CFG: A -> B | C, C -> D | E, B/D/E -> F,
; F -> G | H (odd(z)), G/H -> J. random() is `input`: run with --input A,B.
; Whatever a and b are, z = 17 at the end of J (s and t differ per path, s + t does not);
; w is 1 at the end of G and 4 at the end of H.
;   pathlogic run examples/pcp_branchy.pir --input 1,0      (path A B F G J:  x=2 y=3 s=7  t=10)
;   pathlogic run examples/pcp_branchy.pir --input 0,1      (path A C D F G J: x=3 y=2 s=8  t=9)
;   pathlogic run examples/pcp_branchy.pir --input 0,0      (path A C E F H J: x=4 y=1 s=11 t=6)
; Prints x, y, u, v, w, s, t, z; returns z (exit status 17).

func main() {
A:
    a = input                       ; a = random()
    b = input                       ; b = random()
    z = mov 3
    c1 = cmp.gt a, 0
    cbr c1, B, C
B:
    x = mov 2
    y = mov 3
    br F
C:
    c2 = cmp.gt b, 0
    cbr c2, D, E
D:
    x = mov 3
    y = mov 2
    br F
E:
    z = mov 2
    x = mov 4
    y = mov 1
    br F
F:
    oz = and z, 1                   ; odd(z)
    cbr oz, G, H
G:
    u = mov 5
    v = mov 7
    w = rem z, 2                    ; w = z mod 2
    br J
H:
    u = mov 7
    v = mov 5
    w = mov x
    br J
J:
    s = add x, u
    t = add y, v
    z = add s, t
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
