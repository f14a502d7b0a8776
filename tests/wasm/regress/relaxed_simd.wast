;; Relaxed SIMD under the deterministic profile (opcodes.h, docs/wasm.md): where the spec allows
;; several results, sbx gives the first, the same in both tiers and on every host. Each case
;; below is one where the choices differ, pinned to the deterministic one.
(module
  (func (export "madd") (param f32 f32 f32) (result f32)
    (f32x4.extract_lane 0 (f32x4.relaxed_madd (f32x4.splat (local.get 0))
      (f32x4.splat (local.get 1)) (f32x4.splat (local.get 2)))))
  (func (export "nmadd") (param f64 f64 f64) (result f64)
    (f64x2.extract_lane 1 (f64x2.relaxed_nmadd (f64x2.splat (local.get 0))
      (f64x2.splat (local.get 1)) (f64x2.splat (local.get 2)))))
  (func (export "swizzle") (param i32) (result i32)
    (i8x16.extract_lane_u 0 (i8x16.relaxed_swizzle
      (v128.const i8x16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16) (i8x16.splat (local.get 0)))))
  (func (export "laneselect") (param i32) (result i32)
    (i32x4.extract_lane 0 (i32x4.relaxed_laneselect (v128.const i32x4 -1 -1 -1 -1)
      (v128.const i32x4 0 0 0 0) (i32x4.splat (local.get 0)))))
  (func (export "trunc") (param f32) (result i32)
    (i32x4.extract_lane 0 (i32x4.relaxed_trunc_f32x4_u (f32x4.splat (local.get 0)))))
  (func (export "dot") (param i32 i32) (result i32)
    (i16x8.extract_lane_s 0 (i16x8.dot_i8x16_i7x16_s (i8x16.splat (local.get 0))
      (i8x16.splat (local.get 1)))))
  (func (export "dot_add") (param i32 i32 i32) (result i32)
    (i32x4.extract_lane 0 (i32x4.dot_i8x16_i7x16_add_s (i8x16.splat (local.get 0))
      (i8x16.splat (local.get 1)) (i32x4.splat (local.get 2)))))
  (func (export "q15") (param i32) (result i32)
    (i16x8.extract_lane_s 0 (i16x8.relaxed_q15mulr_s (i16x8.splat (local.get 0))
      (i16x8.splat (local.get 0)))))
  (func (export "min") (param f32 f32) (result f32)
    (f32x4.extract_lane 0 (f32x4.relaxed_min (f32x4.splat (local.get 0))
      (f32x4.splat (local.get 1)))))
)

;; (1 + 2^-23)^2 - (1 + 2^-22): 0 with two roundings, 2^-46 fused
(assert_return (invoke "madd" (f32.const 0x1.000002p+0) (f32.const 0x1.000002p+0)
                 (f32.const -0x1.000004p+0)) (f32.const 0))
(assert_return (invoke "nmadd" (f64.const 0x1.0000000000001p+0) (f64.const 0x1.0000000000001p+0)
                 (f64.const 0x1.0000000000002p+0)) (f64.const 0))
;; an index 16-127 selects 0, not lane (j mod 16)
(assert_return (invoke "swizzle" (i32.const 17)) (i32.const 0))
;; a mask of mixed bits selects bit by bit, not by its top bit
(assert_return (invoke "laneselect" (i32.const 0x0000ffff)) (i32.const 0x0000ffff))
;; NaN and out of range saturate
(assert_return (invoke "trunc" (f32.const nan)) (i32.const 0))
(assert_return (invoke "trunc" (f32.const -1)) (i32.const 0))
(assert_return (invoke "trunc" (f32.const 1e10)) (i32.const -1))
;; the second operand is signed: 1 * -1 + 1 * -1, not 1 * 255 + 1 * 255
(assert_return (invoke "dot" (i32.const 1) (i32.const 0xff)) (i32.const -2))
(assert_return (invoke "dot_add" (i32.const 1) (i32.const 0xff) (i32.const 10)) (i32.const 6))
;; -32768 * -32768 saturates to 32767
(assert_return (invoke "q15" (i32.const 0x8000)) (i32.const 32767))
;; a NaN operand gives a NaN (fmin), never the other operand
(assert_return (invoke "min" (f32.const nan) (f32.const 1)) (f32.const nan:arithmetic))
(assert_return (invoke "min" (f32.const 1) (f32.const nan)) (f32.const nan:arithmetic))
;; zeroes of opposite sign: -0
(assert_return (invoke "min" (f32.const 0) (f32.const -0)) (f32.const -0))
