func @f(%n) {
entry:
    %i = mov 0
    br head
head:
    %c = cmp.lt %i, %n
    cbr %c, body, done
body:
    %o = and %i, 1
    cbr %o, then, else
then:
    print 1
    br latch
else:
    print 2
    br latch
latch:
    %i = add %i, 1
    br head
done:
    ret %i
}
