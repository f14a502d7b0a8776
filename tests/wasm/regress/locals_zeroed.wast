;; Engine regressions: a call zeroes only the locals that may be read before a certain write.
;; "dirty" leaves garbage in the frame slots the next call reuses; every read-before-write path
;; (blocks left early, if without else, loop bodies, after loops) must still see zero.
(module
  (func $dirty (export "dirty") (param i32) (result i32)
    (local i32 i32 i32 i32 i32 i32 i32 i32)
    i32.const -1 local.set 1 i32.const -1 local.set 2 i32.const -1 local.set 3
    i32.const -1 local.set 4 i32.const -1 local.set 5 i32.const -1 local.set 6
    i32.const -1 local.set 7 i32.const -1 local.set 8
    local.get 1 local.get 2 i32.add local.get 3 i32.add local.get 4 i32.add
    local.get 5 i32.add local.get 6 i32.add local.get 7 i32.add local.get 8 i32.add)
  (func (export "blk") (param i32) (result i32)
    (local i32)
    block local.get 0 br_if 0 i32.const 5 local.set 1 end
    local.get 1)
  (func (export "ifelse") (param i32) (result i32)
    (local i32)
    local.get 0 if i32.const 5 local.set 1 else end
    local.get 1)
  (func (export "lp") (param i32) (result i32)
    (local i32 i32)
    loop
      local.get 1 local.get 2 i32.add local.set 2
      local.get 0 local.set 1
      local.get 0 i32.const -1 i32.add local.tee 0
      br_if 0
    end
    local.get 2)
  (func (export "after_loop") (param i32) (result i32)
    (local i32)
    loop i32.const 7 local.set 1 end
    local.get 1)
  (func (export "zero_drop") (param i32) (result i32)
    (local i32 i32)
    i32.const 0 local.set 1
    loop
      local.get 1 local.get 0 i32.add local.set 1
      local.get 0 i32.const -1 i32.add local.tee 0
      br_if 0
    end
    local.get 1)
  (func (export "wrap_zero") (result i32)
    (local i32 i32 i32)
    i64.const 0x100000000 i32.wrap_i64 local.set 1
    i32.const 0 nop local.set 2
    local.get 1 local.get 2 i32.or)
  (func (export "unset") (result i32)
    (local i32 i32 i32 i32)
    local.get 3)
  (func (export "v128") (result i64)
    (local i32 v128)
    local.get 1 i64x2.extract_lane 0 local.get 1 i64x2.extract_lane 1 i64.or)
)
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "blk" (i32.const 1)) (i32.const 0))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "blk" (i32.const 0)) (i32.const 5))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "ifelse" (i32.const 0)) (i32.const 0))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "lp" (i32.const 3)) (i32.const 5))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "after_loop" (i32.const 0)) (i32.const 7))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "zero_drop" (i32.const 3)) (i32.const 6))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "wrap_zero") (i32.const 0))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "unset") (i32.const 0))
(assert_return (invoke "dirty" (i32.const 0)) (i32.const -8))
(assert_return (invoke "v128") (i64.const 0))
