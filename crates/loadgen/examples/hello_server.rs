//! The trivial server of [`restbench_loadgen::trivial_server`] as a program, for `bench/`.
//!
//! usage: hello_server [PORT]   (prints the port it bound, then serves until killed)

use std::io::{self, Write};
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;

use restbench_loadgen::trivial_server::TrivialServer;

fn main() -> io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let server = TrivialServer::bind(addr)?;
    println!("{}", server.local_addr()?.port());
    io::stdout().flush()?;
    server.serve(&AtomicBool::new(false))
}
