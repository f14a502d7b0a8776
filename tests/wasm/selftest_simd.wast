;; Runner self-test for v128 values: commands marked FAIL must fail, all others must pass.
(module
  (func (export "v") (result v128) (v128.const i32x4 1 2 3 4))
  (func (export "vf") (result v128) (v128.const f32x4 nan 1 2 3))
)
(assert_return (invoke "v") (v128.const i32x4 1 2 3 4))
(assert_return (invoke "v") (v128.const i16x8 1 0 2 0 3 0 4 0))
(assert_return (invoke "v") (v128.const i32x4 1 2 3 5)) ;; FAIL
(assert_return (invoke "vf") (v128.const f32x4 nan:canonical 1 2 3))
(assert_return (invoke "vf") (v128.const f32x4 nan:canonical 1 2 4)) ;; FAIL
