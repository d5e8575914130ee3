"""Paper programs shared by the paper tests."""

#: The running hyperblock of PAS Figure 3(b), as IR.md gives it (p2 initialised by uf).
FIG3B = """
func fig3b(r1) {
entry: !hyperblock
    p2:uf = pcmp.eq 0, 0
    p1:ut, p2:of = pcmp.gt r1, -8
    (p1) p3:ut, p2:of = pcmp.lt r1, 8
    (p3) p4:ut = pcmp.eq r1, 0
    (p2) p5:ut = pcmp.lt r1, 0
    (p3) print 1
    (p2) print 3
    (p4) print 2
    (p5) print 4
    ret
}
"""
