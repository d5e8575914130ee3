; Partial dead code elimination on predicated code (predicated_pde.md §1, §4.2 (A); Fig. 11(b)).
; p1 = p3 | p4 and p1 = p5 | p6 (complementary defines). x = a + g under p1 is read only under
; p3 and overwritten under p4: `pathlogic optimize examples/ppde_hyperblock.pir --passes ppde
; --validate --args 1,1,0` narrows it to p3. w = g + h under p1 splits at (p3) z, its two copies
; merge again at (p1) v (p3 | p4 = p1), and it ends under p5, the only place it is read.
func main(a, g, h) {
entry: !hyperblock
    p1:ut, p2:uf = pcmp.gt a, 0
    (p1) p3:ut, p4:uf = pcmp.gt g, 0
    (p1) p5:ut, p6:uf = pcmp.gt h, 0
    (p1) x = add a, g
    (p3) y = sub x, 1
    (p4) x = add g, 7
    (p1) w = add g, h
    (p3) z = mov 1
    (p1) v = add g, 1
    (p5) print w
    print y
    print x
    print z
    print v
    ret 0
}
