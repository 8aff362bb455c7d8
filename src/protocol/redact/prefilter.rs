//! The SIMD prefilter (the mask's only unsafe code): whether a string can hold a
//! secret at all. Every detector needs either a sign byte (`=`, `:`, `>`, `@`: key
//! names, URLs, headers, PuTTY lines) or a run of at least `RUN` token bytes
//! (`[A-Za-z0-9_.+/~=-]`: every provider token, JWT, key body line and BEGIN/END marker
//! is at least that long). A string with neither is written as it is.

/// The shortest run of token bytes any detector matches without a sign byte.
pub const RUN: u32 = 8;

/// The bytes of a token run.
static TOKEN_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b'.' | b'+' | b'/' | b'~' | b'=' | b'-');
        c += 1;
    }
    t
};

fn is_sign(b: u8) -> bool {
    matches!(b, b'=' | b':' | b'>' | b'@')
}

/// Whether `s` has a sign byte or a run of `RUN` token bytes.
pub fn may_hold_secret(s: &[u8]) -> bool {
    if s.len() < 3 {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if s.len() >= 32 && *AVX2.get_or_init(|| std::arch::is_x86_feature_detected!("avx2")) {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { avx2(s) };
        }
    }
    scalar(s, 0, 0)
}

/// The byte-by-byte reference, from `i` with a run of `run` before it.
pub fn scalar(s: &[u8], i: usize, mut run: u32) -> bool {
    for &c in s.get(i..).unwrap_or_default() {
        if is_sign(c) {
            return true;
        }
        run = if TOKEN_BYTE[usize::from(c)] {
            run + 1
        } else {
            0
        };
        if run >= RUN {
            return true;
        }
    }
    false
}

/// `may_hold_secret` 32 bytes at a time: a sign mask and a token-byte mask per block,
/// the run of token bytes carried from block to block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2(t: &[u8]) -> bool {
    use std::arch::x86_64::*;
    let in_range = |v: __m256i, lo: u8, hi: u8| {
        // Signed compares: bytes >= 0x80 are negative, so never in an ASCII range.
        _mm256_and_si256(
            _mm256_cmpgt_epi8(v, _mm256_set1_epi8(lo as i8 - 1)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8(hi as i8 + 1), v),
        )
    };
    let eq = |v: __m256i, c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
    let mut run = 0u32;
    let mut i = 0;
    while i + 32 <= t.len() {
        // SAFETY: i + 32 <= t.len(); loadu reads unaligned.
        let v = unsafe { _mm256_loadu_si256(t.as_ptr().add(i).cast::<__m256i>()) };
        let signs = _mm256_or_si256(
            _mm256_or_si256(eq(v, b'='), eq(v, b':')),
            _mm256_or_si256(eq(v, b'>'), eq(v, b'@')),
        );
        if _mm256_movemask_epi8(signs) != 0 {
            return true;
        }
        let alnum = _mm256_or_si256(
            _mm256_or_si256(in_range(v, b'A', b'Z'), in_range(v, b'a', b'z')),
            in_range(v, b'0', b'9'),
        );
        // `+ - . /` are 0x2b 0x2d 0x2e 0x2f; then `_ ~`.
        let punct = _mm256_or_si256(
            _mm256_or_si256(in_range(v, b'-', b'/'), eq(v, b'+')),
            _mm256_or_si256(eq(v, b'_'), eq(v, b'~')),
        );
        let bits = _mm256_movemask_epi8(_mm256_or_si256(alnum, punct)) as u32;
        if bits == u32::MAX {
            run += 32;
        } else {
            // Bit 0 is the block's first byte: the run goes on through its low ones.
            if run + bits.trailing_ones() >= RUN {
                return true;
            }
            // A run inside the block: some RUN consecutive set bits.
            let mut x = bits;
            let mut k = 1;
            while k < RUN && x != 0 {
                x &= bits >> k;
                k += 1;
            }
            if x != 0 {
                return true;
            }
            run = bits.leading_ones();
        }
        if run >= RUN {
            return true;
        }
        i += 32;
    }
    scalar(t, i, run)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The SIMD path answers exactly what the byte-by-byte reference answers,
        /// across block edges.
        #[test]
        fn simd_equals_scalar(s in proptest::collection::vec(prop_oneof![
            4 => Just(b'a'), 1 => Just(b' '), 1 => Just(b'-'), 1 => Just(b'/'), 1 => Just(b','),
            1 => Just(b'\n'), 1 => Just(0xc3u8), 1 => Just(b'Z'), 1 => Just(b'9'),
            1 => Just(b'='), 1 => Just(b'*'), 1 => Just(b'~'), 1 => Just(b'+'),
        ], 0..200)) {
            prop_assert_eq!(super::may_hold_secret(&s), s.len() >= 3 && super::scalar(&s, 0, 0));
        }
    }
}
