//! A minimal HTTP/1.x server core: request parsing, response encoding, connections.

pub mod conn;
pub mod parser;
pub mod response;
