; The running hyperblock of the predicate-analysis paper (PAS, Figure 3(b)), verbatim from IR.md,
; plus a `main(r1)` that calls it. Try:
;   pathlogic run examples/pas_fig3b.pir --args -3      (prints 1: stmtA)
;   pathlogic run examples/pas_fig3b.pir --args 0       (prints 1 2: stmtA, stmtB)
;   pathlogic run examples/pas_fig3b.pir --args 20      (prints 3: stmtC)
;   pathlogic run examples/pas_fig3b.pir --args -20     (prints 3 4: stmtC, stmtD)
; Expected facts: p4 and p2 are disjoint; p4 implies p3; p5 implies p2; p1 or p2 is always true.

func fig3b(r1) {
entry: !hyperblock
    p2:uf = pcmp.eq 0, 0            ; p2 := 0
    p1:ut, p2:of = pcmp.gt r1, -8
    (p1) p3:ut, p2:of = pcmp.lt r1, 8
    (p3) p4:ut = pcmp.eq r1, 0
    (p2) p5:ut = pcmp.lt r1, 0
    (p3) print 1                    ; stmtA
    (p2) print 3                    ; stmtC
    (p4) print 2                    ; stmtB
    (p5) print 4                    ; stmtD
    ret
}

func main(r1) {
entry:
    call fig3b(r1)
    ret 0
}
