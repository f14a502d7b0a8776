;; Tail calls (3.0): return_call and return_call_indirect run in constant stack, in both tiers:
;; ten million mutually recursive calls, where a call that kept its frame would exhaust the
;; 10,000-frame interpreter stack or the compiled tier's native stack long before. ping/pong
;; differ in their stack-passed params (8 and 10 i64s), which a C-convention sibling call cannot
;; reuse: only a guaranteed tail call (tailcc) keeps them flat; they call each other through the
;; table with an index LLVM cannot see (a param), so that it cannot inline one into the other
;; and make a loop of the pair (it did, with direct calls). Also: a callee with more params
;; (and v128 ones) than the caller, a host function in tail position, and a tail call into
;; another instance.

(module $other
  (func (export "add3") (param i32 i32 i32) (result i32)
    (i32.add (local.get 0) (i32.add (local.get 1) (local.get 2))))
  (func $down (export "down") (param i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (i64.const 77))
      (else (return_call $down (i64.sub (local.get 0) (i64.const 1)))))))
(register "other")

(module
  (import "spectest" "print_i32" (func $print (param i32)))
  (import "other" "add3" (func $add3 (param i32 i32 i32) (result i32)))
  (import "other" "down" (func $down (param i64) (result i64)))
  (type $t (func (param i64 i64) (result i64)))
  (type $ping_t (func (param i64 i64 i64 i64 i64 i64 i64 i64 i32) (result i64)))
  (type $pong_t (func (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i32) (result i64)))
  (table funcref (elem $even_i $odd_i $ping $pong))

  (func $even (export "even") (param i64 i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (local.get 1))
      (else (return_call $odd (i64.sub (local.get 0) (i64.const 1))
                              (i64.add (local.get 1) (i64.const 2))))))
  (func $odd (param i64 i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (i64.sub (i64.const 0) (local.get 1)))
      (else (return_call $even (i64.sub (local.get 0) (i64.const 1))
                               (i64.add (local.get 1) (i64.const 1))))))

  (func $even_i (export "even_i") (param i64 i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (local.get 1))
      (else (return_call_indirect (type $t)
              (i64.sub (local.get 0) (i64.const 1)) (i64.add (local.get 1) (i64.const 2))
              (i32.const 1)))))
  (func $odd_i (param i64 i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (i64.sub (i64.const 0) (local.get 1)))
      (else (return_call_indirect (type $t)
              (i64.sub (local.get 0) (i64.const 1)) (i64.add (local.get 1) (i64.const 1))
              (i32.const 0)))))

  (func $ping (export "ping") (param i64 i64 i64 i64 i64 i64 i64 i64 i32) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (i64.add (local.get 1) (local.get 7)))
      (else (return_call_indirect (type $pong_t)
              (i64.sub (local.get 0) (i64.const 1)) (i64.add (local.get 1) (i64.const 1))
              (local.get 2) (local.get 3) (local.get 4) (local.get 5) (local.get 6) (local.get 7)
              (i64.const 100) (i64.const 200) (local.get 8)
              (i32.add (local.get 8) (i32.const 1))))))
  (func $pong (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i32) (result i64)
    (return_call_indirect (type $ping_t) (local.get 0) (i64.add (local.get 1) (local.get 9))
      (local.get 2) (local.get 3) (local.get 4) (local.get 5) (local.get 6)
      (i64.add (local.get 7) (local.get 8)) (local.get 10) (local.get 10)))

  ;; The callee's frame is larger than the caller's: six params, two of them v128.
  (func $wide (param i32 v128 i64 v128 f64 i32) (result i32)
    (i32.add (i32.add (local.get 0) (local.get 5))
      (i32.add (i32x4.extract_lane 3 (local.get 1)) (i32x4.extract_lane 0 (local.get 3)))))
  (func (export "grow") (param i32) (result i32)
    (return_call $wide (local.get 0) (v128.const i32x4 0 0 0 40) (i64.const 9)
                       (v128.const i32x4 300 0 0 0) (f64.const 1.5) (i32.const 2000)))

  ;; A host function, and functions of another instance, in tail position.
  (func (export "to_host") (param i32) (return_call $print (local.get 0)))
  (func (export "to_other") (param i32) (result i32)
    (return_call $add3 (local.get 0) (i32.const 20) (i32.const 300)))
  (func (export "to_other_deep") (param i64) (result i64) (return_call $down (local.get 0)))
)

(assert_return (invoke "even" (i64.const 10000000) (i64.const 0)) (i64.const 15000000))
(assert_return (invoke "even" (i64.const 9999999) (i64.const 0)) (i64.const -14999999))
(assert_return (invoke "even_i" (i64.const 10000000) (i64.const 0)) (i64.const 15000000))
(assert_return (invoke "ping" (i64.const 10000000) (i64.const 0) (i64.const 0) (i64.const 0)
                 (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 5) (i32.const 2))
               (i64.const 3010000005))
(assert_return (invoke "grow" (i32.const 1)) (i32.const 2341))
(assert_return (invoke "to_host" (i32.const 5)))
(assert_return (invoke "to_other" (i32.const 4)) (i32.const 324))
(assert_return (invoke "to_other_deep" (i64.const 1000000)) (i64.const 77))
