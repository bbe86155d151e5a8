//! One client connection: read what has arrived, answer every complete request in it
//! (pipelining) with a single write, keep alive, and bound every wait with a timeout.

use std::rc::Rc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{timeout, timeout_at, Instant};

use super::parser::Parser;
use super::response::{Response, Status};
use crate::app::App;

/// A request head must arrive within this time from its first byte (slowloris defence),
/// and the first one within this time from the accept.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest pause while a request body is arriving.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a kept-alive connection may wait for its next request.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a client may take to accept our answers (slow-read defence).
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Before closing, unread request bytes are drained for at most this long / this much,
/// so that the client gets our answer instead of a TCP reset.
const LINGER_TIME: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 8 * 1024 * 1024;
/// Free space guaranteed before each read.
const READ_RESERVE: usize = 8 * 1024;
/// Answers are written once this many bytes are pending, even mid-pipeline.
const FLUSH_THRESHOLD: usize = 256 * 1024;
/// Buffers that grew past this (a rare huge answer) are released after use.
const KEEP_CAPACITY: usize = 64 * 1024;

const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// Serves one connection until the client leaves, asks to close, errs or times out.
pub async fn serve(stream: TcpStream, app: Rc<App>) {
    let mut connection = Connection {
        stream,
        input: Vec::with_capacity(READ_RESERVE),
        output: Vec::with_capacity(READ_RESERVE),
        scratch: Vec::new(),
        parser: Parser::new(),
    };
    connection.run(&app).await;
}

struct Connection {
    stream: TcpStream,
    /// Bytes read but not yet consumed by the parser.
    input: Vec<u8>,
    /// Encoded answers not yet written.
    output: Vec<u8>,
    /// Where JSON bodies are serialized before their head is written.
    scratch: Vec<u8>,
    parser: Parser,
}

/// What answering the buffered requests leads to.
enum Outcome {
    /// Every complete request was answered; read more.
    KeepOpen { answered: bool },
    /// The last answer closes the connection.
    Close,
    /// Writing failed: the client is gone.
    Gone,
}

impl Connection {
    async fn run(&mut self, app: &App) {
        let accepted = Instant::now();
        let mut head_started: Option<Instant> = None;
        let mut served = false;
        loop {
            match self.answer_buffered(app).await {
                Outcome::KeepOpen { answered } => {
                    if answered {
                        served = true;
                        head_started = None;
                    }
                }
                Outcome::Close => {
                    if self.flush().await {
                        self.linger().await;
                    }
                    return;
                }
                Outcome::Gone => return,
            }
            if self.parser.take_continue() {
                self.output.extend_from_slice(CONTINUE);
            }
            if !self.flush().await {
                return;
            }

            let now = Instant::now();
            let deadline = if self.parser.in_body() {
                now + BODY_TIMEOUT
            } else if !self.input.is_empty() {
                *head_started.get_or_insert(now) + HEADER_TIMEOUT
            } else if served {
                now + IDLE_TIMEOUT
            } else {
                accepted + HEADER_TIMEOUT
            };
            self.input.reserve(READ_RESERVE);
            match timeout_at(deadline, self.stream.read_buf(&mut self.input)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return,
                Ok(Ok(_)) => {}
                Err(_elapsed) => {
                    // Mid-request: say why we close. Idle: just close.
                    if self.parser.in_body() || !self.input.is_empty() {
                        Response::closing(&mut self.output).error(Status::RequestTimeout);
                        if self.flush().await {
                            self.linger().await;
                        }
                    }
                    return;
                }
            }
        }
    }

    /// Parses and answers every complete request in the input buffer, in order.
    async fn answer_buffered(&mut self, app: &App) -> Outcome {
        let mut start = 0;
        let mut answered = false;
        let outcome = loop {
            match self.parser.parse(&self.input[start..]) {
                Ok(parsed) => {
                    start += parsed.consumed;
                    if !parsed.complete {
                        break Outcome::KeepOpen { answered };
                    }
                    let Some(&head) = self.parser.head() else {
                        break Outcome::Close;
                    };
                    app.respond(&head, self.parser.parts(), &mut self.output, &mut self.scratch).await;
                    answered = true;
                    if !head.keep_alive {
                        // Nothing pipelined behind a closing request is dispatched.
                        break Outcome::Close;
                    }
                    if self.output.len() >= FLUSH_THRESHOLD && !self.flush().await {
                        break Outcome::Gone;
                    }
                }
                Err(error) => {
                    Response::closing(&mut self.output).error(Status::from_code(error.status()));
                    break Outcome::Close;
                }
            }
        };
        self.input.drain(..start);
        outcome
    }

    /// Writes all pending answers; false when the client is gone or does not read.
    async fn flush(&mut self) -> bool {
        if self.output.is_empty() {
            return true;
        }
        let written = timeout(WRITE_TIMEOUT, self.stream.write_all(&self.output)).await;
        self.output.clear();
        self.output.shrink_to(KEEP_CAPACITY);
        self.scratch.shrink_to(KEEP_CAPACITY);
        matches!(written, Ok(Ok(())))
    }

    /// Half-closes and drains what the client still sends, so it reads our last answer
    /// rather than a reset; bounded in time and bytes.
    async fn linger(&mut self) {
        if self.stream.shutdown().await.is_err() {
            return;
        }
        let deadline = Instant::now() + LINGER_TIME;
        self.input.clear();
        self.input.resize(READ_RESERVE, 0);
        let mut drained = 0;
        while drained < LINGER_BYTES {
            match timeout_at(deadline, self.stream.read(&mut self.input)).await {
                Ok(Ok(n)) if n > 0 => drained += n,
                _ => break,
            }
        }
    }
}
