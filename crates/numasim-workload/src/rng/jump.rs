//! Jumping a xoshiro256 stream ahead by any number of draws, so a stream consumed in order can
//! be split into chunks generated in parallel with the same values (the Kronecker edge list).
//!
//! The state update of xoshiro256 is linear over GF(2): `s' = T s` for a 256 × 256 bit matrix
//! `T` whose characteristic polynomial `p` is primitive of degree 256 (the generator's period
//! is 2^256 − 1). So `T^n s = r(T) s` with `r(x) = x^n mod p(x)`, and `r(T) s` is the XOR of
//! the states `T^i s` for the `i` where `r` has a 1: 256 steps whatever `n` is. `p` is not
//! written out here: Berlekamp–Massey finds it once from 512 output bits of any state (the
//! minimal polynomial of a sequence of a primitive LFSR is its characteristic polynomial).

use std::sync::OnceLock;

/// A polynomial of degree < 256 over GF(2), bit i = coefficient of x^i.
type Poly = [u64; 4];

/// One step of xoshiro256's state update (the same for `++` and `**`).
#[inline]
pub fn step(s: &mut [u64; 4]) {
    let t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3].rotate_left(45);
}

/// The low 256 coefficients of the characteristic polynomial (x^256 is implicit).
fn characteristic() -> &'static Poly {
    static P: OnceLock<Poly> = OnceLock::new();
    P.get_or_init(|| {
        // Bit 0 of the first state word, 512 steps from an arbitrary non-zero state.
        let mut s = [0x0123_4567_89AB_CDEF, 0xF00D_FACE_CAFE_BEEF, 1, 0xDEAD_BEEF];
        let bits: Vec<u8> = (0..512)
            .map(|_| {
                let b = (s[0] & 1) as u8;
                step(&mut s);
                b
            })
            .collect();
        let c = berlekamp_massey(&bits);
        // Connection polynomial C(x) = 1 + c1 x + ... + cL x^L, L = 256; the characteristic
        // polynomial is its reciprocal, x^256 + c1 x^255 + ... + c256.
        assert_eq!(c.len(), 257, "xoshiro256's sequence has linear complexity 256");
        let mut p = [0u64; 4];
        for i in 0..256 {
            if c[256 - i] == 1 {
                p[i / 64] |= 1 << (i % 64);
            }
        }
        p
    })
}

/// The shortest connection polynomial of `bits` (coefficients from x^0 up, length L + 1).
fn berlekamp_massey(bits: &[u8]) -> Vec<u8> {
    let n = bits.len();
    let (mut c, mut b) = (vec![0u8; n + 1], vec![0u8; n + 1]);
    c[0] = 1;
    b[0] = 1;
    let (mut l, mut m) = (0usize, 1usize);
    for i in 0..n {
        let mut d = bits[i];
        for j in 1..=l {
            d ^= c[j] & bits[i - j];
        }
        if d == 0 {
            m += 1;
        } else if 2 * l <= i {
            let t = c.clone();
            for j in 0..=n - m {
                c[j + m] ^= b[j];
            }
            l = i + 1 - l;
            b = t;
            m = 1;
        } else {
            for j in 0..=n - m {
                c[j + m] ^= b[j];
            }
            m += 1;
        }
    }
    c.truncate(l + 1);
    c
}

fn bit(a: &Poly, i: usize) -> bool {
    a[i / 64] >> (i % 64) & 1 == 1
}

/// `a · x mod p`.
fn times_x(a: &mut Poly, p: &Poly) {
    let carry = a[3] >> 63;
    a[3] = a[3] << 1 | a[2] >> 63;
    a[2] = a[2] << 1 | a[1] >> 63;
    a[1] = a[1] << 1 | a[0] >> 63;
    a[0] <<= 1;
    if carry == 1 {
        for k in 0..4 {
            a[k] ^= p[k];
        }
    }
}

/// `a · b mod p` (Horner over b's coefficients).
fn mul_mod(a: &Poly, b: &Poly, p: &Poly) -> Poly {
    let mut r = [0u64; 4];
    for i in (0..256).rev() {
        times_x(&mut r, p);
        if bit(b, i) {
            for k in 0..4 {
                r[k] ^= a[k];
            }
        }
    }
    r
}

/// The state `n` draws after `s` (as `n` calls of `next_u64` would leave it).
pub fn jumped(s: [u64; 4], n: u64) -> [u64; 4] {
    let p = characteristic();
    // r = x^n mod p by square-and-multiply from the top bit of n.
    let mut r: Poly = [1, 0, 0, 0];
    for i in (0..64).rev() {
        r = mul_mod(&r, &r, p);
        if n >> i & 1 == 1 {
            times_x(&mut r, p);
        }
    }
    let (mut acc, mut t) = ([0u64; 4], s);
    for i in 0..256 {
        if bit(&r, i) {
            for k in 0..4 {
                acc[k] ^= t[k];
            }
        }
        step(&mut t);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stepped(mut s: [u64; 4], n: u64) -> [u64; 4] {
        for _ in 0..n {
            step(&mut s);
        }
        s
    }

    #[test]
    fn the_step_is_the_generators() {
        use rand::RngCore;
        let s = super::super::stream_state(3, 9);
        let mut rng = super::super::stream(3, 9);
        rng.next_u64();
        rng.next_u64();
        let mut want = super::super::from_state(stepped(s, 2));
        assert_eq!(rng.next_u64(), want.next_u64());
    }

    #[test]
    fn small_jumps_are_steps() {
        let s = [1, 2, 3, 4];
        for n in [0, 1, 2, 63, 64, 255, 256, 257, 1000, 4099] {
            assert_eq!(jumped(s, n), stepped(s, n), "n = {n}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        #[test]
        fn a_jump_is_n_steps(a: u64, b: u64, n in 0u64..200_000) {
            let s = [a | 1, b, a ^ b, 0x1234];
            prop_assert_eq!(jumped(s, n), stepped(s, n));
        }

        /// Jumps compose: m then n is m + n (covers distances too long to step).
        #[test]
        fn jumps_compose(m in 0u64..1 << 40, n in 0u64..1 << 40) {
            let s = [5, 6, 7, 8];
            prop_assert_eq!(jumped(jumped(s, m), n), jumped(s, m + n));
        }
    }
}
