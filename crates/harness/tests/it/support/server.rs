//! An in-test server on 127.0.0.1:0: a thread per connection, each handed to the test's handler,
//! stopped when dropped. The verifier's tests give it handlers that break the contract on purpose.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

/// A running in-test server; dropping it stops the accept loop.
pub struct TestServer {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Starts a server that hands every accepted connection to `handle` on a thread of its own.
pub fn serve(handle: impl Fn(TcpStream) + Send + Sync + 'static) -> TestServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let handle = Arc::new(handle);
    thread::spawn(move || {
        for stream in listener.incoming() {
            if flag.load(Ordering::SeqCst) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let handle = handle.clone();
            thread::spawn(move || handle(stream));
        }
    });
    TestServer { addr, stop }
}
