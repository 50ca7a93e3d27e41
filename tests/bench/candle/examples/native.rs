//! The same engine on the host, for a native figure beside the browser's:
//! `RAYON_NUM_THREADS=1 cargo run --release --example native -- MODEL.gguf`
//! loads the model, then answers the benchmark's prompt ids three times
//! (200 tokens each, greedy) and prints the times.

use candle_bench::Core;
use std::time::Instant;

const IDS: [u32; 42] = [
    1, 9690, 198, 2683, 359, 253, 5356, 5646, 11173, 3365, 3511, 308, 34519, 28, 7018, 411, 407,
    19712, 8182, 2, 198, 1, 4093, 198, 31530, 549, 563, 260, 6783, 28, 624, 12439, 284, 624, 27485,
    30, 2, 198, 1, 520, 9531, 198,
];
const N: usize = 200;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: native MODEL.gguf")?;
    let bytes = std::fs::read(path)?;
    let t = Instant::now();
    let mut core = Core::load(&bytes)?;
    println!(
        "load (bytes -> ready): {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    for run in 1..=3 {
        let t = Instant::now();
        let mut tokens = vec![core.prompt(&IDS)?];
        let first = t.elapsed().as_secs_f64();
        while tokens.len() < N {
            tokens.push(core.next()?);
        }
        let decode = t.elapsed().as_secs_f64() - first;
        println!(
            "run {run}: first token {:.0} ms, decode {:.1} tokens/s, first tokens {:?}",
            first * 1e3,
            (N - 1) as f64 / decode,
            &tokens[..20]
        );
    }
    Ok(())
}
