//! Integration suites per provider, plus helpers shared by both
//! (connection reuse in `reuse`, a closed port for unreachable-server tests).

mod anthropic;
mod openai;
mod reuse;

/// A port on 127.0.0.1 that nothing listens on: bound, read, released.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
