//! An echo server and client on byte streams over one mSCTP association
//! (`msctp_net::streams`), used as one would use TCP sockets:
//!
//! ```text
//! cargo run -p msctp-net --example echo -- server 127.0.0.1
//! cargo run -p msctp-net --example echo -- client 127.0.0.1 "hello" "world"
//! ```
//!
//! The server echoes every stream of every association; the client opens
//! one stream per word, sends it, ends its write half and prints what
//! comes back. Both use SCTP port 5000 over UDP port 9899 (RFC 6951).

use std::net::IpAddr;

use msctp_net::streams::{Connection, StreamConfig};
use msctp_net::{Stack, StackConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PORT: u16 = 5000;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(role), Some(addr)) = (args.first(), args.get(1)) else {
        eprintln!("usage: echo server ADDR | echo client SERVER-ADDR WORD...");
        std::process::exit(2);
    };
    let addr: IpAddr = addr.parse()?;
    let sc = StreamConfig::default();
    let server = role == "server";
    let mut cfg = StackConfig::new(PORT);
    cfg.endpoint.listen = server;
    if !server {
        // The client takes any free UDP port; the server has 9899.
        cfg.udp_port = 0;
    }
    sc.apply_to(&mut cfg);
    if server {
        cfg.local_addrs = vec![addr];
        let stack = Stack::bind(cfg).await?;
        loop {
            let mut conn = Connection::accept(&stack, sc.clone()).await?;
            tokio::spawn(async move {
                while let Some(s) = conn.accept_stream().await {
                    tokio::spawn(async move {
                        let (mut r, mut w) = tokio::io::split(s);
                        let _ = tokio::io::copy(&mut r, &mut w).await;
                        let _ = w.shutdown().await;
                    });
                }
            });
        }
    }
    let stack = Stack::bind(cfg).await?;
    let conn = Connection::connect(&stack, &[addr], PORT, None, sc).await?;
    let mut tasks = Vec::new();
    for word in args.into_iter().skip(2) {
        let mut s = conn.open_stream()?;
        tasks.push(tokio::spawn(async move {
            s.write_all(word.as_bytes()).await?;
            s.shutdown().await?;
            let mut back = String::new();
            s.read_to_string(&mut back).await?;
            Ok::<_, std::io::Error>((s.id(), back))
        }));
    }
    for t in tasks {
        let (id, back) = t.await??;
        println!("stream {id}: {back}");
    }
    Ok(())
}
