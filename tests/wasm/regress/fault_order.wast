;; The order of guest accesses around a fault, where an optimiser would move them if guarded
;; accesses were plain (jit/emit_memory.c keeps them volatile; docs/wasm.md "Memory safety"):
;; a store kept in a register through a loop and written after it (LICM's promotion), a store
;; sunk into the one path that stores again, a store forwarded to a later load and dropped, a
;; store before an inlined callee's fault. Each trap must leave the interpreter's memory.
(module
  (memory 1)
  (func $fault (param i32) (result i32) (i32.load (local.get 0)))
;; mem[0] counts the iterations; the 4th reads past the end (offset 65532 + 8), every load
  ;; provably apart from mem[0], so a plain store could live in a register until the loop ends.
  (func (export "loop_count") (result i32)
    (local $i i32) (local $sum i32)
    (loop $l
      (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (local.set $sum (i32.add (local.get $sum) (i32.load offset=65532
        (select (i32.const 8) (i32.const 0) (i32.eq (local.get $i) (i32.const 4))))))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    (local.get $sum))
  (func (export "store_then_far") (param $far i32) (result i32)
    (local $v i32)
    (i32.store8 (i32.const 16) (i32.const 7))
    (local.set $v (i32.load offset=65536 (local.get $far)))
    (i32.store8 (i32.const 16) (i32.const 9))
    (local.get $v))
  (func (export "forwarded") (param $far i32) (result i32)
    (i32.store (i32.const 32) (i32.const 11))
    (i32.add (i32.load (i32.const 32)) (i32.load (local.get $far))))
  (func (export "before_inlined") (param $far i32) (result i32)
    (i32.store (i32.const 48) (i32.const 13))
    (call $fault (local.get $far)))
  (func (export "peek") (param i32) (result i32) (i32.load (local.get 0))))
(assert_trap (invoke "loop_count") "out of bounds memory access")
(assert_return (invoke "peek" (i32.const 0)) (i32.const 4))
(assert_trap (invoke "store_then_far" (i32.const 0)) "out of bounds memory access")
(assert_return (invoke "peek" (i32.const 16)) (i32.const 7))
(assert_trap (invoke "forwarded" (i32.const 70000)) "out of bounds memory access")
(assert_return (invoke "peek" (i32.const 32)) (i32.const 11))
(assert_trap (invoke "before_inlined" (i32.const 65535)) "out of bounds memory access")
(assert_return (invoke "peek" (i32.const 48)) (i32.const 13))
