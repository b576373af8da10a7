;; The scan cache's kernel (scan-kernel.ts): int8 dot products over rows of an in-memory matrix.
;; Compiled by packages/store/scripts/build-scan-kernel.mjs into scan-kernel-wasm.ts (a test checks
;; that the committed bytes match this source). The memory is imported: one per cached partition.
(module
  (import "scan" "memory" (memory 1))
  ;; out[i] = f32(dot(codes[row i], query)) * scales[i] for i in 0..count.
  ;; $rows: first row's int8 codes (dims bytes a row); $scales: its f32 scale; $query: dims i16
  ;; values; $dims: a multiple of 16; $out: count f32 results.
  (func (export "scoreI8")
    (param $rows i32) (param $scales i32) (param $query i32) (param $dims i32) (param $count i32) (param $out i32)
    (local $end i32) (local $row i32) (local $d i32) (local $acc v128) (local $v v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (local.set $row (local.get $rows))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $d (i32.const 0))
        (block $row_done
          (loop $chunk
            (br_if $row_done (i32.ge_u (local.get $d) (local.get $dims)))
            (local.set $v (v128.load (i32.add (local.get $row) (local.get $d))))
            (local.set $acc
              (i32x4.add
                (local.get $acc)
                (i32x4.add
                  (i32x4.dot_i16x8_s
                    (i16x8.extend_low_i8x16_s (local.get $v))
                    (v128.load (i32.add (local.get $query) (i32.shl (local.get $d) (i32.const 1)))))
                  (i32x4.dot_i16x8_s
                    (i16x8.extend_high_i8x16_s (local.get $v))
                    (v128.load offset=16 (i32.add (local.get $query) (i32.shl (local.get $d) (i32.const 1))))))))
            (local.set $d (i32.add (local.get $d) (i32.const 16)))
            (br $chunk)))
        (f32.store
          (local.get $out)
          (f32.mul
            (f32.convert_i32_s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
            (f32.load (local.get $scales))))
        (local.set $row (i32.add (local.get $row) (local.get $dims)))
        (local.set $scales (i32.add (local.get $scales) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $each))))
)
