//! `cargo run -p kfam-testenv`: provision the test environment ahead of time
//! (the tests do it on first use) and print where it is.

fn main() {
    match kfam_testenv::provision() {
        Ok(()) => println!("test environment ready: {}", kfam_testenv::dir().display()),
        Err(e) => {
            eprintln!("error: the test environment could not be provisioned: {e}");
            std::process::exit(1);
        }
    }
}
