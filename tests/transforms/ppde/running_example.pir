; The running example's region R2 of predicated_pde.md §4.3 (Fig. 2(b)), with block 7 (the loop
; region R3) and block 8 (the exit, which prints a, x, y). `pathlogic optimize
; tests/transforms/ppde/running_example.pir --passes ppde-keep --validate --args 1,2,3,4,5,1,1,1`
; reaches the final layout of the paper (tests/transforms/ppde/test_ppde_regions.py, T9).
func main(a, b, c, d, e, g, h, k) {
B1:
    x = add b, c
    c1 = cmp.gt k, 0
    cbr c1, HB, B7
HB: !hyperblock
    y = add a, c
    a = add c, e
    p3:ut, p4:uf = pcmp.gt g, 0
    (p3) y = add c, d
    (p3) print y
    (p4) print 0
    p5:ut, p6:uf = pcmp.gt h, 0
    (p6) br B8
    br B6
B6:
    x = add b, d
    br B8
B7:
    k = sub k, 1
    t = cmp.gt k, -2
    cbr t, B7, B8
B8:
    print a
    print x
    print y
    ret 0
}
