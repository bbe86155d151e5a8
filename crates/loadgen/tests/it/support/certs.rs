//! A test CA and a server certificate for 127.0.0.1 and localhost, made with rcgen per test run.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

pub struct TestPki {
    pub ca_pem: String,
    pub chain: Vec<CertificateDer<'static>>,
    pub key_der: Vec<u8>,
}

impl TestPki {
    pub fn new() -> Self {
        Self::with_names(&["127.0.0.1", "localhost"])
    }

    /// A CA and a server certificate for `names` (IP addresses become IP SANs).
    pub fn with_names(names: &[&str]) -> Self {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "restbench test CA");
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf_key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let leaf_params = CertificateParams::new(names).unwrap();
        let leaf = leaf_params.signed_by(&leaf_key, &issuer).unwrap();
        Self {
            ca_pem: ca_cert.pem(),
            chain: vec![leaf.der().clone(), ca_cert.der().clone()],
            key_der: leaf_key.serialize_der(),
        }
    }

    /// What `openssl req -x509` makes by default: one self-signed certificate with CA:TRUE for
    /// 127.0.0.1 and localhost, served as the server's certificate and trusted as its own CA.
    pub fn self_signed_ca() -> Self {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let cert = params.self_signed(&key).unwrap();
        Self {
            ca_pem: cert.pem(),
            chain: vec![cert.der().clone()],
            key_der: key.serialize_der(),
        }
    }

    /// A server configuration offering `alpn`.
    pub fn server_config(&self, alpn: &[&[u8]]) -> Arc<ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                self.chain.clone(),
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_der.clone())),
            )
            .unwrap();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Arc::new(config)
    }

    /// Writes the CA certificate to a file that is removed when the guard drops.
    pub fn ca_file(&self) -> TempFile {
        let path = std::env::temp_dir().join(format!(
            "restbench-test-ca-{}-{}.pem",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&path, &self.ca_pem).unwrap();
        TempFile(path)
    }
}

static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub struct TempFile(pub std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
