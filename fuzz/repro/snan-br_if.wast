;; fuzz_wasm_diff finding (open): the compiled tier quiets a signalling NaN that br_if carries
;; to the function label (0x7ff4000000000000 comes back as 0x7ffc000000000000; the spec and the
;; interpreter keep the bits). Reduced by line deletion from a generated module; not yet isolated
;; further. Run: wast2json fuzz/repro/snan-br_if.wast -o /tmp/r.json &&
;; build/sbx-spectest --tier both /tmp/r.json (interp passes, compiled fails). Not in make test
;; until the bug is fixed; then move it to tests/wasm/regress/.
(module
  (type (;0;) (func (param i32 i32) (result i32)))
  (type (;1;) (func (param i64 i32 f32)))
  (type (;2;) (func (param i32) (result f32 f64 f64)))
  (type (;3;) (func (param i32 i32 f64) (result f64 f32)))
  (type (;4;) (func (param i64) (result i64)))
  (func (;0;) (type 0) local.get 0)
  (func (;1;) (type 1) (param i64 i32 f32)
    (local i64 f64 i32 i64 f32 f64)
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    block  ;; label = @1
      loop  ;; label = @2
        global.get 0
        i32.eqz
        if  ;; label = @3
        end
        global.get 0
        i32.const 1
        i32.and
        local.get 1
        i32.store16 offset=31 align=1
        local.get 1
        i32.const 7
        i32.and
        br_if 0 (;@2;)
        loop (result i64)  ;; label = @3
          global.get 0
          if  ;; label = @4
          end
          global.get 0
          i32.const 1
          i32.sub
          global.set 0
          block  ;; label = @4
            i32.const 47
            i64.const -26
            local.get 0
            i32.const 78
            i32.const 1
            call_indirect (type 2)
            i32.const 2
            br 0 (;@4;)
          end
          i64.const 0
        end
        drop
      end
    end)
  (func (;2;) (type 2) (param i32) (result f32 f64 f64)
    (local i32 i32 i64 f32 f64)
    global.get 0
    i32.eqz
    if  ;; label = @1
      f32.const 0x0p+0 (;=0;)
      f64.const 0x0p+0 (;=0;)
      f64.const 0x0p+0 (;=0;)
      return
    end
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    block  ;; label = @1
      i32.const 15
      local.get 0
      f32.const 0x1p+32 (;=4.29497e+09;)
      local.get 5
      f64.const nan:0x4000000000000 (;=nan;)
      local.get 0
      i32.const 7
      i32.and
      br_if 1 (;@0;)
      local.get 3
      call 4
      local.get 0
      if  ;; label = @2
        local.get 4
        local.get 4
        f32.ne
        i32.const 1023
        i64.extend_i32_u
        global.get 1
        i64.const 7
        local.get 4
        local.get 5
        local.get 5
        return
        loop (result i32 f32)  ;; label = @3
          global.get 0
          if  ;; label = @4
          end
          global.get 0
          i32.const 1
          i32.sub
          global.set 0
          local.get 0
          f32.const -0x1p+31 (;=-2.14748e+09;)
        end
        drop
        drop
      end
      br 0 (;@1;)
    end
    f32.const nan (;=nan;)
    local.get 5
    local.get 5)
  (func (;3;) (type 3) (param i32 i32 f64) (result f64 f32)
    (local i32 i64 f32 f64)
    global.get 0
    if  ;; label = @1
      f64.const 0x0p+0 (;=0;)
      f32.const 0x0p+0 (;=0;)
      return
    end
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    local.get 2
    local.get 5)
  (func (;4;) (type 4) (param i64) (result i64)
    global.get 0
    i32.eqz
    if  ;; label = @1
      i64.const 0
      return
    end
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    local.get 0)
  (table (;0;) 2 2 funcref)
  (memory (;0;) 1 1)
  (global (;0;) (mut i32) (i32.const 100))
  (global (;1;) (mut i64) (i64.const 0))
  (export "f1" (func 2))
  (export "g0" (global 0))
  (data (;0;) (i32.const 0) "")
  (data (;1;) "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"))
(assert_return (invoke "f1" (i32.const 1))
  (f32.const 0x1p+32) (f64.const 0) (f64.const nan:0x4000000000000))
