//! TLS with rustls (the `ring` provider: it builds with a C compiler alone, no cmake or nasm).
//!
//! One [`rustls::ClientConfig`] is shared by every thread, so its in-memory session cache lets a
//! reconnect resume the previous session (a shorter handshake), as a browser or curl would. The
//! non-blocking glue moves records with `read_tls`/`write_tls`; a read drains the socket to
//! `EAGAIN` (or fills the caller's buffer), as the edge-triggered loop needs.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore,
};

use super::Socket;
use crate::LoadError;

/// How the server's certificate is checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsSettings {
    /// Accept any certificate (self-signed test servers); handshake signatures are still checked.
    pub insecure: bool,
    /// Trust only the certificates of this PEM file instead of the built-in Mozilla roots.
    pub ca_file: Option<PathBuf>,
}

/// Builds the shared client configuration. `alpn`: the protocols offered, in order.
pub fn client_config(
    settings: &TlsSettings,
    alpn: &[&[u8]],
) -> Result<Arc<ClientConfig>, LoadError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| LoadError::Tls(format!("cannot set up TLS: {e}")))?;
    let mut config = if settings.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(
                provider.signature_verification_algorithms,
            )))
            .with_no_client_auth()
    } else {
        let mut roots = RootCertStore::empty();
        match &settings.ca_file {
            Some(path) => add_pem_certificates(&mut roots, path)?,
            None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        builder.with_root_certificates(roots).with_no_client_auth()
    };
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(Arc::new(config))
}

/// The most a `--cacert` file may hold (a system's whole CA bundle is about 200 KiB).
pub const CA_FILE_LIMIT: u64 = 16 << 20;

fn add_pem_certificates(roots: &mut RootCertStore, path: &Path) -> Result<(), LoadError> {
    let bad = |what: String| {
        LoadError::Tls(format!(
            "--cacert {}: {what}; give a PEM file with one or more CERTIFICATE blocks",
            path.display()
        ))
    };
    // Read whole within a limit first: `/dev/zero` or an endless pipe is refused in one line.
    let pem = restbench_model::documents::io::read_limited(path, CA_FILE_LIMIT, "--cacert")
        .map_err(|e| {
            let cause = std::error::Error::source(&e).map(|s| format!(": {s}"));
            LoadError::Tls(format!(
                "{e}{}; give a PEM file with one or more CERTIFICATE blocks",
                cause.unwrap_or_default()
            ))
        })?;
    let mut added = 0;
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| bad(e.to_string()))?;
        roots
            .add(cert)
            .map_err(|e| bad(format!("a certificate is not usable: {e}")))?;
        added += 1;
    }
    if added == 0 {
        return Err(bad("no certificate found".into()));
    }
    Ok(())
}

/// The name the certificate must carry (an IP address is checked against the IP SANs and sends
/// no SNI; a DNS name is sent as SNI).
pub fn server_name(host: &str) -> Result<ServerName<'static>, LoadError> {
    ServerName::try_from(host.to_string())
        .map_err(|_| LoadError::Tls(format!("{host:?} is not a valid TLS server name")))
}

/// `--insecure`: any certificate chain is taken, but the handshake's signatures are verified
/// with the chain's key, so the connection is still a real TLS session with that key.
#[derive(Debug)]
struct AnyCertificate(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_schemes()
    }
}

/// Why a TLS connection failed, in one line a user can act on.
pub fn describe(e: &rustls::Error) -> String {
    use rustls::Error as E;
    match e {
        E::InvalidCertificate(c) => format!("certificate: {}", certificate_sentence(c)),
        E::NoApplicationProtocol
        | E::AlertReceived(rustls::AlertDescription::NoApplicationProtocol) => {
            "protocol: the server accepts none of the offered ALPN protocols (with --http2: it \
             does not serve h2 over TLS)"
                .into()
        }
        E::AlertReceived(alert) => format!("protocol: the server sent the alert {alert:?}"),
        E::InvalidMessage(_) | E::InappropriateMessage { .. } => {
            format!("protocol: the server does not speak TLS here (is it plain http://?): {e}")
        }
        E::PeerIncompatible(p) => format!(
            "protocol: the server offers no TLS version or cipher this client speaks \
             (TLS 1.2 or 1.3): {p:?}"
        ),
        other => format!("protocol: {other}"),
    }
}

/// What a refused certificate means and how to get past it, one sentence each.
// rustls still reports the deprecated `UnsupportedSignatureAlgorithm` for some webpki errors.
#[allow(deprecated)]
fn certificate_sentence(c: &CertificateError) -> String {
    const SKIP: &str = "or use --insecure to skip the check";
    match c {
        CertificateError::UnknownIssuer => format!(
            "unknown issuer: the server's certificate is not signed by a trusted CA (a \
             self-signed one?); pass its CA with --cacert FILE, {SKIP}"
        ),
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            format!(
                "name mismatch: the certificate is not valid for the URL's host; use a host it \
                 names (its subjectAltName), {SKIP}"
            )
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            format!("expired: the server's certificate is past its end date; renew it, {SKIP}")
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => format!(
            "not valid yet: the certificate's start date is in the future (check the clock), \
             {SKIP}"
        ),
        CertificateError::BadSignature => format!(
            "bad signature: the certificate was not signed by the key it claims; check the chain \
             the server sends, {SKIP}"
        ),
        CertificateError::BadEncoding => {
            format!("malformed: the server's certificate cannot be decoded, {SKIP}")
        }
        CertificateError::Revoked => {
            "revoked: the certificate's CA has withdrawn it; the server needs a new one".into()
        }
        CertificateError::UnsupportedSignatureAlgorithm
        | CertificateError::UnsupportedSignatureAlgorithmContext { .. }
        | CertificateError::UnsupportedSignatureAlgorithmForPublicKeyContext { .. } => format!(
            "unsupported signature algorithm: make the certificate with RSA-PSS/PKCS#1 SHA-256 or \
             better, ECDSA or Ed25519, {SKIP}"
        ),
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            format!(
                "wrong purpose: the certificate's extendedKeyUsage does not allow serverAuth; \
                 make one that does, {SKIP}"
            )
        }
        CertificateError::Other(other) => other_sentence(&format!("{other:?}")),
        other => format!("{other:?}, {SKIP}"),
    }
}

/// webpki's errors that rustls passes on as `Other`, recognised by name (rustls does not
/// re-export webpki's error type).
fn other_sentence(debug: &str) -> String {
    const SKIP: &str = "or use --insecure to skip the check";
    if debug.contains("CaUsedAsEndEntity") {
        format!(
            "the server's certificate is a CA certificate (CA:TRUE), which TLS refuses as a \
             server certificate; make one with CA:FALSE, {SKIP}"
        )
    } else if debug.contains("EndEntityUsedAsCa") {
        format!(
            "the certificate chain has a server certificate (CA:FALSE) where a CA should sign; \
             check the chain the server sends, {SKIP}"
        )
    } else if debug.contains("UnsupportedCertVersion") {
        format!("the certificate is not X.509 version 3; make a v3 one, {SKIP}")
    } else {
        format!("{debug}, {SKIP}")
    }
}

/// How a handshake step ended.
pub enum Handshake {
    Done,
    /// Waiting for the socket.
    Pending,
    /// Failed, with the one-line reason.
    Failed(String),
}

/// rustls over a non-blocking socket.
#[derive(Debug)]
pub struct TlsStream {
    pub sock: Socket,
    pub conn: ClientConnection,
}

impl TlsStream {
    pub fn new(
        sock: Socket,
        config: Arc<ClientConfig>,
        name: ServerName<'static>,
    ) -> Result<Self, String> {
        let conn = ClientConnection::new(config, name).map_err(|e| describe(&e))?;
        Ok(Self { sock, conn })
    }

    /// Moves the handshake on as far as the socket allows.
    pub fn handshake(&mut self) -> Handshake {
        loop {
            while self.conn.wants_write() {
                match self.conn.write_tls(&mut self.sock) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Handshake::Pending,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Handshake::Failed(format!("handshake write failed: {e}")),
                }
            }
            if !self.conn.is_handshaking() {
                return Handshake::Done;
            }
            match self.conn.read_tls(&mut self.sock) {
                Ok(0) => {
                    return Handshake::Failed(
                        "protocol: the server closed the connection during the handshake".into(),
                    );
                }
                Ok(_) => {
                    if let Err(e) = self.conn.process_new_packets() {
                        // Tell the server why (an alert), as far as the socket takes it.
                        let _ = self.conn.write_tls(&mut self.sock);
                        return Handshake::Failed(describe(&e));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Handshake::Pending,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Handshake::Failed(format!("handshake read failed: {e}")),
            }
        }
    }

    /// The protocol the server chose by ALPN.
    pub fn alpn(&self) -> Option<&[u8]> {
        self.conn.alpn_protocol()
    }
}

impl Read for TlsStream {
    /// Fills `buf` with plaintext, reading records until the socket says `EAGAIN` or `buf` is
    /// full: a short read therefore means the socket is drained, as for plain TCP.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        let mut eof = false;
        loop {
            match self.conn.reader().read(&mut buf[n..]) {
                Ok(0) if n < buf.len() => return Ok(n), // close_notify (or buf empty)
                Ok(k) => {
                    n += k;
                    if n == buf.len() {
                        return Ok(n);
                    }
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // Closed without close_notify: an end of stream like any other here.
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(n),
                Err(e) => return if n > 0 { Ok(n) } else { Err(e) },
            }
            if eof {
                return Ok(n);
            }
            match self.conn.read_tls(&mut self.sock) {
                Ok(0) => eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return if n > 0 { Ok(n) } else { Err(e) },
            }
            if let Err(e) = self.conn.process_new_packets() {
                let _ = self.conn.write_tls(&mut self.sock);
                return Err(io::Error::new(io::ErrorKind::InvalidData, describe(&e)));
            }
        }
    }
}

impl Write for TlsStream {
    /// Encrypts what rustls takes of `data` once earlier records are out, then sends it.
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.flush()?;
        let n = self.conn.writer().write(data)?;
        match self.flush() {
            Ok(()) => Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(n),
            Err(e) => Err(e),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        while self.conn.wants_write() {
            match self.conn.write_tls(&mut self.sock) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_errors_have_actionable_one_line_reasons() {
        let unknown = describe(&rustls::Error::InvalidCertificate(
            CertificateError::UnknownIssuer,
        ));
        assert!(unknown.contains("unknown issuer") && unknown.contains("--insecure"));
        let name = describe(&rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName,
        ));
        assert!(name.contains("name mismatch"));
        assert!(!describe(&rustls::Error::NoApplicationProtocol).contains('\n'));
    }

    #[test]
    fn a_ca_used_as_the_server_certificate_is_said_in_words() {
        #[derive(Debug)]
        struct CaUsedAsEndEntity;
        impl std::fmt::Display for CaUsedAsEndEntity {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("CaUsedAsEndEntity")
            }
        }
        impl std::error::Error for CaUsedAsEndEntity {}
        let e = rustls::Error::InvalidCertificate(CertificateError::Other(rustls::OtherError(
            std::sync::Arc::new(CaUsedAsEndEntity),
        )));
        assert_eq!(
            describe(&e),
            "certificate: the server's certificate is a CA certificate (CA:TRUE), which TLS \
             refuses as a server certificate; make one with CA:FALSE, or use --insecure to skip \
             the check"
        );
    }

    #[test]
    #[allow(deprecated)]
    fn every_certificate_error_names_a_fix_in_one_line() {
        for c in [
            CertificateError::UnknownIssuer,
            CertificateError::NotValidForName,
            CertificateError::Expired,
            CertificateError::NotValidYet,
            CertificateError::BadSignature,
            CertificateError::BadEncoding,
            CertificateError::UnsupportedSignatureAlgorithm,
            CertificateError::InvalidPurpose,
            CertificateError::UnhandledCriticalExtension,
        ] {
            let text = describe(&rustls::Error::InvalidCertificate(c));
            assert!(!text.contains('\n'), "{text}");
            assert!(text.contains("--insecure"), "{text}");
        }
        let unknown = describe(&rustls::Error::InvalidCertificate(
            CertificateError::UnknownIssuer,
        ));
        assert!(unknown.contains("--cacert FILE"), "{unknown}");
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_a_clear_error() {
        let settings = TlsSettings {
            insecure: false,
            ca_file: Some("/nonexistent/ca.pem".into()),
        };
        let e = client_config(&settings, &[]).unwrap_err().to_string();
        assert!(e.contains("--cacert /nonexistent/ca.pem"), "{e}");
        let dir = std::env::temp_dir().join(format!("restbench-empty-ca-{}", std::process::id()));
        std::fs::write(&dir, "not a certificate\n").unwrap();
        let settings = TlsSettings {
            insecure: false,
            ca_file: Some(dir.clone()),
        };
        let e = client_config(&settings, &[]).unwrap_err().to_string();
        let _ = std::fs::remove_file(&dir);
        assert!(e.contains("no certificate found"), "{e}");
    }
}
