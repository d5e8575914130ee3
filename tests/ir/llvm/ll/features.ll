; Hand-written LLVM IR (typed pointers, as clang-14 prints) exercising lowering corners:
; switch with negative cases, phi swaps on critical edges, unnamed values, i64 udiv/urem,
; odd-width loads/stores, i1 arithmetic, intrinsics, constant-expression operands.
@.fmt = private unnamed_addr constant [13 x i8] c"%ld %ld %ld\0A\00", align 1
@.s = private unnamed_addr constant [4 x i8] c"abc\00", align 1
@tbl = global [3 x { i8, i32 }] [{ i8, i32 } { i8 1, i32 -1 }, { i8, i32 } { i8 2, i32 -2 }, { i8, i32 } zeroinitializer], align 4
@ptrs = global [2 x i8*] [i8* getelementptr inbounds ([4 x i8], [4 x i8]* @.s, i64 0, i64 1), i8* null], align 8

declare i32 @printf(i8*, ...)
declare i64 @llvm.smax.i64(i64, i64)
declare i32 @llvm.abs.i32(i32, i1)
declare i8 @llvm.umin.i8(i8, i8)

define internal i64 @sw(i32 %0) {
  switch i32 %0, label %3 [
    i32 -7, label %2
    i32 4, label %2
    i32 100, label %4
  ]
2:
  br label %5
3:
  br label %5
4:
  br label %5
5:
  %6 = phi i64 [ 10, %2 ], [ 30, %3 ], [ 20, %4 ]
  ret i64 %6
}

define internal void @show(i64 %a, i64 %b, i64 %c) {
  %r = call i32 (i8*, ...) @printf(i8* getelementptr inbounds ([13 x i8], [13 x i8]* @.fmt, i64 0, i64 0), i64 %a, i64 %b, i64 %c)
  ret void
}

define internal i64 @swaps(i64 %n) {
entry:
  br label %loop
loop:
  %x = phi i64 [ 1, %entry ], [ %y, %check ], [ %y, %odd ]
  %y = phi i64 [ 2, %entry ], [ %x, %check ], [ %x, %odd ]
  %i = phi i64 [ 0, %entry ], [ %i1, %check ], [ %i1, %odd ]
  %i1 = add i64 %i, 1
  %isodd = and i64 %i1, 1
  %c = icmp eq i64 %isodd, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %check, label %done
check:
  br i1 %c, label %odd, label %loop
odd:
  br label %loop
done:
  %r = mul i64 %x, 10
  %r2 = add i64 %r, %y
  ret i64 %r2
}

define i32 @main() {
entry:
  %m1 = call i64 @sw(i32 -7)
  %m2 = call i64 @sw(i32 4)
  %m3 = call i64 @sw(i32 100)
  call void @show(i64 %m1, i64 %m2, i64 %m3)
  %s5 = call i64 @swaps(i64 5)
  %s6 = call i64 @swaps(i64 6)
  %s1 = call i64 @sw(i32 5)
  call void @show(i64 %s5, i64 %s6, i64 %s1)
  ; unsigned 64-bit division
  %q1 = udiv i64 -1, 10
  %r1 = urem i64 -1, 10
  %q2 = udiv i64 -1, -9223372036854775807
  call void @show(i64 %q1, i64 %r1, i64 %q2)
  %q3 = udiv i64 -9223372036854775808, 3
  %r3 = urem i64 -2, -3
  %r4 = urem i64 12345678901234, 1000
  call void @show(i64 %q3, i64 %r3, i64 %r4)
  ; odd widths
  %buf = alloca [8 x i8], align 8
  %p = bitcast [8 x i8]* %buf to i24*
  store i24 -2, i24* %p, align 1
  %v24 = load i24, i24* %p, align 1
  %w = zext i24 %v24 to i64
  %sx = sext i24 %v24 to i64
  %p48 = bitcast [8 x i8]* %buf to i48*
  store i48 140737488355327, i48* %p48, align 1
  %v48 = load i48, i48* %p48, align 1
  %w48 = sext i48 %v48 to i64
  call void @show(i64 %w, i64 %sx, i64 %w48)
  ; i1 arithmetic and casts
  %t = icmp ult i32 3, 5
  %f = icmp sgt i1 %t, false
  %tx = xor i1 %t, true
  %sum = add i1 %t, %t
  %e1 = sext i1 %t to i64
  %e2 = zext i1 %f to i64
  %e3 = zext i1 %sum to i64
  call void @show(i64 %e1, i64 %e2, i64 %e3)
  ; intrinsics
  %mx = call i64 @llvm.smax.i64(i64 -4, i64 -9)
  %ab = call i32 @llvm.abs.i32(i32 -2147483647, i1 false)
  %ab64 = sext i32 %ab to i64
  %um = call i8 @llvm.umin.i8(i8 -1, i8 7)
  %um64 = zext i8 %um to i64
  call void @show(i64 %mx, i64 %ab64, i64 %um64)
  ; globals with nested aggregates and relocations
  %g1 = getelementptr inbounds [3 x { i8, i32 }], [3 x { i8, i32 }]* @tbl, i64 0, i64 1, i32 1
  %g1v = load i32, i32* %g1, align 4
  %g1w = sext i32 %g1v to i64
  %pp = load i8*, i8** getelementptr inbounds ([2 x i8*], [2 x i8*]* @ptrs, i64 0, i64 0), align 8
  %ch = load i8, i8* %pp, align 1
  %chw = sext i8 %ch to i64
  %nul = load i8*, i8** getelementptr inbounds ([2 x i8*], [2 x i8*]* @ptrs, i64 0, i64 1), align 8
  %isnull = icmp eq i8* %nul, null
  %isnullw = zext i1 %isnull to i64
  call void @show(i64 %g1w, i64 %chw, i64 %isnullw)
  ; shifts and narrow arithmetic
  %a8 = add i8 100, 100
  %l8 = lshr i8 %a8, 1
  %as8 = ashr i8 %a8, 1
  %l8w = sext i8 %l8 to i64
  %as8w = sext i8 %as8 to i64
  %d16 = sdiv i16 -32768, -1
  %d16w = sext i16 %d16 to i64
  call void @show(i64 %l8w, i64 %as8w, i64 %d16w)
  %sel = select i1 %t, i32 -1, i32 1
  %selw = zext i32 %sel to i64
  %tr = trunc i64 4294967551 to i8
  %trw = zext i8 %tr to i64
  %pi = ptrtoint i8* %pp to i64
  %back = inttoptr i64 %pi to i8*
  %same = icmp eq i8* %back, %pp
  %samew = zext i1 %same to i64
  call void @show(i64 %selw, i64 %trw, i64 %samew)
  ret i32 0
}
