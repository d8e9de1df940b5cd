//! The fuzz target `unit` (`fuzz/src/unit.rs`, the body libFuzzer runs)
//! on stable Rust, in CI: its built-in seeds, then mutated inputs from a
//! fixed-seed mutator (no coverage feedback). A panic is a finding; see
//! fuzz/README.md for coverage-guided campaigns under AddressSanitizer.
//! `KFAM_FUZZ_ITERATIONS=N` scales the mutation runs.

#[path = "../../fuzz/src/unit.rs"]
mod unit;

#[test]
fn unit_target() {
    let n: usize = std::env::var("KFAM_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let edit = |op: u8, v: u64| {
        let mut e = vec![0u8, op];
        e.extend_from_slice(&v.to_le_bytes());
        e
    };
    let seeds = [
        vec![0],
        vec![1],
        edit(0, 1 << 32),
        edit(0, 1 << 40),
        edit(1, 8192),
        edit(2, 3),
        edit(5, (100 << 8) | u64::from(b'*')),
        vec![1, 40, 0, 0xff],
    ];
    for s in &seeds {
        unit::unit(s);
    }
    // xorshift64*, as the fuzz crate's driver.
    let mut state = 0x6b66_616d_u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    for _ in 0..n {
        let mut data = seeds[(next() % seeds.len() as u64) as usize].clone();
        for _ in 0..=next() % 4 {
            match next() % 3 {
                // Another layout edit or description edit appended.
                0 => data.extend_from_slice(&next().to_le_bytes()[..(1 + next() % 8) as usize]),
                // A byte changed.
                1 if data.len() > 1 => {
                    let i = 1 + (next() as usize) % (data.len() - 1);
                    data[i] = next() as u8;
                }
                _ => data[0] = next() as u8,
            }
        }
        unit::unit(&data);
    }
    eprintln!("fuzz_unit: {} executions, no crash", seeds.len() + n);
}
