//! One request over the endpoint's protocol: the checks are the same over every protocol, only
//! the client differs (HTTP/1.1 in `http`, h2c in `h2c`), under the same caps.

use std::time::Duration;

use restbench_model::Protocol;

use crate::h2c;
use crate::http::{self, Endpoint, HttpError, Limits, Response};

/// One request on a new connection over the endpoint's protocol, with the same caps on the
/// answer's head and body whatever the protocol. h2c answers are framed by `http2`.
pub fn send(
    to: Endpoint,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
) -> Result<Response, HttpError> {
    match to.protocol {
        Protocol::H1 => http::exchange(
            to.addr,
            &http::request(method, path, headers, body),
            timeout,
        ),
        Protocol::H2c => h2c::exchange(
            to.addr,
            method,
            path,
            headers,
            body,
            timeout,
            Limits::DEFAULT,
        ),
    }
}
