;; Runner self-test: commands marked FAIL must be reported as failures, all others must pass.
(module $m
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "anan") (result f32) (f32.const nan:0x600000))
  (func (export "cnan") (result f64) (f64.const nan))
  (func (export "div") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))
  (func $rec (export "rec") (call $rec))
  (func (export "spin") (loop (br 0)))
  (func (export "ext") (param externref) (result externref) (local.get 0))
  (func (export "null") (result funcref) (ref.null func))
  (func (export "two") (result i32 i64) (i32.const 1) (i64.const -1))
  (global (export "g") i32 (i32.const 7))
  (memory (export "mem") 1)
)
(assert_return (invoke "add" (i32.const 1) (i32.const 2)) (i32.const 3))
(assert_return (invoke "add" (i32.const 1) (i32.const 2)) (i32.const 4)) ;; FAIL
(assert_return (invoke "anan") (f32.const nan:arithmetic))
(assert_return (invoke "anan") (f32.const nan:canonical)) ;; FAIL
(assert_return (invoke "cnan") (f64.const nan:canonical))
(assert_return (invoke "cnan") (f64.const 0)) ;; FAIL
(assert_return (invoke "two") (i32.const 1) (i64.const -1))
(assert_return (invoke "two") (i32.const 1) (i64.const 1)) ;; FAIL
(assert_trap (invoke "div" (i32.const 1) (i32.const 0)) "integer divide by zero")
(assert_trap (invoke "div" (i32.const 1) (i32.const 0)) "integer overflow") ;; FAIL
(assert_trap (invoke "add" (i32.const 1) (i32.const 0)) "unreachable") ;; FAIL
(assert_exhaustion (invoke "rec") "call stack exhausted")
(assert_exhaustion (invoke "div" (i32.const 1) (i32.const 0)) "call stack exhausted") ;; FAIL
(assert_return (invoke "ext" (ref.extern 5)) (ref.extern 5))
(assert_return (invoke "ext" (ref.extern 0)) (ref.null extern)) ;; FAIL
(assert_return (invoke "ext" (ref.null extern)) (ref.null extern))
(assert_return (invoke "null") (ref.null func))
(assert_return (get "g") (i32.const 7))
(assert_return (get "g") (i32.const 8)) ;; FAIL
(invoke "add" (i32.const 1) (i32.const 2))
(invoke "div" (i32.const 1) (i32.const 0)) ;; FAIL
(assert_return (invoke "spin")) ;; FAIL
(register "M" $m)
(module (import "M" "g" (global i32)) (import "spectest" "print_i32" (func (param i32))))
(assert_unlinkable (module (import "M" "nope" (global i32))) "unknown import")
(assert_unlinkable (module (import "M" "g" (global (mut i32)))) "incompatible import type")
(assert_unlinkable (module (import "M" "g" (global i32))) "unknown import") ;; FAIL
(assert_unlinkable (module (import "spectest" "table" (table 10 20 funcref))) "incompatible import type") ;; FAIL
(assert_unlinkable (module (import "spectest" "memory" (memory 1 1))) "incompatible import type")
(assert_trap (module (memory 1) (data (i32.const 65536) "a")) "out of bounds memory access")
(assert_trap (module (memory 1)) "out of bounds memory access") ;; FAIL
(assert_trap (module (func $s unreachable) (start $s)) "unreachable")
(assert_invalid (module (func (result i32))) "type mismatch")
(assert_invalid (module (func)) "type mismatch") ;; FAIL
(assert_malformed (module binary "\00asm") "unexpected end")
(assert_malformed (module binary "\00asm\01\00\00\00") "unexpected end") ;; FAIL
(assert_malformed (module binary "\00asm\01\00\00\00\01\04\01\60\00\00\03\02\01\00\0a\05\01\03\00\6a\0b") "type mismatch") ;; FAIL
(assert_malformed (module quote "(func") "unexpected token")
(module $n (func (export "f") (result i32) (i32.const 5)))
(assert_return (invoke $m "add" (i32.const 2) (i32.const 2)) (i32.const 4))
(assert_return (invoke $n "f") (i32.const 5))
(assert_return (invoke $n "f") (i32.const 6)) ;; FAIL

