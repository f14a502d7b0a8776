;; Exception handling in both tiers (tests/wasm/regress.sh). Functions with a try_table run
;; interpreted in every tier; the others are compiled under --tier compiled, so these throws
;; cross compiled and interpreted frames both ways.

(module $a
  (tag $e0 (export "e0"))
  (tag $e1 (export "e1") (param i32))
  (tag $e2 (param i64 f64 v128))
  (global $saved (mut exnref) (ref.null exn))

  (func $thrower (param i32)
    (if (i32.eqz (local.get 0)) (then (throw $e1 (i32.const 42))))
    (call $thrower (i32.sub (local.get 0) (i32.const 1))))

  ;; Caught several (here 5,000) frames up, the values below the try_table intact.
  (func (export "deep") (param i32) (result i32)
    (i32.const 1000)
    (block $h (result i32)
      (try_table (result i32) (catch $e1 $h)
        (call $thrower (local.get 0))
        (i32.const 7)))
    (i32.add))

  ;; The inner try_table does not match: the outer one takes it.
  (func (export "nested") (result i32)
    (block $outer (result i32)
      (try_table (result i32) (catch $e1 $outer)
        (block $inner
          (try_table (catch $e0 $inner)
            (throw $e1 (i32.const 5))))
        (i32.const -1))))

  ;; A catch to a loop's label: the loop runs again with the value as its param.
  (func (export "loop") (result i32)
    (local $n i32)
    (i32.const 0)
    (loop $l (param i32) (result i32)
      (local.set $n)
      (if (i32.ge_u (local.get $n) (i32.const 5)) (then (return (local.get $n))))
      (try_table (catch $e1 $l)
        (throw $e1 (i32.add (local.get $n) (i32.const 1))))
      (i32.const -1)))

  ;; A catch to the function's label returns its values.
  (func (export "to-func") (result i32)
    (try_table (catch $e1 0) (throw $e1 (i32.const 9)))
    (i32.const -1))

  ;; A tail call leaves the try_table: its callee's exception is not caught there.
  (func $raise (throw $e0))
  (func $raise-i32 (result i32) (throw $e0))
  (func (export "tail") (result i32)
    (block $h
      (try_table (catch_all $h) (return_call $raise-i32)))
    (i32.const 1))
  (func (export "tail-caught") (result i32)
    (block $h
      (try_table (catch_all $h) (call $raise)))
    (i32.const 1))

  ;; Several values of several types, v128 included.
  (func (export "multi") (result i64 f64 i32)
    (block $h (result i64 f64 v128)
      (try_table (catch $e2 $h)
        (throw $e2 (i64.const -3) (f64.const 2.5) (v128.const i32x4 1 2 3 4)))
      (unreachable))
    (i32x4.extract_lane 3))

  ;; catch_ref keeps the exception: stored, rethrown later, caught again with its values.
  (func (export "keep") (result i32)
    (block $h (result i32 exnref)
      (try_table (catch_ref $e1 $h) (throw $e1 (i32.const 11)))
      (unreachable))
    (global.set $saved))
  (func (export "rethrow-saved") (result i32)
    (block $h (result i32)
      (try_table (catch $e1 $h) (throw_ref (global.get $saved)))
      (i32.const -1)))
  (func (export "rethrow-null")
    (throw_ref (ref.null exn)))

  ;; Through call_indirect and call_ref.
  (type $v (func))
  (table $t 1 funcref)
  (elem (table $t) (i32.const 0) func $raise)
  (elem declare func $raise)
  (func (export "indirect") (result i32)
    (block $h
      (try_table (catch $e0 $h) (call_indirect $t (type $v) (i32.const 0))))
    (i32.const 2))
  (func (export "ref") (result i32)
    (block $h
      (try_table (catch $e0 $h) (call_ref $v (ref.func $raise))))
    (i32.const 3))

  (func (export "throw-e0") (throw $e0))
  (func (export "throw-e1") (param i32) (throw $e1 (local.get 0)))
)
(register "a" $a)
(assert_return (invoke "deep" (i32.const 5000)) (i32.const 1042))
(assert_return (invoke "deep" (i32.const 0)) (i32.const 1042))
(assert_return (invoke "nested") (i32.const 5))
(assert_return (invoke "loop") (i32.const 5))
(assert_return (invoke "to-func") (i32.const 9))
(assert_exception (invoke "tail"))
(assert_return (invoke "tail-caught") (i32.const 1))
(assert_return (invoke "multi") (i64.const -3) (f64.const 2.5) (i32.const 4))
(assert_return (invoke "keep") (i32.const 11))
(assert_return (invoke "rethrow-saved") (i32.const 11))
(assert_return (invoke "rethrow-saved") (i32.const 11))
(assert_trap (invoke "rethrow-null") "null exception reference")
(assert_return (invoke "indirect") (i32.const 2))
(assert_return (invoke "ref") (i32.const 3))
(assert_exception (invoke "throw-e0"))

;; Tags are identities: an imported tag catches the exporter's exceptions; a tag of the same
;; type defined here does not.
(module $b
  (import "a" "e1" (tag $e1 (param i32)))
  (import "a" "throw-e1" (func $throw-e1 (param i32)))
  (tag $mine (param i32))
  (func (export "same") (result i32)
    (block $h (result i32)
      (try_table (catch $e1 $h) (call $throw-e1 (i32.const 21)))
      (i32.const -1)))
  (func (export "other") (result i32)
    (block $h (result i32)
      (try_table (catch $mine $h) (call $throw-e1 (i32.const 21)))
      (i32.const -1)))
  (func (export "all") (result i32)
    (block $h
      (try_table (catch_all $h) (call $throw-e1 (i32.const 21))))
    (i32.const 4))
)
(assert_return (invoke "same") (i32.const 21))
(assert_exception (invoke "other"))
(assert_return (invoke "all") (i32.const 4))

(assert_invalid
  (module (tag $t (param i32)) (func (block $h (try_table (catch $t $h)))))
  "type mismatch")
(assert_invalid
  (module (func (throw 0)))
  "unknown tag")
