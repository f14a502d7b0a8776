;; Engine regressions: fused instructions (i32 add pairs as address arithmetic, wrapping at 32
;; bits; f64 multiply-add into memory with a factor loaded from b + k) against their unfused
;; meaning, out-of-bounds traps included.
(module
  (memory 1)
  (data (i32.const 16) "\01\00\00\00\02\00\00\00\03\00\00\00")
  ;; add pairs in all four forms; results wrap at 32 bits
  (func (export "rr") (param i32 i32 i32) (result i64)
    (local i32 i32)
    local.get 0 local.get 1 i32.add local.set 3
    local.get 3 local.get 2 i32.add local.set 4
    local.get 3 i64.extend_i32_u i64.const 32 i64.shl
    local.get 4 i64.extend_i32_u i64.or)
  (func (export "ri") (param i32 i32) (result i64)
    (local i32 i32)
    local.get 0 local.get 1 i32.add local.set 2
    local.get 2 i32.const -8 i32.add local.set 3
    local.get 2 i64.extend_i32_u i64.const 32 i64.shl
    local.get 3 i64.extend_i32_u i64.or)
  (func (export "ir") (param i32 i32) (result i64)
    (local i32 i32)
    local.get 0 i32.const 7 i32.add local.set 2
    local.get 2 local.get 1 i32.add local.set 3
    local.get 2 i64.extend_i32_u i64.const 32 i64.shl
    local.get 3 i64.extend_i32_u i64.or)
  (func (export "ii") (param i32) (result i64)
    (local i32 i32)
    local.get 0 i32.const 0x7fffffff i32.add local.set 1
    local.get 1 i32.const 0x7fffffff i32.add local.set 2
    local.get 1 i64.extend_i32_u i64.const 32 i64.shl
    local.get 2 i64.extend_i32_u i64.or)
  ;; wrapped sums used as addresses
  (func (export "ld") (param i32 i32) (result i32)
    (local i32 i32)
    local.get 0 local.get 1 i32.add local.set 2
    local.get 2 i32.const 4 i32.add local.set 3
    local.get 2 i32.load local.get 3 i32.load i32.add)
  ;; mem[a] += x * mem[(b + k)], k folded into the fused op
  (func (export "axpy") (param $a i32) (param $b i32) (param $x f64) (result f64)
    local.get $a
    local.get $x
    local.get $b i32.const 8 i32.add f64.load
    f64.mul
    local.get $a f64.load
    f64.add
    f64.store
    local.get $a f64.load)
  (func (export "axpy2") (param $a i32) (param $b i32) (param $x f64) (result f64)
    local.get $a
    local.get $b i32.const 8 i32.add f64.load offset=8
    local.get $x
    f64.mul
    local.get $a f64.load
    f64.add
    f64.store
    local.get $a f64.load)
  (func (export "set") (param i32 f64) local.get 0 local.get 1 f64.store)
)
(assert_return (invoke "rr" (i32.const 0xFFFFFFF0) (i32.const 0x20) (i32.const 0xFFFFFFF0)) (i64.const 0x0000001000000000))
(assert_return (invoke "ri" (i32.const 0xFFFFFFFF) (i32.const 2)) (i64.const 0x00000001FFFFFFF9))
(assert_return (invoke "ir" (i32.const 0xFFFFFFFC) (i32.const 0xFFFFFFFF)) (i64.const 0x0000000300000002))
(assert_return (invoke "ii" (i32.const 2)) (i64.const 0x8000000100000000))
(assert_return (invoke "ld" (i32.const 0xFFFFFFF0) (i32.const 0x20)) (i32.const 3))
(assert_return (invoke "ld" (i32.const 16) (i32.const 4)) (i32.const 5))
(assert_trap (invoke "ld" (i32.const 65530) (i32.const 0)) "out of bounds memory access")
(invoke "set" (i32.const 100) (f64.const 1.5))
(invoke "set" (i32.const 208) (f64.const 2))
(invoke "set" (i32.const 216) (f64.const 4))
(assert_return (invoke "axpy" (i32.const 100) (i32.const 200) (f64.const 3)) (f64.const 7.5))
(assert_return (invoke "axpy" (i32.const 100) (i32.const 0xFFFFFFF8) (f64.const 0)) (f64.const 7.5))
(assert_return (invoke "axpy2" (i32.const 100) (i32.const 200) (f64.const 0.5)) (f64.const 9.5))
(assert_trap (invoke "axpy" (i32.const 100) (i32.const 65528) (f64.const 1)) "out of bounds memory access")
(assert_trap (invoke "axpy" (i32.const 65530) (i32.const 200) (f64.const 1)) "out of bounds memory access")
(assert_trap (invoke "axpy2" (i32.const 100) (i32.const 65520) (f64.const 1)) "out of bounds memory access")
(assert_trap (invoke "axpy2" (i32.const 100) (i32.const 0xFFFFFFF0) (f64.const 0.0)) "out of bounds memory access")
(assert_return (invoke "axpy2" (i32.const 100) (i32.const 0xFFFFFFF8) (f64.const 0.0)) (f64.const 9.5))
