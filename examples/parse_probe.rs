use ahp_wasm::protocol::ActionEnvelope;
fn main() {
    let text = std::fs::read_to_string("target/bench-workload/envelopes-50.jsonl").unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut n = 0usize;
    for _ in 0..5 {
        for l in &lines {
            let e: ActionEnvelope = serde_json::from_str(l).unwrap();
            n += e.server_seq as usize;
        }
    }
    println!("{n} {}", lines.len());
}
