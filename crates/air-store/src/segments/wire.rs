//! Varints (LEB128), zigzag, weights: the wire format's pieces.

use super::{Malformed, Result};

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A weight (count or length), exactly: in twentieths when that is
/// exact (one or two bytes for the tokenizer's weights), else its bits.
pub fn put_weight(out: &mut Vec<u8>, x: f32) {
    let k = (x * 20.0).round();
    if (0.0..2_147_483_648.0).contains(&k) && ((k as u32) as f32 / 20.0).to_bits() == x.to_bits() {
        put_varint(out, u64::from(k as u32) << 1);
    } else {
        out.push(1);
        out.extend_from_slice(&x.to_bits().to_le_bytes());
    }
}

/// Reads bytes from a slice; past its end is an error.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    pub fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    pub fn byte(&mut self) -> Result<u8> {
        let b = *self.bytes.get(self.pos).ok_or(Malformed("cut short"))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(Malformed("length out of range"))?;
        let s = self.bytes.get(self.pos..end).ok_or(Malformed("cut short"))?;
        self.pos = end;
        Ok(s)
    }

    pub fn varint(&mut self) -> Result<u64> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = self.byte()?;
            if i == 9 && b > 1 {
                return Err(Malformed("varint overflows"));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Malformed("varint overflows"))
    }

    /// A varint that must fit `usize` and be at most `max`.
    pub fn size(&mut self, max: usize) -> Result<usize> {
        let v = self.varint()?;
        usize::try_from(v).ok().filter(|n| *n <= max).ok_or(Malformed("size out of range"))
    }

    pub fn weight(&mut self) -> Result<f32> {
        let v = self.varint()?;
        match v {
            1 => {
                let b = self.take(4)?;
                Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            v if v & 1 == 1 => Err(Malformed("bad weight tag")),
            v => Ok((v >> 1) as f32 / 20.0),
        }
    }

    pub fn f64(&mut self) -> Result<f64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }
}
