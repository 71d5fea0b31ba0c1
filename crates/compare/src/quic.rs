//! quinn (QUIC, RFC 9000) as a contender of `msctp bench net`: one bulk
//! unidirectional stream between a client and a server endpoint on
//! 127.0.0.1 in this process, on a two-worker tokio runtime as msctp's own
//! loopback run (`msctp_net::bench::msctp_throughput`). quinn sends with
//! its own UDP GSO and receives with GRO where the kernel has them, and
//! sizes its packets by its path MTU discovery (1200 bytes up to 1452
//! bytes of UDP payload by default: the 1452-byte packets of msctp's
//! Ethernet-size contender). TLS 1.3 with a self-signed certificate made
//! for the run (rcgen); the client trusts that certificate only.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use msctp_net::bench::Sample;
use quinn::crypto::rustls::QuicClientConfig;
use quinn::{ClientConfig, Endpoint, ServerConfig, TransportConfig, VarInt};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::process_cpu_seconds;

/// The stream receive window and send window of both ends, as msctp's
/// receive window on loopback (4 MB).
const WINDOW: u32 = 4 << 20;

fn transport() -> Arc<TransportConfig> {
    let mut t = TransportConfig::default();
    t.stream_receive_window(VarInt::from_u32(WINDOW));
    t.receive_window(VarInt::from_u32(2 * WINDOW));
    t.send_window(2 * WINDOW as u64);
    Arc::new(t)
}

/// A server and a client configuration that trusts only the server's
/// freshly made certificate for "localhost".
fn configs() -> Result<(ServerConfig, ClientConfig), String> {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".into()])
        .map_err(|e| format!("certificate: {e}"))?;
    let cert: CertificateDer<'static> = ck.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.key_pair.serialize_der()));
    let mut server = ServerConfig::with_single_cert(vec![cert.clone()], key)
        .map_err(|e| format!("server TLS: {e}"))?;
    server.transport_config(transport());
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).map_err(|e| format!("root store: {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("client TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let quic = QuicClientConfig::try_from(tls).map_err(|e| format!("client QUIC: {e}"))?;
    let mut client = ClientConfig::new(Arc::new(quic));
    client.transport_config(transport());
    Ok((server, client))
}

/// `bytes` over one quinn stream on 127.0.0.1, written in chunks of
/// `message` bytes; throughput first byte to last at the receiver, CPU
/// time of the whole process (both ends).
pub fn quinn_throughput(bytes: u64, message: usize) -> Result<Sample, String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let cpu0 = process_cpu_seconds();
    let r = rt.block_on(transfer(bytes, message));
    drop(rt);
    let cpu = process_cpu_seconds() - cpu0;
    let (got, secs) = r?;
    if got != bytes {
        return Err(format!("received {got} of {bytes} bytes"));
    }
    Ok(Sample {
        bytes: got,
        secs,
        cpu_s: Some(cpu),
        path_mtu: None,
    })
}

async fn transfer(bytes: u64, message: usize) -> Result<(u64, f64), String> {
    let (server_cfg, client_cfg) = configs()?;
    let lo = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let server = Endpoint::server(server_cfg, lo).map_err(|e| e.to_string())?;
    let addr = server.local_addr().map_err(|e| e.to_string())?;
    let rx = tokio::spawn(async move {
        let conn = server
            .accept()
            .await
            .ok_or("server endpoint closed")?
            .await
            .map_err(|e| e.to_string())?;
        let mut s = conn.accept_uni().await.map_err(|e| e.to_string())?;
        let (mut got, mut start) = (0u64, None);
        while let Some(c) = s
            .read_chunk(usize::MAX, true)
            .await
            .map_err(|e| e.to_string())?
        {
            start.get_or_insert_with(Instant::now);
            got += c.bytes.len() as u64;
        }
        let secs = start.map_or(0.0, |t: Instant| t.elapsed().as_secs_f64());
        conn.close(VarInt::from_u32(0), b"done");
        server.wait_idle().await;
        Ok::<(u64, f64), String>((got, secs))
    });
    let mut client = Endpoint::client(lo).map_err(|e| e.to_string())?;
    client.set_default_client_config(client_cfg);
    let conn = client
        .connect(addr, "localhost")
        .map_err(|e| e.to_string())?
        .await
        .map_err(|e| e.to_string())?;
    let mut s = conn.open_uni().await.map_err(|e| e.to_string())?;
    let payload = Bytes::from(vec![0x42u8; message.max(1)]);
    let mut sent = 0u64;
    while sent < bytes {
        let n = (bytes - sent).min(payload.len() as u64) as usize;
        s.write_chunk(payload.slice(..n))
            .await
            .map_err(|e| e.to_string())?;
        sent += n as u64;
    }
    s.finish().map_err(|e| e.to_string())?;
    let r = rx.await.map_err(|e| e.to_string())??;
    conn.close(VarInt::from_u32(0), b"done");
    client.wait_idle().await;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short transfer over one quinn stream on loopback arrives whole,
    /// with a duration and the process's CPU time.
    #[test]
    fn quinn_moves_a_megabyte_over_loopback() {
        let s = quinn_throughput(1 << 20, 1424).expect("transfer");
        assert_eq!(s.bytes, 1 << 20);
        assert!(s.secs > 0.0 && s.cpu_s.is_some_and(|c| c > 0.0));
    }
}
