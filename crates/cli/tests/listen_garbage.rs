//! The real driver under a garbage flood: `msctp listen` on 127.0.0.1 is
//! sent tens of thousands of junk UDP datagrams (random bytes, packets
//! with a valid CRC32c and random chunks, INITs with broken parameters,
//! forged COOKIE ECHOs, an empty and a maximal datagram), before and
//! during a real association; it keeps running and the association
//! delivers every byte.

use std::io::{BufRead, BufReader};
use std::net::{IpAddr, UdpSocket};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use msctp_net::{Stack, StackConfig};
use msctp_proto::wire::crc;

const SCTP_PORT: u16 = 5301;

/// Kills the listener when the test ends, however it ends.
struct Listener(Child);

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A small xorshift generator (the garbage need not be cryptographic).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Datagram `i` of the garbage stream.
fn garbage(r: &mut Rng, i: usize) -> Vec<u8> {
    let n = (r.next() % 1400) as usize;
    let sctp = |r: &mut Rng, chunks: Vec<u8>| {
        let mut p = Vec::new();
        p.extend_from_slice(&(r.next() as u16).to_be_bytes());
        p.extend_from_slice(&SCTP_PORT.to_be_bytes());
        p.extend_from_slice(&(r.next() as u32 % 3).to_be_bytes());
        p.extend_from_slice(&[0; 4]);
        p.extend_from_slice(&chunks);
        crc::fill(&mut p);
        p
    };
    match i % 8 {
        0 => r.bytes(n),
        1 => Vec::new(),
        2 if i % 800 == 2 => r.bytes(65_507),
        3 => {
            // INIT with a random tag and random parameters.
            let mut c = vec![1, 0, 0, 0];
            c.extend_from_slice(&r.bytes(16));
            c.extend_from_slice(&r.bytes(n % 200));
            let len = c.len() as u16;
            c[2..4].copy_from_slice(&len.to_be_bytes());
            sctp(r, c)
        }
        4 => {
            // COOKIE ECHO with a forged cookie.
            let mut c = vec![10, 0, 0, 0];
            c.extend_from_slice(&r.bytes(n % 300 + 4));
            let len = c.len() as u16;
            c[2..4].copy_from_slice(&len.to_be_bytes());
            sctp(r, c)
        }
        _ => {
            let chunks = r.bytes(n);
            sctp(r, chunks)
        }
    }
}

fn flood(sock: &UdpSocket, to: (&str, u16), r: &mut Rng, count: usize) {
    for i in 0..count {
        let _ = sock.send_to(&garbage(r, i), to);
    }
}

#[test]
fn listen_survives_garbage_udp_and_keeps_serving_a_real_association() {
    let udp = free_udp_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args([
            "listen",
            "--bind",
            "127.0.0.1",
            "--port",
            &SCTP_PORT.to_string(),
            "--udp-port",
            &udp.to_string(),
            "--lan",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("msctp listen starts");
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let listener = Listener(child);
    let mut err_lines = BufReader::new(stderr).lines();
    let first = err_lines.next().expect("a first line").unwrap();
    assert!(first.contains("listening"), "{first}");
    std::thread::spawn(move || for _ in err_lines {});

    // Garbage first, from several sockets.
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..4 {
        let s = UdpSocket::bind("127.0.0.1:0").unwrap();
        flood(&s, ("127.0.0.1", udp), &mut r, 5_000);
    }
    // More garbage all through the transfer.
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    // The transfer starts only once the flooder is sending: a fast
    // transfer could otherwise end before the thread first runs.
    let flooding = Arc::new(std::sync::Barrier::new(2));
    let flooding2 = flooding.clone();
    let flooder = std::thread::spawn(move || {
        let s = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut r = Rng(77);
        flood(&s, ("127.0.0.1", udp), &mut r, 100);
        let mut sent = 100;
        flooding2.wait();
        while !stop2.load(Ordering::Relaxed) && sent < 200_000 {
            flood(&s, ("127.0.0.1", udp), &mut r, 100);
            sent += 100;
            std::thread::sleep(Duration::from_millis(1));
        }
        sent
    });
    flooding.wait();

    let total = 2 << 20;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut cfg = StackConfig::new(5302).tuned_for_lan();
        cfg.udp_port = 0;
        cfg.local_addrs = vec!["127.0.0.1".parse::<IpAddr>().unwrap()];
        cfg.connect_timeout = Duration::from_secs(5);
        let client = Stack::bind(cfg).await.unwrap();
        let a = client
            .connect_via(&["127.0.0.1".parse().unwrap()], SCTP_PORT, Some(udp))
            .await
            .expect("connects through the garbage");
        let mut off = 0;
        while off < total {
            let n = 16_384.min(total - off);
            a.send(0, 0, Bytes::from(vec![(off >> 14) as u8; n]))
                .await
                .unwrap();
            off += n;
        }
        a.shutdown().await.unwrap();
    });
    stop.store(true, Ordering::Relaxed);
    let sent = flooder.join().unwrap();
    eprintln!("garbage datagrams sent during the transfer: {sent}");

    // The listener reports the association and the bytes it received.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut closed = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if line.contains("\"closed\"") {
            closed = Some(line);
            break;
        }
        assert!(Instant::now() < deadline, "no close reported");
    }
    let closed = closed.expect("the association's end is reported");
    let v: serde_json::Value = serde_json::from_str(&closed).unwrap();
    assert_eq!(v["bytes"], total as u64, "every byte arrived: {closed}");
    drop(listener);
}
