;; Bounds checks at their edges (the compiled tier tests ea > size - bytes in signed 64 bits,
;; jit/emit_memory.c): the last byte that fits, the first that does not, a memory too small
;; for the access (the limit is negative), offsets that reach past 4 GiB, and a limit that
;; must be re-read after memory.grow inside a loop.
(module
  (memory 0)
  (func (export "load8") (result i32) (i32.load8_u (i32.const 0)))
  (func (export "load64") (result i64) (i64.load (i32.const 0))))
(assert_trap (invoke "load8") "out of bounds memory access")
(assert_trap (invoke "load64") "out of bounds memory access")

(module
  (memory 1)
  (func (export "ld64") (param i32) (result i64) (i64.load (local.get 0)))
  (func (export "ld64_off") (param i32) (result i64) (i64.load offset=65528 (local.get 0)))
  (func (export "ld8_far") (param i32) (result i32) (i32.load8_u offset=4294967295 (local.get 0)))
  (func (export "ld16") (param i32) (result i32) (i32.load16_u (local.get 0)))
  (func (export "st64") (param i32) (i64.store (local.get 0) (i64.const -1)))
  (func (export "st32_off") (param i32) (i32.store offset=65532 (local.get 0) (i32.const -1)))
  (func (export "v128") (param i32) (result i32) (i32x4.extract_lane 0 (v128.load (local.get 0))))
  (func (export "peek") (param i32) (result i32) (i32.load8_u (local.get 0))))
(assert_return (invoke "ld64" (i32.const 65528)) (i64.const 0))
(assert_trap (invoke "ld64" (i32.const 65529)) "out of bounds memory access")
(assert_trap (invoke "ld64" (i32.const -1)) "out of bounds memory access")
(assert_return (invoke "ld64_off" (i32.const 0)) (i64.const 0))
(assert_trap (invoke "ld64_off" (i32.const 1)) "out of bounds memory access")
(assert_trap (invoke "ld8_far" (i32.const 0)) "out of bounds memory access")
(assert_trap (invoke "ld8_far" (i32.const -1)) "out of bounds memory access")
(assert_return (invoke "ld16" (i32.const 65534)) (i32.const 0))
(assert_trap (invoke "ld16" (i32.const 65535)) "out of bounds memory access")
(assert_return (invoke "v128" (i32.const 65520)) (i32.const 0))
(assert_trap (invoke "v128" (i32.const 65521)) "out of bounds memory access")
;; A store that does not fit writes nothing.
(assert_trap (invoke "st64" (i32.const 65529)) "out of bounds memory access")
(assert_return (invoke "peek" (i32.const 65529)) (i32.const 0))
(assert_return (invoke "peek" (i32.const 65535)) (i32.const 0))
(assert_trap (invoke "st32_off" (i32.const 1)) "out of bounds memory access")
(assert_return (invoke "peek" (i32.const 65533)) (i32.const 0))
(assert_return (invoke "st32_off" (i32.const 0)))
(assert_return (invoke "peek" (i32.const 65535)) (i32.const 255))

;; The loop's second access is past the first page: only the grow in between makes it fit, so
;; a limit kept from before the grow would trap.
(module
  (memory 1 2)
  (func (export "grow_in_loop") (result i32)
    (local $i i32) (local $sum i32)
    (loop $l
      (local.set $sum (i32.add (local.get $sum)
        (i32.load (i32.add (i32.const 65532) (i32.mul (local.get $i) (i32.const 8))))))
      (drop (memory.grow (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 2))))
    (local.get $sum))
  (func (export "size") (result i32) (memory.size)))
(assert_return (invoke "grow_in_loop") (i32.const 0))
(assert_return (invoke "size") (i32.const 2))
